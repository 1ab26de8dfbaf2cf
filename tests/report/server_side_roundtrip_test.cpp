// The server-side objects of a stage (TTFT split, prompt cache) survive the sweep document: what
// report/server_side_json writes, results/server_side_keys reads back as from_summaries holds it,
// and the HTML view shows the split column and the mostly-cached warning.
#include <gtest/gtest.h>

#include "analyze/analysis.hpp"
#include "report/html_view.hpp"
#include "report/py_json.hpp"
#include "report/sample_stage.hpp"
#include "report/sweep_json.hpp"
#include "results/from_summaries.hpp"
#include "results/result_reader.hpp"

namespace sb::report {
namespace {

std::vector<StageSummary> server_side_stages() {
  StageSummary timed = testdata::sample_stage();
  timed.stage_index = 0;
  timed.load.max_concurrency = 1;
  TtftBreakdown b;
  b.requests = 98;
  b.covered = 1;
  b.client_ttft_mean_ms = 50.75;
  b.server_prefill_mean_ms = 50.25;
  b.rest_mean_ms = 0.5;
  b.rest_median_ms = 0.375;
  timed.ttft_breakdown = b;
  timed.prompt_cache = PromptCacheShare{.requests = 98, .prompt_tokens = 50176, .cached_tokens = 40000,
                                        .hit_share = 40000.0 / 50176, .mostly_cached = true};
  StageSummary plain = testdata::sample_stage();  // a server that reported nothing
  plain.stage_index = 1;
  plain.load.max_concurrency = 2;
  return {timed, plain};
}

results::Run read_back(const std::vector<StageSummary>& stages) {
  const RunContext ctx = testdata::sample_context();
  const std::string text = py_json_dump(sweep_json(ctx, stages, {1'764'470'100, false, std::nullopt}),
                                        {.indent = 2, .nan_as_null = true});
  return results::parse_sweep(text, "/tmp/server-side-run.json");
}

TEST(ServerSideRoundTrip, SweepReadBackEqualsTheSummaries) {
  const auto stages = server_side_stages();
  const results::Run read = read_back(stages);
  ASSERT_EQ(read.stages.size(), 2u);
  const results::Stage& s = read.stages[0];
  ASSERT_TRUE(s.ttft_breakdown);
  EXPECT_EQ(s.ttft_breakdown->source, TtftSource::per_request);
  EXPECT_EQ(s.ttft_breakdown->requests, 98);
  EXPECT_EQ(s.ttft_breakdown->client_ttft_mean_ms, 50.75);
  EXPECT_EQ(s.ttft_breakdown->server_prefill_mean_ms, 50.25);
  EXPECT_FALSE(s.ttft_breakdown->server_queue_mean_ms);
  EXPECT_EQ(s.ttft_breakdown->rest_mean_ms, 0.5);
  EXPECT_EQ(s.ttft_breakdown->rest_median_ms, 0.375);
  ASSERT_TRUE(s.prompt_cache);
  EXPECT_EQ(s.prompt_cache->cached_tokens, 40000);
  EXPECT_EQ(s.prompt_cache->prompt_tokens, 50176);
  EXPECT_DOUBLE_EQ(s.prompt_cache->hit_share, 40000.0 / 50176);
  EXPECT_TRUE(s.prompt_cache->mostly_cached);
  EXPECT_FALSE(read.stages[1].ttft_breakdown);
  EXPECT_FALSE(read.stages[1].prompt_cache);
}

TEST(ServerSideRoundTrip, HtmlShowsTheSplitColumnAndWarnsOfACachedStage) {
  const std::vector<results::Run> runs{read_back(server_side_stages())};
  const Document d = html_document(runs, analyze::analyze_runs(runs, {}));
  ASSERT_FALSE(d.table_header.empty());
  EXPECT_EQ(d.table_header.back(), "TTFT server prefill + rest (mean ms)");
  const auto& rows = d.runs[0].table_rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].back(), "50.25 + 0.50");
  EXPECT_EQ(rows[1].back(), "-");
  int cached = 0;
  for (const std::string& w : d.runs[0].warnings)
    if (w.starts_with("WARNING: c=1: this stage was mostly served from the server's prompt cache")) ++cached;
  EXPECT_EQ(cached, 1);
}

TEST(ServerSideRoundTrip, NoServerTimingsNoColumn) {
  std::vector<StageSummary> stages = server_side_stages();
  stages.erase(stages.begin());
  const std::vector<results::Run> runs{read_back(stages)};
  const Document d = html_document(runs, analyze::analyze_runs(runs, {}));
  EXPECT_EQ(d.table_header.back(), "region");
}

}  // namespace
}  // namespace sb::report
