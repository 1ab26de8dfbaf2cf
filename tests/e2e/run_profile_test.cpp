// Gateway profiles end to end: `servebench run --config FILE --profile NAME` sends the profile's
// model, key (Authorization) and path (its base URL joined with the endpoint), and the profile's
// key, a secret like OPENAI_API_KEY, never reaches an output even when the server echoes it.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "e2e/fault_server.hpp"
#include "e2e/run_capture_server.hpp"
#include "e2e/run_process.hpp"

namespace sb::e2e {
namespace {

// Not sk-shaped, so only the key-aware scrubbing (net/secrets.hpp) can mask it, not the pattern.
const std::string kProfileKey = "tt-PROFILEkey-e2e-4242";

void write_profiles(const fs::path& file, const std::string& base_url, const std::string& model) {
  std::ofstream(file) << "[other]\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"wrong\"\n\n"
                      << "[taotoken]\napi_key = \"" << kProfileKey << "\"\nbase_url = \"" << base_url
                      << "\"\ndefault_model = \"" << model << "\"\ntimeout = 120\n";
  ::chmod(file.c_str(), 0600);
}

void expect_profile_key_nowhere(const RunResult& r, const fs::path& dir) {
  EXPECT_EQ(r.out.find("PROFILEkey"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("PROFILEkey"), std::string::npos) << r.err;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "gw.toml") continue;
    EXPECT_EQ(slurp(e.path()).find("PROFILEkey"), std::string::npos) << e.path();
  }
}

TEST(RunProfileE2e, ProfileModelKeyAndPathAreWhatIsSent) {
  TempDir dir("profile_sent");
  CaptureServer server("claude-sonnet-4-20250514");  // preflight checks that the model is served
  ASSERT_NE(server.port(), 0);
  const std::string root = "http://127.0.0.1:" + std::to_string(server.port());
  struct Case {
    std::string base_url;
    std::vector<std::string> extra;
    std::string post_path;
  };
  for (const Case& c : {Case{root + "/api", {}, "/api/v1/completions"},
                        Case{root + "/api/v1/", {"--backend", "openai-chat"}, "/api/v1/chat/completions"}}) {
    write_profiles(dir.path / "gw.toml", c.base_url, "claude-sonnet-4-20250514");
    std::vector<std::string> args = {"--config", "gw.toml", "--profile", "taotoken", "--num-prompts", "2",
                                     "--random-input-len", "8", "--random-output-len", "3", "--output-json",
                                     "s.json"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const std::size_t before = server.requests().size();
    const RunResult r = run_servebench(args, dir.path, {{"OPENAI_API_KEY", "sk-not-this-one-0000"}});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<CapturedRequest> got = server.requests();
    ASSERT_GT(got.size(), before) << c.base_url;
    int posts = 0, models = 0;
    for (std::size_t i = before; i < got.size(); ++i) {
      const CapturedRequest& q = got[i];
      EXPECT_EQ(q.header("Authorization"), "Bearer " + kProfileKey) << q.path;
      if (q.method == "GET") {
        // The model list, and engine probes (docs/engines.md): all below the base URL's /api.
        EXPECT_EQ(q.path.rfind("/api/", 0), 0u) << q.path;
        if (q.path == "/api/v1/models") ++models;
      } else if (q.path.find("completions") != std::string::npos) {
        EXPECT_EQ(q.path, c.post_path);
        EXPECT_NE(q.body.find(R"("model":"claude-sonnet-4-20250514")"), std::string::npos) << q.body;
        ++posts;
      }
    }
    EXPECT_EQ(models, 1) << c.base_url;
    EXPECT_GE(posts, 2) << c.base_url;  // the test request and the stage's two
    expect_profile_key_nowhere(r, dir.path);
  }
}

TEST(RunProfileE2e, EchoedProfileKeyIsMaskedInTheStoredMessage) {
  TempDir dir("profile_echo");
  FaultServer server(Fault::unauthorized_echo);
  write_profiles(dir.path / "gw.toml", "http://127.0.0.1:" + server.port_text() + "/v1", "m1");
  const RunResult r = run_servebench({"--config", "gw.toml", "--profile", "taotoken", "--num-prompts", "1",
                                      "--output-json", "k.json", "--no-preflight-request", "--max-failure-ratio", "1"},
                                     dir.path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(server.received(), 1);
  const std::string jsonl = slurp(dir.path / "k.requests.jsonl");
  EXPECT_NE(jsonl.find("Incorrect API key provided: sk-***"), std::string::npos) << jsonl;
  expect_profile_key_nowhere(r, dir.path);
}

}  // namespace
}  // namespace sb::e2e
