#include "report/analysis_console.hpp"

#include <gtest/gtest.h>

#include "analyze/fixtures.hpp"

namespace sb::analyze {
namespace {

TEST(Console, TextChartScalesToLargestValue) {
  const std::string out = report::text_chart("rps", {"1", "2"}, {5, 10}, 1, 4);
  EXPECT_EQ(out,
            "rps\n"
            "       1 |##  | 5.0\n"
            "       2 |####| 10.0  <- knee\n");
}

TEST(Console, ReportShowsTableKneeRegionsAndCharts) {
  const auto run = test::read_fixture("knee_c16.json");
  const std::string out = report::console_report(run, analyze_run(run, {}));
  EXPECT_NE(out.find("knee: concurrency = 16 (32.00 req/s)"), std::string::npos) << out;
  EXPECT_NE(out.find("TTFT rises steeply from concurrency = 32"), std::string::npos);
  EXPECT_NE(out.find("requests/s\n"), std::string::npos);
  EXPECT_NE(out.find("TTFT p99 (ms)\n"), std::string::npos);
  EXPECT_NE(out.find("output tokens/s\n"), std::string::npos);
  // The stage-table row of concurrency 16 carries the region and the marker.
  const auto row = out.find("\n      16 ");
  ASSERT_NE(row, std::string::npos);
  const std::string line = out.substr(row + 1, out.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find("knee  <- knee"), std::string::npos) << line;
}

}  // namespace
}  // namespace sb::analyze
