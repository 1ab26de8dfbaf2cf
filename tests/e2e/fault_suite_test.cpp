// `servebench run` against a misbehaving server (fault_server.hpp), one fault per case: for every
// fault, completed + failed == sent, the server received each request exactly once, the per-request
// JSONL has one line per request, every request lands in the documented outcome category
// (docs/reliability.md), and the API key, which the server echoes in its error texts, appears in no
// output file and not on stdout/stderr.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/fault_server.hpp"
#include "e2e/run_process.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

constexpr const char* kPlantedKey = "sk-planted-Zq81xYtW4mKp0aBcD";

struct FaultCase {
  const char* name;
  Fault fault;
  const char* outcome;              // every request's outcome
  std::vector<std::string> extra;   // more flags for `servebench run`
  int output_tokens = -1;           // each successful request's output_tokens, -1: not checked
};

std::ostream& operator<<(std::ostream& os, const FaultCase& c) { return os << c.name; }

const std::vector<FaultCase>& fault_cases() {
  static const std::vector<FaultCase> cases = {
      {"none", Fault::none, "ok", {}, 3},
      {"status_429", Fault::status_429, "http_error", {}},
      {"status_429_empty", Fault::status_429_empty, "http_error", {}},
      {"status_500", Fault::status_500, "http_error", {}},
      {"status_500_empty", Fault::status_500_empty, "http_error", {}},
      {"status_503", Fault::status_503, "http_error", {}},
      {"status_503_empty", Fault::status_503_empty, "http_error", {}},
      {"unauthorized_echo", Fault::unauthorized_echo, "http_error", {}},
      {"reset_mid_stream", Fault::reset_mid_stream, "dropped", {}},
      {"missing_done", Fault::missing_done, "dropped", {}},
      {"vllm_stream_error", Fault::vllm_stream_error, "http_error", {}},
      {"llamacpp_stream_error", Fault::llamacpp_stream_error, "http_error", {}},
      {"split_every_byte", Fault::split_every_byte, "ok", {}, 3},
      {"slow_first_byte", Fault::slow_first_byte, "ok", {"--idle-timeout-s", "3"}, 3},
      {"short_stalls", Fault::short_stalls, "ok", {"--idle-timeout-s", "2"}, 3},
      {"stall_forever", Fault::stall_forever, "timeout", {"--idle-timeout-s", "1"}},
      {"stall_after_headers", Fault::stall_after_headers, "timeout", {"--idle-timeout-s", "1"}},
      {"huge_event", Fault::huge_event, "ok", {}, 3},
      {"http10", Fault::http10, "ok", {}, 3},
      {"extra_crlf", Fault::extra_crlf, "ok", {}, 3},
      {"chunk_extensions", Fault::chunk_extensions, "ok", {}, 3},
      {"connection_close", Fault::connection_close, "ok", {}, 3},
      {"close_after_reply", Fault::close_after_reply, "ok", {}, 3},
      {"interim_1xx", Fault::interim_1xx, "ok", {}, 3},
      {"error_null", Fault::error_null, "ok", {}, 3},
      {"usage_floats", Fault::usage_floats, "ok", {}, 7},
      {"empty_data", Fault::empty_data, "ok", {}, 3},
  };
  return cases;
}

class FaultSuite : public ::testing::TestWithParam<FaultCase> {};

// Every file the run left in `dir`, and its stdout/stderr, must not contain the key.
void expect_no_key_in(const fs::path& dir, const RunResult& r) {
  EXPECT_EQ(r.out.find("sk-planted"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("sk-planted"), std::string::npos) << r.err;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string text = slurp(entry.path());
    EXPECT_EQ(text.find("sk-planted"), std::string::npos) << entry.path() << ": " << text.substr(0, 2000);
  }
}

TEST_P(FaultSuite, EveryRequestAccountedOnceAndCategorised) {
  const FaultCase& fc = GetParam();
  TempDir dir(std::string("fault_") + fc.name);
  FaultServer server(fc.fault);
  ASSERT_NE(server.port(), 0);
  constexpr int kSent = 6;
  std::vector<std::string> args = {"--host", "127.0.0.1", "--port", server.port_text(), "--model", "m1",
                                   "--num-prompts", std::to_string(kSent),
                                   "--random-input-len", "4", "--random-output-len", "3", "--concurrency", "2",
                                   "--output-json", "f.json",
                                   // Every request goes into the accounting: no test request before the
                                   // load (it would fail the run at once in the error modes), no early stop.
                                   "--no-preflight-request", "--max-failure-ratio", "1"};
  args.insert(args.end(), fc.extra.begin(), fc.extra.end());
  // `run` has no --api-key flag: the key comes from OPENAI_API_KEY (or api_key in servebench.toml).
  const RunResult r = run_servebench(args, dir.path, {{"OPENAI_API_KEY", kPlantedKey}}, 90);
  ASSERT_EQ(r.code, 0) << r.err;

  const Json stage = Json::parse(slurp(dir.path / "f.json"))["stages"][0];
  const int sent = stage["servebench"]["sent"].get<int>();
  EXPECT_EQ(sent, kSent);
  EXPECT_EQ(stage["completed"].get<int>() + stage["failed"].get<int>(), sent);
  EXPECT_EQ(server.received(), sent) << "the server received a request more (or less) than once";

  const std::string jsonl = slurp(dir.path / "f.requests.jsonl");
  std::istringstream lines(jsonl);
  int count = 0;
  for (std::string line; std::getline(lines, line);) {
    ++count;
    const Json rec = Json::parse(line);
    EXPECT_EQ(rec["outcome"], fc.outcome) << line;
    if (std::string(fc.outcome) == "ok") {
      if (fc.output_tokens >= 0) {
        EXPECT_EQ(rec["output_tokens"], fc.output_tokens) << line;
      }
    } else {
      EXPECT_FALSE(rec["error"].get<std::string>().empty()) << line;
    }
  }
  EXPECT_EQ(count, sent);
  if (std::string(fc.outcome) != "ok") {
    EXPECT_EQ(stage["servebench"]["errors"][fc.outcome]["count"], sent) << stage["servebench"]["errors"].dump();
  }
  expect_no_key_in(dir.path, r);
}

INSTANTIATE_TEST_SUITE_P(Faults, FaultSuite, ::testing::ValuesIn(fault_cases()),
                         [](const ::testing::TestParamInfo<FaultCase>& info) { return std::string(info.param.name); });

// The key echoed in a 401 body is masked in the stored message, not dropped with it.
TEST(FaultSuiteKey, EchoedKeyIsMaskedInTheStoredMessage) {
  TempDir dir("fault_key_mask");
  FaultServer server(Fault::unauthorized_echo);
  const RunResult r = run_servebench({"--port", server.port_text(), "--model", "m1", "--num-prompts", "1",
                                      "--output-json", "k.json", "--no-preflight-request", "--max-failure-ratio", "1"},
                                     dir.path, {{"OPENAI_API_KEY", kPlantedKey}});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string jsonl = slurp(dir.path / "k.requests.jsonl");
  EXPECT_NE(jsonl.find("Incorrect API key provided: sk-***"), std::string::npos) << jsonl;
}

// https:// against this plain-HTTP server: preflight fails at once with a hint, not "timeout".
TEST(FaultSuiteTls, HttpsAgainstAPlainHttpPortSaysSo) {
  TempDir dir("fault_tls");
  FaultServer server(Fault::none);
  const RunResult r = run_servebench({"--base-url", "https://127.0.0.1:" + server.port_text(), "--model", "m1",
                                      "--num-prompts", "1", "--timeout-s", "3"},
                                     dir.path, {}, 60);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("the server did not answer TLS (is it plain HTTP? try http://)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sb::e2e
