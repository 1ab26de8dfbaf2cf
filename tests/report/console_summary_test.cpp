// Tests for src/report/console_summary.cpp. console_vllm.golden is written by vLLM's own print
// statements (tests/data/report/make_console_golden.py); console_extras.golden is ours
// (regenerate: SB_UPDATE_GOLDEN=1 ./sb_report_tests, review the diff).
#include "report/console_summary.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "report/golden.hpp"
#include "report/sample_stage.hpp"

namespace sb::report {
namespace {

ConsoleOptions sample_options() {
  ConsoleOptions opt;
  opt.percentile_metrics = {"ttft", "tpot", "itl", "e2el"};
  opt.metric_percentiles = {99.9, 99};
  opt.goodput = true;
  return opt;
}

// vLLM's block less its "Client-side Queueing" section: in a closed-loop stage that is the wait for
// a free slot since t0, which reads as a latency, so servebench leaves it out of the console (the
// JSON keeps vLLM's keys; docs/results-format.md).
std::string without_client_queue(std::string text) {
  const std::size_t begin = text.find("---------------Client-side Queueing");
  const std::size_t end = text.find("=====", begin);
  if (begin != std::string::npos && end != std::string::npos) text.erase(begin, end - begin);
  return text;
}

TEST(ConsoleSummary, VllmBlockMatchesPythonOutput) {
  const std::string golden = testdata::read_file(testdata::golden_path("console_vllm.golden"));
  ASSERT_NE(golden.find("Client-side Queueing"), std::string::npos);  // vLLM prints it at c=16
  EXPECT_EQ(format_vllm_console(testdata::sample_stage(), sample_options()), without_client_queue(golden));
}

TEST(ConsoleSummary, ClientQueueOnlyInOpenLoopAndIntendedLatencyBeside) {
  StageSummary closed = testdata::sample_stage();  // c=16, rate inf
  EXPECT_EQ(format_console_summary(closed, sample_options()).find("Client Queue"), std::string::npos);
  EXPECT_EQ(format_console_extras(closed).find("intended send time"), std::string::npos);

  StageSummary open = testdata::sample_stage();
  open.load.request_rate = 4;  // with --max-concurrency 16 still set: vLLM's queue sections stay
  MetricStats from_intended;
  from_intended.mean_ms = 123.25;
  from_intended.median_ms = 100.5;
  from_intended.percentiles_ms = {{50, 100.5}, {99, 456.75}};
  open.ttft_from_intended = from_intended;
  open.e2el_from_intended = from_intended;
  const std::string text = format_console_summary(open, sample_options());
  EXPECT_NE(text.find("Mean Client Queue Time (ms):"), std::string::npos);
  EXPECT_NE(text.find("Latency from the intended send time"), std::string::npos);
  EXPECT_NE(text.find("  TTFT  mean 123.25 ms, median 100.50 ms, P99 456.75 ms\n"), std::string::npos) << text;
}

TEST(ConsoleSummary, OutputShortfallAndTextlessStreamsAreWarnedWithCounts) {
  StageSummary s = testdata::sample_stage();
  s.output_check.requested_tokens = 640;
  s.output_check.delivered_tokens = 230;
  s.output_check.shortfall = 1 - 230.0 / 640.0;
  s.output_check.short_of_requested = true;
  s.output_check.short_requests = 10;
  s.output_check.finish_reasons = {{"length", 10}};
  s.output_check.without_text = 3;
  s.tpot.count = 0;
  const std::string text = format_console_extras(s);
  EXPECT_NE(text.find("WARNING: outputs fell 64.1% short of the requested length (230 of 640 tokens; 10 requests "
                      "short; finish reasons: length 10)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("--max-model-len"), std::string::npos);
  EXPECT_NE(text.find("WARNING: 3 successful requests streamed no token text (TPOT from 0 requests"),
            std::string::npos)
      << text;
  s.output_check = {};
  EXPECT_EQ(format_console_extras(s).find("WARNING"), std::string::npos);
}

TEST(ConsoleSummary, OpenLoopRowsAndSections) {
  StageSummary s = testdata::sample_stage();
  s.load.max_concurrency.reset();
  s.load.request_rate = 4;
  ConsoleOptions opt;  // defaults: ttft,tpot,itl and P99; no goodput
  const std::string text = format_vllm_console(s, opt);
  EXPECT_NE(text.find("Request rate configured (RPS):           4.00      \n"), std::string::npos);
  EXPECT_EQ(text.find("Maximum request concurrency"), std::string::npos);
  EXPECT_EQ(text.find("goodput"), std::string::npos);
  EXPECT_EQ(text.find("End-to-end Latency"), std::string::npos);
  EXPECT_EQ(text.find("Client-side Queueing"), std::string::npos);
  EXPECT_NE(text.find("P99 ITL (ms):                            46.00     \n"), std::string::npos);
  s.load.max_concurrency = 8;  // finite rate + limit: both queue sections
  const std::string limited = format_vllm_console(s, opt);
  EXPECT_NE(limited.find("\n--------Queue-inclusive End-to-end Latency--------\n"), std::string::npos);
  EXPECT_NE(limited.find("Mean E2EL incl. Client Queue (ms):       3125.00   \n"), std::string::npos);
}

TEST(ConsoleSummary, NoTokenizerDropsTokenRows) {
  ConsoleOptions opt = sample_options();
  opt.has_tokenizer = false;
  const std::string text = format_vllm_console(testdata::sample_stage(), opt);
  EXPECT_EQ(text.find("Total generated tokens"), std::string::npos);
  EXPECT_EQ(text.find("TTFT"), std::string::npos);
  EXPECT_NE(text.find("Mean E2EL (ms)"), std::string::npos);
}

TEST(ConsoleSummary, ExtrasGolden) {
  StageSummary s = testdata::sample_stage();
  s.load.request_rate = 4;
  s.schedule_lag = ScheduleLag{0.5, 12.25, 40};
  s.client_saturated = true;
  s.errors["timeout"] = {1, "read idle for 300 s", {}};
  s.completed = 97;
  const std::string text = format_console_extras(s);
  EXPECT_EQ(text, testdata::golden("console_extras.golden", text));
  EXPECT_NE(text.find("  http_error: 2 [HTTP 503 x2] e.g. Service Unavailable\n"), std::string::npos);
}

TEST(ConsoleSummary, NoExtrasWhenClean) {
  StageSummary s = testdata::sample_stage();
  s.errors.clear();
  s.completed = s.sent;
  EXPECT_EQ(format_console_extras(s), "");
}

}  // namespace
}  // namespace sb::report

namespace sb::report {
namespace {

TEST(ConsoleSummary, FailedRequestsCappedAtTen) {
  std::vector<RequestRecord> records(14);
  for (std::size_t i = 0; i < records.size(); ++i) {
    records[i].outcome = i == 0 ? Outcome::ok : Outcome::timeout;
    records[i].error = fmt::format("e{}", i);
  }
  records[0].token_ns = {5};
  const std::string text = format_failed_requests(records);
  EXPECT_EQ(text.rfind("Failed requests during benchmark run detected (capping to 10):\nError 0: e1\n", 0), 0u);
  EXPECT_NE(text.find("Error 9: e10\n"), std::string::npos);
  EXPECT_EQ(text.find("e11"), std::string::npos);
  records.resize(1);
  EXPECT_EQ(format_failed_requests(records), "");
}

}  // namespace
}  // namespace sb::report

namespace sb::report {
namespace {

TEST(ConsoleSummary, StageHeaderAsVllmPrintsIt) {
  StageLoad closed;
  closed.max_concurrency = 16;
  EXPECT_EQ(format_stage_header(closed),
            "Traffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: 16\n");
  StageLoad open;
  open.request_rate = 8;
  open.burstiness = 0.5;
  EXPECT_EQ(format_stage_header(open),
            "Traffic request rate: 8.0\nBurstiness factor: 0.5 (Gamma distribution)\nMaximum request concurrency: None\n");
}

TEST(ConsoleSummary, RampHeaderReplacesTheRateLine) {
  StageLoad load;
  const RampHeader ramp{"linear", 1, 20};
  EXPECT_EQ(format_stage_header(load, &ramp),
            "Traffic ramp-up strategy: linear.\n"
            "Will increase RPS from 1 to 20 RPS over the duration of the benchmark.\n"
            "Burstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: None\n");
}

TEST(ConsoleSummary, ExtrasSayHowManyPlannedRequestsWereNotSent) {
  StageSummary s = testdata::sample_stage();
  s.errors.clear();
  s.sent = s.completed = 60;  // Ctrl-C after 60 of 100
  EXPECT_EQ(format_console_extras(s), "Sent 60 of 100 planned requests (the rest were cancelled unsent)\n");
}

}  // namespace
}  // namespace sb::report
