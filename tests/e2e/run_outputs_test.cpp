// `servebench run` output files end to end: a write that fails (/dev/full) is named with the
// system's reason and exits 6, never "wrote"; paths that cannot work fail before any request
// reaches the server (exit 2); repeated stage loads keep one vLLM file each; no temporary file is
// left behind; a dataset with a byte order mark is read.
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "e2e/run_capture_server.hpp"
#include "e2e/run_process.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

const std::vector<std::string> kQuickSim = {"--ttft-ms", "1", "--itl-ms", "1"};

std::vector<std::string> quick_run(const std::string& port, std::vector<std::string> more) {
  std::vector<std::string> args = {"--port", port, "--num-prompts", "6", "--random-input-len", "8",
                                   "--random-output-len", "4", "--no-preflight-request"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RunOutputsE2e, RequestsJsonlOnDevFullExitsSixNamingTheFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir("out_full_jsonl");
  Sim sim(kQuickSim, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult r = run_servebench(quick_run(sim.port_text(), {"--concurrency", "2", "4", "--output-json", "s.json",
                                                                 "--requests-jsonl", "/dev/full"}),
                                     dir.path);
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("error: --requests-jsonl: cannot write per-request file /dev/full: No space left on device: "
                       "12 request lines lost (0 written)"),
            std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("wrote /dev/full"), std::string::npos) << r.err;
  // The stage summaries were kept: the sweep document has both stages, every request counted.
  const Json doc = Json::parse(slurp(dir.path / "s.json"));
  ASSERT_EQ(doc["stages"].size(), 2u);
  for (const Json& s : doc["stages"]) EXPECT_EQ(s["completed"].get<int>() + s["failed"].get<int>(), 6);
  EXPECT_NE(r.err.find("wrote s.json"), std::string::npos) << r.err;
}

TEST(RunOutputsE2e, OutputJsonOnDevFullExitsSixNamingTheFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir("out_full_json");
  Sim sim(kQuickSim, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult r = run_servebench(quick_run(sim.port_text(), {"--output-json", "/dev/full", "--requests-jsonl",
                                                                 "r.jsonl"}),
                                     dir.path);
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("--output-json: cannot write /dev/full: No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("wrote"), std::string::npos) << r.err;
}

// Nothing, not even preflight's GET /v1/models, reaches the server.
void expect_refused_before_any_request(const std::vector<std::string>& flags, const std::string& says,
                                       const std::string& tag) {
  TempDir dir(tag);
  CaptureServer server("m");
  ASSERT_NE(server.port(), 0);
  std::vector<std::string> args = {"--port", std::to_string(server.port()), "--num-prompts", "2"};
  args.insert(args.end(), flags.begin(), flags.end());
  const RunResult r = run_servebench(args, dir.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_TRUE(server.requests().empty()) << server.requests().front().path;
}

TEST(RunOutputsE2e, UnwritableResultDirFailsBeforeAnyRequest) {
  // /proc refuses new files even to root.
  expect_refused_before_any_request({"--save-result", "--result-dir", "/proc/self/task"},
                                    "--result-dir: /proc/self/task: cannot create files in /proc/self/task", "out_proc");
}

// `servebench run` as user nobody (65534) when the tests run as root, who may write into a chmod
// 500 folder: the check must then see the folder as an ordinary user does.
RunResult run_servebench_unprivileged(const std::vector<std::string>& args, const fs::path& dir) {
  if (::geteuid() != 0) return run_servebench(args, dir);
  // The build tree may sit under a folder only root can enter (a CI checkout in a mktemp -d
  // folder, mode 0700): nobody runs a copy of the binary placed in `dir`, which it can reach.
  const fs::path binary = dir / "servebench-for-nobody";
  fs::copy_file(SB_BINARY, binary, fs::copy_options::overwrite_existing);
  ::chmod(binary.c_str(), 0755);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const int out = ::open((dir / "run.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open((dir / "run.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::unsetenv("OPENAI_API_KEY");
    ::setenv("SB_SELFTEST_CACHE", pinned_selftest_cache().c_str(), 1);  // no probe before the run
    if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(125);
    std::vector<std::string> all = {binary.string(), "run"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  RunResult r;
  r.code = wait_exit(pid, 60);
  r.out = slurp(dir / "run.out");
  r.err = slurp(dir / "run.err");
  return r;
}

TEST(RunOutputsE2e, ReadOnlyResultDirFailsBeforeAnyRequest) {
  TempDir dir("out_ro");
  ::chmod(dir.path.c_str(), 0755);  // reachable by nobody, who may not write here either
  const fs::path ro = dir.path / "ro";
  fs::create_directories(ro);
  ::chmod(ro.c_str(), 0500);
  CaptureServer server("m");
  ASSERT_NE(server.port(), 0);
  const RunResult r = run_servebench_unprivileged({"--port", std::to_string(server.port()), "--num-prompts", "2",
                                                   "--save-result", "--result-dir", ro.string()},
                                                  dir.path);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--result-dir: " + ro.string() + ": cannot create files in " + ro.string() +
                       ": Permission denied"),
            std::string::npos) << r.err;
  EXPECT_TRUE(server.requests().empty());
  ::chmod(ro.c_str(), 0700);
}

TEST(RunOutputsE2e, NameOverNameMaxFailsBeforeAnyRequest) {
  const std::string name = std::string(300, 'x') + ".json";
  expect_refused_before_any_request({"--output-json", name}, "--output-json: " + name +
                                    ": file name too long (305 bytes, the file system allows 255)", "out_long");
}

TEST(RunOutputsE2e, FolderWhereTheFileGoesFailsBeforeAnyRequest) {
  expect_refused_before_any_request({"--csv", "/tmp"}, "--csv: /tmp: is a folder, not a file", "out_dir");
}

TEST(RunOutputsE2e, MissingFolderThatCannotBeMadeFailsBeforeAnyRequest) {
  expect_refused_before_any_request({"--output-json", "/proc/self/nope/s.json"}, "cannot create files in /proc/self",
                                    "out_missing");
}

TEST(RunOutputsE2e, RepeatedConcurrencyLeavesOneResultFilePerStage) {
  TempDir dir("out_repeat");
  Sim sim(kQuickSim, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult r = run_servebench(quick_run(sim.port_text(), {"--concurrency", "4", "4", "4", "--save-result",
                                                                 "--result-dir", "res", "--requests-jsonl", "r.jsonl"}),
                                     dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> files = names_in(dir.path / "res");
  ASSERT_EQ(files.size(), 3u) << r.err;  // one per stage, none replaced; no temporary file left
  for (const std::string& f : files) {
    EXPECT_EQ(Json::parse(slurp(dir.path / "res" / f))["completed"], 6) << f;
    EXPECT_NE(r.err.find("wrote res/" + f), std::string::npos) << r.err;
  }
  // vLLM's name for the first; the stage index for the ones that would repeat it. vLLM's name holds
  // the time to the second, so a stage that starts in the next second has a name of its own: each
  // "-stage<i>" file is a name another file already has, with the index before the extension.
  int repeats = 0;
  for (const std::string& f : files) {
    const std::size_t at = f.find("-stage");
    if (at == std::string::npos) continue;
    ++repeats;
    const std::string base = f.substr(0, at) + ".json";
    EXPECT_NE(std::find(files.begin(), files.end(), base), files.end()) << f << " repeats no name";
    EXPECT_EQ(f.substr(f.size() - 5), ".json") << f;
  }
  EXPECT_LE(repeats, 2);
  for (const std::string& f : names_in(dir.path)) EXPECT_NE(f.front(), '.') << f;  // no temporary files
}

TEST(RunOutputsE2e, DatasetWithAByteOrderMarkIsAccepted) {
  TempDir dir("out_bom");
  std::ofstream(dir.path / "bom.jsonl", std::ios::binary)
      << "\xEF\xBB\xBF{\"prompt\": \"first prompt\"}\n{\"prompt\": \"second prompt\"}\n";
  Sim sim(kQuickSim, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult r = run_servebench({"--port", sim.port_text(), "--dataset-name", "custom", "--dataset-path", "bom.jsonl",
                                      "--num-prompts", "2", "--custom-output-len", "3", "--output-json", "b.json",
                                      "--no-preflight-request"},
                                     dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Json::parse(slurp(dir.path / "b.json"))["stages"][0]["completed"], 2);
}

}  // namespace
}  // namespace sb::e2e
