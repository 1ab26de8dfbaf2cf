// pipeline::validate(RunConfig): the layers' problems nested under their member, and the run's own.
#include "pipeline/run_config.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "pipeline/run_pipeline.hpp"

namespace sb::pipeline {
namespace {

std::vector<std::string> config_fields(const Problems& problems) {
  std::vector<std::string> out;
  for (const Problem& p : problems) out.push_back(p.field);
  return out;
}

TEST(RunConfigValidate, DefaultsAreValid) { EXPECT_TRUE(validate(RunConfig{}).empty()); }

TEST(RunConfigValidate, LayerProblemsAreNestedUnderTheirMember) {
  RunConfig c;
  c.dataset.num_prompts = 0;
  c.load.ramp = {RampKind::linear, 5, 1};
  c.load.request_rates = {2};
  c.max_failure_ratio = 1.5;
  c.metric_percentiles = {50, 101};
  EXPECT_EQ(config_fields(validate(c)),
            (std::vector<std::string>{"dataset.num_prompts", "load.request_rates", "load.ramp.end_rps",
                                      "metric_percentiles", "max_failure_ratio"}));
  EXPECT_EQ(describe_problems(validate(c)),
            "dataset.num_prompts: must be > 0, got 0\n"
            "load.request_rates: cannot be combined with load.ramp.kind (leave it at inf)\n"
            "load.ramp.end_rps: must be finite and >= load.ramp.start_rps (5), got 1\n"
            "metric_percentiles: 101 is above 100\n"
            "max_failure_ratio: must be in [0, 1]");
}

TEST(RunConfigValidate, ThePathMustMatchTheBackendsApi) {
  RunConfig c;
  c.client.path = "/v1/chat/completions";  // the completions API by default
  c.client.timeout_s = 0;
  EXPECT_EQ(describe_problems(validate(c)),
            "client.timeout_s: must be > 0, got 0\n"
            "client.path: '/v1/chat/completions' does not end in 'completions' as backend openai needs");
  c = RunConfig{};
  c.client.api = Api::chat;
  c.client.path = "/v1/chat/completions";
  EXPECT_TRUE(validate(c).empty());
}

TEST(RunConfigValidate, RunRefusesAnInvalidConfigBeforeContactingTheServer) {
  RunConfig c;
  c.client.endpoint.host = "127.0.0.1";
  c.client.endpoint.port = 1;  // nothing listens: a preflight would fail with `unreachable`
  c.load.burstiness = 0;
  try {
    run(c, RunIo{stdout, stderr, false}, {});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.code(), ExitCode::config_error);
    EXPECT_STREQ(e.what(), "load.burstiness: must be > 0 or inf, got 0");
  }
}

// Through the library (demo, tune, embedders) nothing passes cli/header_arg's check: a CR or LF in
// a header or the key would start another header line in every request. One line each, no value.
TEST(RunConfigValidate, LineBreaksInHeadersOrTheKeyAreRefusedWithoutShowingThem) {
  RunConfig c;
  c.api_key = "sk-LIBRARYkey\r\nX-Injected: 1";
  c.client.headers = {{"X-Ok", "fine"}, {"X-Trace", std::string("a\nb", 3)}, {"Bad\r\nName", "v"},
                      {"X-Nul", std::string("a\0b", 3)}};
  const std::string text = describe_problems(validate(c));
  EXPECT_EQ(text,
            "client.headers: header 2 ('X-Trace'): the value holds a line break or NUL (the value is not shown)\n"
            "client.headers: header 3: its name holds a line break or NUL (not shown)\n"
            "client.headers: header 4 ('X-Nul'): the value holds a line break or NUL (the value is not shown)\n"
            "api_key: holds a line break or NUL (the key is not shown)");
  EXPECT_EQ(text.find("LIBRARYkey"), std::string::npos);
}

}  // namespace
}  // namespace sb::pipeline
