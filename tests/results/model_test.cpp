// The results model's name lookup (user-typed names of --slo, --fail-if, compare --metrics).
#include "results/model.hpp"

#include <gtest/gtest.h>

namespace sb::results {
namespace {

Stage named_stage() {
  Stage s;
  s.request_throughput = 7.5;
  s.output_throughput = 900;
  s.total_token_throughput = 4000;
  MetricStats ttft;
  ttft.mean = 90;
  ttft.median = 80;
  ttft.std = 20;
  ttft.percentiles = {{90, 150}, {99, 300}, {99.9, 420}};
  s.stats(Metric::ttft) = ttft;
  s.stats(Metric::client_queue_time) = MetricStats{.median = 5, .percentiles = {{50, 6}}};
  return s;
}

TEST(MetricByName, KeysAliasesAndMedianFallback) {
  const Stage s = named_stage();
  EXPECT_EQ(metric_by_name(s, "request_throughput"), 7.5);
  EXPECT_EQ(metric_by_name(s, "total_token_throughput"), 4000);
  EXPECT_FALSE(metric_by_name(s, "request_goodput").has_value());
  EXPECT_EQ(metric_by_name(s, "p99_ttft_ms"), 300);
  EXPECT_EQ(metric_by_name(s, "ttft_p99"), 300);
  EXPECT_EQ(metric_by_name(s, "ttft_p99_ms"), 300);
  EXPECT_EQ(metric_by_name(s, "ttft_p99.9"), 420);
  EXPECT_EQ(metric_by_name(s, "mean_ttft_ms"), 90);
  EXPECT_EQ(metric_by_name(s, "ttft_std"), 20);
  EXPECT_EQ(metric_by_name(s, "ttft_median"), 80);
  EXPECT_EQ(metric_by_name(s, "ttft_p50"), 80);              // no p50 recorded: the median
  EXPECT_EQ(metric_by_name(s, "client_queue_time_p50"), 6);  // a recorded p50 wins
  EXPECT_FALSE(metric_by_name(s, "ttft_p95").has_value());
  EXPECT_FALSE(metric_by_name(s, "tpot_p50").has_value());
  EXPECT_FALSE(metric_by_name(s, "nonsense").has_value());
  EXPECT_FALSE(metric_by_name(s, "ttft").has_value());
  EXPECT_FALSE(metric_by_name(s, "pfoo_ttft_ms").has_value());
}

TEST(MetricByName, MetricNamesRoundTrip) {
  for (Metric m : kAllMetrics) EXPECT_EQ(metric_from_name(metric_name(m)), m);
  EXPECT_FALSE(metric_from_name("latency").has_value());
}

TEST(SortStages, RequestsFollowTheirStage) {
  results::Run run;
  run.stages.resize(2);
  run.stages[0].stage_index = 0;
  run.stages[0].load_value = 8;
  run.stages[1].stage_index = 1;
  run.stages[1].load_value = 2;
  run.requests = {{.stage = 0}, {.stage = 1}, {.stage = 5}};
  sort_stages(run);
  EXPECT_EQ(run.stages[0].load_value, 2);
  ASSERT_EQ(run.requests.size(), 2u);
  EXPECT_EQ(run.requests[0].stage, 1);
  EXPECT_EQ(run.requests[1].stage, 0);
}

}  // namespace
}  // namespace sb::results
