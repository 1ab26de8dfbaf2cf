// Credentials given in the forms people use never show up in servebench's messages or files:
// --header in curl's colon form (with values that trigger an error, and one the server refuses),
// a key in the base URL's userinfo; a config file others can read that holds a key is warned about;
// --insecure warns once and is recorded in the results.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include "e2e/run_capture_server.hpp"
#include "e2e/run_process.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

const std::string kPlanted = "sk-PLANTEDsecret0123456789";

// The key in no byte of stdout, stderr or any file the run left in `dir`.
void expect_key_nowhere(const RunResult& r, const fs::path& dir) {
  EXPECT_EQ(r.out.find("PLANTEDsecret"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("PLANTEDsecret"), std::string::npos) << r.err;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "servebench.toml") continue;
    EXPECT_EQ(slurp(e.path()).find("PLANTEDsecret"), std::string::npos) << e.path();
  }
}

TEST(RunSecretsE2e, ColonFormHeaderWithABadValueNeverShowsTheKey) {
  TempDir dir("sec_header_bad");
  for (const std::string& header : {"Authorization Bearer " + kPlanted,              // no separator
                                    "Authorization: Bearer " + kPlanted + "\r\nX: 1",  // a line break
                                    "Auth orization: Bearer " + kPlanted}) {           // not a header name
    const RunResult r = run_servebench({"--port", "1", "--num-prompts", "1", "--header", header}, dir.path);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--header"), std::string::npos) << r.err;
    expect_key_nowhere(r, dir.path);
  }
}

TEST(RunSecretsE2e, ColonFormHeaderIsSentAndARefusedKeyIsNeverShown) {
  TempDir dir("sec_header_sent");
  CaptureServer server("m");
  ASSERT_NE(server.port(), 0);
  const RunResult ok = run_servebench({"--port", std::to_string(server.port()), "--num-prompts", "2", "--header",
                                       "Authorization: Bearer " + kPlanted, "--output-json", "s.json"},
                                      dir.path);
  ASSERT_EQ(ok.code, 0) << ok.err;
  ASSERT_FALSE(server.requests().empty());
  EXPECT_EQ(server.requests().back().header("Authorization"), "Bearer " + kPlanted);
  expect_key_nowhere(ok, dir.path);

  Sim sim({"--api-key", "sk-the-right-one", "--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const RunResult refused = run_servebench({"--port", sim.port_text(), "--num-prompts", "2", "--header",
                                            "Authorization: Bearer " + kPlanted},
                                           dir.path);
  EXPECT_EQ(refused.code, 3) << refused.err;
  expect_key_nowhere(refused, dir.path);
}

TEST(RunSecretsE2e, KeyInTheBaseUrlUserinfoIsNeverShown) {
  TempDir dir("sec_url");
  for (const std::string& url : {"http://user:" + kPlanted + "@127.0.0.1:8000",
                                 "http://user:" + kPlanted + "@127.0.0.1:99999/v1"}) {
    const RunResult r = run_servebench({"--base-url", url, "--num-prompts", "1"}, dir.path);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--base-url 'http://***@127.0.0.1:"), std::string::npos) << r.err;
    expect_key_nowhere(r, dir.path);
  }
}

TEST(RunSecretsE2e, ConfigFileOthersCanReadHoldingAKeyIsWarnedWithTheFix) {
  TempDir dir("sec_toml");
  CaptureServer server("m");
  ASSERT_NE(server.port(), 0);
  const fs::path toml = dir.path / "servebench.toml";
  std::ofstream(toml) << "api_key = \"" << kPlanted << "\"\nnum_prompts = 1\n";
  ::chmod(toml.c_str(), 0644);
  const std::vector<std::string> args = {"--port", std::to_string(server.port())};
  const RunResult open = run_servebench(args, dir.path);
  ASSERT_EQ(open.code, 0) << open.err;
  EXPECT_NE(open.err.find("warning: ./servebench.toml holds an API key and can be read by everyone (mode 0644): "
                          "chmod 600 ./servebench.toml\n"),
            std::string::npos) << open.err;
  expect_key_nowhere(open, dir.path);
  ::chmod(toml.c_str(), 0600);
  const RunResult closed = run_servebench(args, dir.path);
  ASSERT_EQ(closed.code, 0) << closed.err;
  EXPECT_EQ(closed.err.find("chmod 600"), std::string::npos) << closed.err;
}

TEST(RunSecretsE2e, InsecureWarnsOnceAndIsRecorded) {
  TempDir dir("sec_insecure");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0);
  const std::vector<std::string> base = {"--port", sim.port_text(), "--num-prompts", "2", "--random-output-len", "2",
                                         "--concurrency", "1", "2", "--no-preflight-request"};
  std::vector<std::string> insecure = base;
  insecure.insert(insecure.end(), {"--insecure", "--output-json", "i.json"});
  const RunResult r = run_servebench(insecure, dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  std::size_t warnings = 0;
  for (std::size_t at = r.err.find("warning: --insecure"); at != std::string::npos;
       at = r.err.find("warning: --insecure", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << r.err;
  EXPECT_EQ(Json::parse(slurp(dir.path / "i.json"))["config"]["insecure"], true);
  std::vector<std::string> plain = base;
  plain.insert(plain.end(), {"--output-json", "p.json"});
  const RunResult p = run_servebench(plain, dir.path);
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(p.err.find("--insecure"), std::string::npos) << p.err;
  EXPECT_EQ(Json::parse(slurp(dir.path / "p.json"))["config"]["insecure"], false);
}

}  // namespace
}  // namespace sb::e2e
