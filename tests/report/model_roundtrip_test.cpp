// results::from_summaries (the model of a run in memory) holds exactly what the sweep reader reads
// back from the document report/sweep_json writes for the same stages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "report/py_json.hpp"
#include "report/sample_stage.hpp"
#include "report/sweep_json.hpp"
#include "results/from_summaries.hpp"
#include "results/result_reader.hpp"

namespace sb::report {
namespace {

std::vector<StageSummary> roundtrip_stages() {
  StageSummary open = testdata::sample_stage();  // open loop with a concurrency limit
  open.stage_index = 0;
  open.load.request_rate = 4;
  open.schedule_lag = ScheduleLag{0.5, 12.25, 40};
  open.client_saturated = true;
  StageSummary closed = testdata::sample_stage();
  StageSummary unlimited = testdata::sample_stage();  // run order differs from load order
  unlimited.stage_index = 2;
  unlimited.load.max_concurrency = 8;
  unlimited.request_goodput.reset();
  unlimited.errors.clear();
  unlimited.tpot.mean_ms = NAN;  // written as null: absent after reading
  return {open, closed, unlimited};
}

std::vector<std::pair<double, double>> sorted(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void expect_same_stage(const results::Stage& a, const results::Stage& b) {
  EXPECT_EQ(a.stage_index, b.stage_index);
  EXPECT_EQ(a.load_value, b.load_value);
  EXPECT_EQ(a.request_rate, b.request_rate);
  EXPECT_EQ(a.max_concurrency, b.max_concurrency);
  EXPECT_EQ(a.num_prompts, b.num_prompts);
  EXPECT_EQ(a.completed, b.completed);
  EXPECT_EQ(a.failed, b.failed);
  EXPECT_EQ(a.duration_s, b.duration_s);
  EXPECT_EQ(a.request_throughput, b.request_throughput);
  EXPECT_EQ(a.output_throughput, b.output_throughput);
  EXPECT_EQ(a.total_token_throughput, b.total_token_throughput);
  EXPECT_EQ(a.request_goodput, b.request_goodput);
  for (results::Metric m : results::kAllMetrics) {
    SCOPED_TRACE(std::string(results::metric_name(m)));
    ASSERT_EQ(a.stats(m).has_value(), b.stats(m).has_value());
    if (!a.stats(m)) continue;
    EXPECT_EQ(a.stats(m)->mean, b.stats(m)->mean);
    EXPECT_EQ(a.stats(m)->median, b.stats(m)->median);
    EXPECT_EQ(a.stats(m)->std, b.stats(m)->std);
    EXPECT_EQ(sorted(a.stats(m)->percentiles), sorted(b.stats(m)->percentiles));
  }
  EXPECT_EQ(a.client_saturated, b.client_saturated);
  EXPECT_EQ(a.schedule_lag_p99_ms, b.schedule_lag_p99_ms);
  EXPECT_EQ(a.input_len_mean, b.input_len_mean);
  EXPECT_EQ(a.output_len_mean, b.output_len_mean);
  EXPECT_EQ(a.errors, b.errors);
  EXPECT_EQ(a.start_unix_s, b.start_unix_s);
  EXPECT_EQ(a.end_unix_s, b.end_unix_s);
}

TEST(ModelRoundTrip, FromSummariesEqualsTheSweepReadBack) {
  const RunContext ctx = testdata::sample_context();
  const auto stages = roundtrip_stages();
  const std::string text = py_json_dump(sweep_json(ctx, stages, {1'764'470'100, false, std::nullopt}),
                                        {.indent = 2, .nan_as_null = true});
  const results::Run read = results::parse_sweep(text, "/tmp/roundtrip-run.json");
  results::RunInfo info;
  info.source = "/tmp/roundtrip-run.json";
  info.label = ctx.label;
  info.load_mode = ctx.load_mode;
  info.config_json = ctx.config_json;
  const results::Run mem = results::from_summaries(info, stages);
  EXPECT_EQ(mem.source, read.source);
  EXPECT_EQ(mem.format, read.format);
  EXPECT_EQ(mem.label, "roundtrip-run");
  EXPECT_EQ(mem.label, read.label);
  EXPECT_EQ(mem.load_mode, read.load_mode);
  EXPECT_EQ(mem.model, read.model);
  EXPECT_EQ(mem.backend, read.backend);
  EXPECT_EQ(mem.dataset, read.dataset);
  EXPECT_EQ(mem.config_json, read.config_json);
  EXPECT_EQ(mem.aborted, read.aborted);
  ASSERT_EQ(mem.stages.size(), read.stages.size());
  for (std::size_t i = 0; i < mem.stages.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same_stage(mem.stages[i], read.stages[i]);
  }
  EXPECT_FALSE(mem.stages[0].stats(results::Metric::tpot)->mean.has_value());  // concurrency 8 sorts first
}

}  // namespace
}  // namespace sb::report
