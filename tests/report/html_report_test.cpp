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
  d.comparison = Table{{"metric", "baseline"}, {{"ttft_p99", "3200"}}, "how to read"};
  d.notes = {"hint: x"};
  const std::string html = render(d);
  EXPECT_NE(html.find("<td>ttft_p99</td><td>3200</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>why</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>2</td><td>2.00</td><td>b</td>"), std::string::npos);
  EXPECT_NE(html.find("<li>hint: x</li>"), std::string::npos);
  EXPECT_NE(html.find("<caption>how to read</caption>"), std::string::npos);
}

// The knee sentence heads the chart set once per run (label first), and is not repeated in the
// run's section; the scaled-time note comes before the charts too.
TEST(HtmlReport, OneKneeSentencePerRunAboveTheCharts) {
  Document d = sample();
  d.runs[0].knee_text = "knee at concurrency 2 (2.00 req/s)";
  d.runs[0].scale_note = "demo: simulated GPU, 10x faster";
  RunView second = d.runs[0];
  second.label = "tuned";
  second.knee_text = "knee at concurrency 4 (3.00 req/s)";
  // The same note for both runs (two runs of the demo) is said once.
  d.runs.push_back(second);
  const std::string html = render(d);
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("class=\"knee-sentence\""), 2u);
  EXPECT_EQ(count("knee at concurrency 2 (2.00 req/s)"), 2u);  // the sentence and the JSON's knee_text
  EXPECT_EQ(count("knee at concurrency 4 (3.00 req/s)"), 2u);
  EXPECT_NE(html.find("tuned: knee at concurrency 4 (3.00 req/s)</p>"), std::string::npos);
  EXPECT_EQ(count("class=\"scale-note\""), 1u);
  const std::size_t head = html.find("class=\"chart-set-head\""), charts = html.find("id=\"charts\"");
  ASSERT_NE(head, std::string::npos);
  EXPECT_LT(html.find("class=\"scale-note\""), charts);
  EXPECT_GT(html.find("class=\"scale-note\""), head);
  EXPECT_LT(html.rfind("class=\"knee-sentence\""), charts);
}

TEST(HtmlReport, ChartSpecsReachThePage) {
  Document d = sample();
  d.charts = {{"ttft", "TTFT", "time to first token (ms)", "ms", {{"ttft_p50", "p50"}, {"ttft_p99", "p99"}}}};
  const std::string html = render(d);
  EXPECT_NE(html.find(R"("charts":[{"id":"ttft","series":[{"key":"ttft_p50","name":"p50"},{"key":"ttft_p99","name":"p99"}],)"
                      R"x("title":"TTFT","unit":"ms","y_label":"time to first token (ms)"}])x"),
            std::string::npos);
  EXPECT_NE(html.find("name=\"viewport\""), std::string::npos);  // phones get the page at their width
}

TEST(HtmlReport, EscapeFunction) { EXPECT_EQ(escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;"); }

}  // namespace
}  // namespace sb::report
