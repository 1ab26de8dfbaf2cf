// The vLLM summary block must match vLLM's layout byte for byte (vllm-bench-spec §7).
#include "cli/run_console.hpp"

#include <gtest/gtest.h>

namespace sb::cli {
namespace {

MetricStats stats(double mean, double median, double p99) {
  MetricStats m;
  m.mean_ms = mean;
  m.median_ms = median;
  m.percentiles_ms = {{50, median}, {90, p99}, {95, p99}, {99, p99}};
  return m;
}

StageSummary sample() {
  StageSummary s;
  s.num_prompts = s.sent = 10;
  s.completed = 9;
  s.failed = 1;
  s.load.max_concurrency = 4;
  s.duration_s = 2.5;
  s.total_input_tokens = 900;
  s.total_output_tokens = 1152;
  s.request_throughput = 3.6;
  s.output_throughput = 460.8;
  s.total_token_throughput = 820.8;
  s.max_output_tokens_per_s = 512;
  s.max_concurrent_requests = 4;
  s.ttft = stats(21.5, 20.25, 30.125);
  s.tpot = stats(5.004, 5, 5.5);
  s.itl = stats(5, 5, 6);
  s.client_queue_time = stats(100, 90, 200);
  ErrorCategory e;
  e.count = 1;
  e.sample = "Service Unavailable";
  e.http_statuses = {{503, 1}};
  s.errors["http_error"] = e;
  return s;
}

TEST(RunConsole, VllmSummaryBlockLayout) {
  RunContext ctx;
  const std::string expected =
      "============ Serving Benchmark Result ============\n"
      "Successful requests:                     9         \n"
      "Failed requests:                         1         \n"
      "Maximum request concurrency:             4         \n"
      "Benchmark duration (s):                  2.50      \n"
      "Total input tokens:                      900       \n"
      "Total generated tokens:                  1152      \n"
      "Request throughput (req/s):              3.60      \n"
      "Output token throughput (tok/s):         460.80    \n"
      "Peak output token throughput (tok/s):    512.00    \n"
      "Peak concurrent requests:                4.00      \n"
      "Total token throughput (tok/s):          820.80    \n"
      "---------------Time to First Token----------------\n"
      "Mean TTFT (ms):                          21.50     \n"
      "Median TTFT (ms):                        20.25     \n"
      "P99 TTFT (ms):                           30.12     \n"
      "-----Time per Output Token (excl. 1st token)------\n"
      "Mean TPOT (ms):                          5.00      \n"
      "Median TPOT (ms):                        5.00      \n"
      "P99 TPOT (ms):                           5.50      \n"
      "---------------Inter-token Latency----------------\n"
      "Mean ITL (ms):                           5.00      \n"
      "Median ITL (ms):                         5.00      \n"
      "P99 ITL (ms):                            6.00      \n"
      "---------------Client-side Queueing---------------\n"
      "Mean Client Queue Time (ms):             100.00    \n"
      "Median Client Queue Time (ms):           90.00     \n"
      "P99 Client Queue Time (ms):              200.00    \n"
      "==================================================\n";
  EXPECT_EQ(stage_summary_text(ctx, sample()), expected);
}

TEST(RunConsole, StageHeaderAsVllmPrintsIt) {
  StageLoad closed;
  closed.max_concurrency = 16;
  EXPECT_EQ(stage_header_text(closed),
            "Traffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: 16\n");
  StageLoad open;
  open.request_rate = 8;
  open.burstiness = 0.5;
  EXPECT_EQ(stage_header_text(open),
            "Traffic request rate: 8.0\nBurstiness factor: 0.5 (Gamma distribution)\nMaximum request concurrency: None\n");
}

TEST(RunConsole, FailureNoteListsCategoriesWithSamples) {
  const std::string note = failure_note_text(sample());
  EXPECT_NE(note.find("9 of 10 sent requests completed"), std::string::npos) << note;
  EXPECT_NE(note.find("http_error"), std::string::npos);
  EXPECT_NE(note.find("1x503"), std::string::npos) << note;
  EXPECT_NE(note.find("e.g. Service Unavailable"), std::string::npos);
  StageSummary clean;
  clean.num_prompts = clean.sent = clean.completed = 3;
  EXPECT_EQ(failure_note_text(clean), "");
}

TEST(RunConsole, StaircaseTableOneRowPerStage) {
  RunContext ctx;
  ctx.load_mode = LoadMode::concurrency;
  ctx.load_values = {1, 4};
  StageSummary a = sample(), b = sample();
  b.stage_index = 1;
  b.aborted = true;
  const std::string t = staircase_table_text(ctx, {a, b});
  EXPECT_EQ(t.substr(0, 11), "concurrency");
  EXPECT_NE(t.find("\n          1      3.60       460.8       820.8      20.25      30.12       5.00       6.00       1\n"),
            std::string::npos) << t;
  EXPECT_NE(t.find("(aborted)"), std::string::npos);
}

}  // namespace
}  // namespace sb::cli
