// `servebench run` flags checked on the wire and in the outputs: --header, the API key, --model vs
// --served-model-name, sampling flags, --extra-body, --num-warmups, --percentile-metrics,
// --metric-percentiles, --goodput, --metadata, --save-result/--result-dir/--result-filename, --host;
// and the live progress line, drawn only when stderr is a terminal and not with --disable-tqdm.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>

#include <nlohmann/json.hpp>

#include "e2e/run_capture_server.hpp"
#include "e2e/run_process.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

constexpr const char* kKey = "sk-CAPTURED-KEY-42";

// The key must never reach stdout, stderr or any file servebench wrote.
void expect_key_nowhere(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    EXPECT_EQ(slurp(e.path()).find(kKey), std::string::npos) << "API key leaked into " << e.path();
  }
}

TEST(RunFlagsE2e, WireCarriesHeadersKeyServedNameSamplingAndExtraBody) {
  TempDir dir("wire");
  CaptureServer server("m1");
  ASSERT_NE(server.port(), 0);
  RunResult r = run_servebench(
      {"--backend", "openai-chat", "--host", "127.0.0.1", "--port", std::to_string(server.port()), "--model",
       "/models/llama", "--served-model-name", "m1", "--header", "X-Team=infra", "--header", "X-Eq=a=b",
       "--temperature", "0.7", "--top-k", "20", "--repetition-penalty", "1.1", "--extra-body",
       R"({"priority":5,"temperature":0.3})", "--num-warmups", "2", "--num-prompts", "3", "--random-input-len", "4",
       "--random-output-len", "3", "--percentile-metrics", "ttft,e2el", "--metric-percentiles", "50,99.9",
       "--goodput", "ttft:100000", "--metadata", "team=infra", "--save-result", "--result-dir", "rd",
       "--result-filename", "my.json", "--output-json", "o.json", "--disable-tqdm"},
      dir.path, {{"OPENAI_API_KEY", kKey}});
  ASSERT_EQ(r.code, 0) << r.err;

  int posts = 0;
  for (const CapturedRequest& q : server.requests()) {
    SCOPED_TRACE(q.method + " " + q.path);
    EXPECT_EQ(q.header("Authorization"), std::string("Bearer ") + kKey);
    EXPECT_EQ(q.header("X-Team"), "infra");
    EXPECT_EQ(q.header("X-Eq"), "a=b");  // only the first '=' splits
    if (q.path != "/v1/chat/completions") continue;
    ++posts;
    const Json body = Json::parse(q.body);
    EXPECT_EQ(body["model"], "m1");  // --served-model-name is what the server sees
    EXPECT_EQ(body["max_completion_tokens"], 3);
    EXPECT_EQ(body["stream"], true);
    EXPECT_EQ(body["stream_options"]["include_usage"], true);
    EXPECT_EQ(body["top_k"], 20);
    EXPECT_DOUBLE_EQ(body["repetition_penalty"].get<double>(), 1.1);
    EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);  // --extra-body is merged last
    EXPECT_EQ(body["priority"], 5);
    EXPECT_TRUE(body["messages"].is_array());
  }
  EXPECT_EQ(posts, 1 + 2 + 3);  // the preflight test request and the warm-ups are sent but not counted below

  const Json stage = Json::parse(slurp(dir.path / "o.json"))["stages"][0];
  EXPECT_EQ(stage["completed"], 3);
  EXPECT_EQ(stage["model_id"], "/models/llama");
  EXPECT_EQ(stage["team"], "infra");

  // vLLM file: only the chosen metrics and percentiles; every request meets the loose TTFT SLO.
  const Json v = Json::parse(slurp(dir.path / "rd/my.json"));
  EXPECT_EQ(v["team"], "infra");
  EXPECT_TRUE(v.contains("p99.9_ttft_ms"));
  EXPECT_TRUE(v.contains("p50_e2el_ms"));
  EXPECT_FALSE(v.contains("p99_ttft_ms"));
  EXPECT_FALSE(v.contains("mean_itl_ms"));
  EXPECT_FALSE(v.contains("mean_tpot_ms"));
  EXPECT_DOUBLE_EQ(v["request_goodput"].get<double>(), v["request_throughput"].get<double>());

  EXPECT_NE(r.out.find("P99.9 TTFT (ms):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("P50 E2EL (ms):"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("TPOT (ms):"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("Warm-up: 2 requests, 0 failed"), std::string::npos) << r.err;
  expect_key_nowhere(dir.path);
}

// Runs servebench with stderr on a pseudo-terminal; returns everything written there.
std::string run_on_tty(const std::vector<std::string>& args, const fs::path& dir) {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const int out = ::open((dir / "tty.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, STDOUT_FILENO);  // only stderr stays on the terminal
    ::unsetenv("OPENAI_API_KEY");
    ::setenv("SB_SELFTEST_CACHE", pinned_selftest_cache().c_str(), 1);  // no probe before the run
    std::vector<std::string> all = {SB_BINARY, "run"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(SB_BINARY, argv.data());
    ::_exit(127);
  }
  std::string seen;
  char buf[4096];
  // Until EIO (the child closed its side), bounded so a hung child cannot hang the test.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 100) == 0) continue;
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;
    seen.append(buf, static_cast<std::size_t>(n));
  }
  ::close(master);
  EXPECT_EQ(wait_exit(pid, 30), 0) << seen;
  return seen;
}

TEST(RunFlagsE2e, ProgressLineOnlyOnATerminal) {
  TempDir dir("tty");
  Sim sim({"--ttft-ms", "5", "--itl-ms", "20"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const std::vector<std::string> args = {"--port", sim.port_text(), "--num-prompts", "6", "--random-input-len",
                                         "4", "--random-output-len", "15", "--concurrency", "2"};
  const std::string tty = run_on_tty(args, dir.path);
  EXPECT_NE(tty.find("\rstage 1/1 concurrency 2 | "), std::string::npos) << tty;
  EXPECT_NE(tty.find("/6 req | "), std::string::npos) << tty;
  EXPECT_NE(tty.find(" elapsed | ETA "), std::string::npos) << tty;

  std::vector<std::string> quiet = args;
  quiet.push_back("--disable-tqdm");
  EXPECT_EQ(run_on_tty(quiet, dir.path).find("ETA"), std::string::npos);

  RunResult piped = run_servebench(args, dir.path);  // stderr is a file here
  ASSERT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(piped.err.find("ETA"), std::string::npos) << piped.err;
  EXPECT_EQ(piped.err.find('\r'), std::string::npos);
}

}  // namespace
}  // namespace sb::e2e
