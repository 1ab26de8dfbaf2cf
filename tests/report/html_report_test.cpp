#include "report/html_report.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace sb::report {
namespace {

Document sample() {
  Document d;
  d.title = "t";
  d.table_header = {"load", "req/s"};
  RunView r;
  r.label = "run </script><b>";
  r.x = {1, 2, 4};
  r.metrics["request_throughput"] = {1, 2, NAN};
  r.knee = 1;
  r.regions = {"linear", "linear", "plateau"};
  r.region_reasons = {"a", "b", "c"};
  r.table_rows = {{"1", "1.00"}, {"2", "2.00"}, {"4", "-"}};
  r.config_json = R"({"headers": {"Authorization": "<redacted>"}})";
  d.runs.push_back(r);
  return d;
}

TEST(HtmlReport, SelfContainedWithDataAndLibrary) {
  const std::string html = render(sample());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("uPlot"), std::string::npos);             // the embedded library
  EXPECT_NE(html.find("id=\"sb-data\""), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);        // nothing fetched from the network
  EXPECT_NE(html.find("\"request_throughput\":[1.0,2.0,null]"), std::string::npos);
  EXPECT_NE(html.find("\"knee\":1"), std::string::npos);
  EXPECT_NE(html.find("\"unlimited_x\":null"), std::string::npos);
}

TEST(HtmlReport, UnlimitedRatePositionReachesThePage) {
  Document d = sample();
  d.unlimited_x = 8;
  EXPECT_NE(render(d).find("\"unlimited_x\":8.0"), std::string::npos);
}

TEST(HtmlReport, EscapesLabelsEverywhere) {
  const std::string html = render(sample());
  EXPECT_EQ(html.find("run </script>"), std::string::npos);  // neither in text nor in the JSON
  EXPECT_NE(html.find("run &lt;/script&gt;&lt;b&gt;"), std::string::npos);
  EXPECT_NE(html.find("run \\u003c/script>\\u003cb>"), std::string::npos);
  EXPECT_NE(html.find("&lt;redacted&gt;"), std::string::npos);
}

TEST(HtmlReport, TablesAndComparison) {
  Document d = sample();
  d.comparison = Table{{"metric", "baseline"}, {{"ttft_p99", "3200"}}};
  d.notes = {"hint: x"};
  const std::string html = render(d);
  EXPECT_NE(html.find("<td>ttft_p99</td><td>3200</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>why</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>2</td><td>2.00</td><td>b</td>"), std::string::npos);
  EXPECT_NE(html.find("<li>hint: x</li>"), std::string::npos);
}

TEST(HtmlReport, EscapeFunction) { EXPECT_EQ(escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;"); }

}  // namespace
}  // namespace sb::report
