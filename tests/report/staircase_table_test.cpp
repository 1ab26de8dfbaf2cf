// Tests for src/report/staircase_table.cpp. Golden: tests/data/report/staircase_table.golden
// (regenerate: SB_UPDATE_GOLDEN=1 ./sb_report_tests, review the diff).
#include "report/staircase_table.hpp"

#include <gtest/gtest.h>

#include "report/golden.hpp"
#include "report/sample_stage.hpp"

namespace sb::report {
namespace {

std::vector<StageSummary> table_concurrency_stages() {
  StageSummary a = testdata::sample_stage();
  a.load.max_concurrency = 4;
  a.failed = 0;
  a.request_throughput = 2.5;
  StageSummary b = testdata::sample_stage();  // 16, 2 failed
  return {a, b};
}

TEST(StaircaseTable, ConcurrencyGolden) {
  const std::string text = format_staircase_table(LoadMode::concurrency, table_concurrency_stages());
  EXPECT_EQ(text, testdata::golden("staircase_table.golden", text));
}

TEST(StaircaseTable, ColumnsAreAligned) {
  const std::string text = format_staircase_table(LoadMode::concurrency, table_concurrency_stages());
  // Header: "concurrency" is the widest cell of column 1; numbers right-aligned under it.
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "concurrency  req/s  out tok/s  total tok/s  TTFT p50 ms  TTFT p99 ms  TPOT p50 ms  ITL p99 ms  failed");
  EXPECT_NE(text.find("\n          4   2.50     1003.5       5017.6        80.00       320.00        12.00       46.00       0\n"),
            std::string::npos);
}

TEST(StaircaseTable, RateMode) {
  StageSummary a = testdata::sample_stage();
  a.load.max_concurrency.reset();
  a.load.request_rate = 0.5;
  StageSummary b = testdata::sample_stage();
  b.load.max_concurrency.reset();  // rate inf
  const std::string text = format_staircase_table(LoadMode::request_rate, {a, b});
  EXPECT_EQ(text.rfind("rate (req/s)", 0), 0u);
  EXPECT_NE(text.find("\n         0.5  "), std::string::npos);
  EXPECT_NE(text.find("\n         inf  "), std::string::npos);
}

}  // namespace
}  // namespace sb::report

namespace sb::report {
namespace {

TEST(StaircaseTable, AbortedStageIsMarked) {
  std::vector<StageSummary> stages = table_concurrency_stages();
  stages[1].aborted = true;
  const std::string text = format_staircase_table(LoadMode::concurrency, stages);
  const std::size_t second_row = text.find('\n', text.find('\n') + 1) + 1;
  EXPECT_EQ(text.find("  (aborted)\n"), text.find('\n', second_row) - 11) << text;
  EXPECT_EQ(text.find("(aborted)", text.find("(aborted)") + 1), std::string::npos);
}

}  // namespace
}  // namespace sb::report
