#include "predict/measured_run.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::predict {
namespace {

constexpr const char* kLines =
    R"({"stage": 1, "index": 1, "outcome": "ok", "intended_ms": 50.0, "sent_ms": 50.5, "prompt_tokens": 100, "output_tokens": 8})" "\n"
    R"({"stage": 0, "index": 0, "outcome": "ok", "intended_ms": 0.0, "sent_ms": 0.0, "prompt_tokens": 90, "output_tokens": 7})" "\n"
    "\n"
    R"({"stage": 1, "index": 0, "outcome": "ok", "intended_ms": 0.0, "sent_ms": 0.25, "prompt_tokens": 110, "output_tokens": 9})" "\n"
    R"({"stage": 1, "index": 2, "outcome": "timeout", "intended_ms": 80.0, "prompt_tokens": 1, "output_tokens": 0})" "\n";

results::Stage stage(int index, double load, std::optional<int> concurrency) {
  results::Stage s;
  s.stage_index = index;
  s.load_value = load;
  s.max_concurrency = concurrency;
  s.output_throughput = 100 + index;
  s.stats(results::Metric::ttft) = results::MetricStats{.median = 20.0 + index};
  s.stats(results::Metric::tpot) = results::MetricStats{.median = 5.0 + index};
  return s;
}

TEST(MeasuredRun, StagesReplayTheirSuccessfulRequestsInSendOrder) {
  const std::vector<MeasuredRequest> reqs = parse_measured_requests(kLines, "r.jsonl");
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_FALSE(reqs[3].ok);
  results::Run run;
  run.stages = {stage(0, 2, 2), stage(1, 20, std::nullopt)};
  const std::vector<MeasuredStage> stages = measured_stages(run, reqs);
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].replay.max_concurrency, 2);
  ASSERT_EQ(stages[1].replay.requests.size(), 2u);  // the timeout is not replayed
  EXPECT_EQ(stages[1].replay.requests[0].prompt_tokens, 110);
  EXPECT_EQ(stages[1].replay.requests[0].intended_ns, 250'000);  // as sent
  EXPECT_EQ(stages[1].replay.requests[1].intended_ns, 50'500'000);
  EXPECT_EQ(stages[1].replay.requests[1].max_tokens, 8);
  EXPECT_TRUE(stages[1].replay.requests[1].ignore_eos);
  EXPECT_DOUBLE_EQ(stages[1].measured.output_throughput, 101);
  EXPECT_DOUBLE_EQ(stages[1].measured.ttft_p50_ms, 21);
  EXPECT_DOUBLE_EQ(stages[1].measured.tpot_p50_ms, 6);
}

TEST(MeasuredRun, BadLinesNameFileAndLine) {
  try {
    parse_measured_requests("{\"stage\": 0, \"index\": 0, \"outcome\": \"ok\"}\n", "r.jsonl");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "r.jsonl:1: 'intended_ms' missing or not a number");
  }
  EXPECT_THROW(parse_measured_requests("{\"stage\": 0}\nnot json\n", "r.jsonl"), UserError);
}

TEST(MeasuredRun, SweepRequestsFile) {
  EXPECT_EQ(sweep_requests_file(R"({"requests_file": "s.requests.jsonl"})"), "s.requests.jsonl");
  EXPECT_EQ(sweep_requests_file(R"({"requests_file": null})"), std::nullopt);
  EXPECT_EQ(sweep_requests_file("nope"), std::nullopt);
}

}  // namespace
}  // namespace sb::predict
