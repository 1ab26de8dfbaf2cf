#include "report/html_view.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "analyze/fixtures.hpp"

namespace sb::analyze {
namespace {

TEST(HtmlView, RunViewCarriesCurvesKneeAndRegions) {
  std::vector<results::Run> runs{test::read_fixture("knee_c16.json"), test::read_fixture("noisy.json")};
  const auto d = report::html_document(runs, analyze_runs(runs, {}));
  ASSERT_EQ(d.runs.size(), 2u);
  EXPECT_TRUE(d.log_x);  // 1..128
  EXPECT_EQ(d.x_label, "concurrency");
  const auto& r = d.runs[0];
  EXPECT_EQ(r.x.size(), 8u);
  EXPECT_EQ(r.knee, std::optional<std::size_t>(4));
  EXPECT_EQ(r.regions[5], "saturated");
  EXPECT_DOUBLE_EQ(r.metrics.at("request_throughput")[4], 32.0);
  EXPECT_DOUBLE_EQ(r.metrics.at("ttft_p99")[5], 200.0);
  EXPECT_EQ(r.table_rows.size(), 8u);
  EXPECT_EQ(r.table_rows[4][0], "16");
  EXPECT_NE(r.config_json.find("<redacted>"), std::string::npos);
}

// A rate sweep 2, 4, 8, inf: the inf stage is drawn one doubling past the highest rate (16) and
// keeps its place in the table; concurrency sweeps have no stand-in.
TEST(HtmlView, UnlimitedRateStageIsDrawnPastTheHighestRate) {
  results::Run run;
  run.label = "rates";
  run.load_mode = LoadMode::request_rate;
  const double rates[] = {2, 4, 8, INFINITY}, achieved[] = {2, 4, 7.5, 7.8};
  for (int i = 0; i < 4; ++i) {
    results::Stage s;
    s.stage_index = i;
    s.load_value = s.request_rate = rates[i];
    s.request_throughput = achieved[i];
    s.completed = 50;
    s.stats(results::Metric::ttft) = results::MetricStats{.percentiles = {{99.0, 100.0 + 10 * i}}};
    run.stages.push_back(s);
  }
  std::vector<results::Run> runs{run};
  const auto d = report::html_document(runs, analyze_runs(runs, {}));
  ASSERT_TRUE(d.unlimited_x.has_value());
  EXPECT_DOUBLE_EQ(*d.unlimited_x, 16.0);
  const auto& v = d.runs[0];
  EXPECT_EQ(v.x, (std::vector<double>{2, 4, 8, 16}));
  EXPECT_DOUBLE_EQ(v.metrics.at("request_throughput")[3], 7.8);
  EXPECT_DOUBLE_EQ(v.metrics.at("ttft_p99")[3], 130.0);
  EXPECT_EQ(v.regions.size(), 4u);
  EXPECT_EQ(v.table_rows[3][0], "inf");
  EXPECT_EQ(d.x_label, "request rate (req/s)");

  std::vector<results::Run> conc{test::read_fixture("knee_c16.json")};
  EXPECT_FALSE(report::html_document(conc, analyze_runs(conc, {})).unlimited_x.has_value());
}

// Every series a chart overlays is a key the view fills for every run (a typo would draw nothing).
TEST(HtmlView, EveryChartedKeyIsFilled) {
  std::vector<results::Run> runs{test::read_fixture("knee_c16.json")};
  const auto d = report::html_document(runs, analyze_runs(runs, {}));
  ASSERT_EQ(d.charts.size(), 5u);
  EXPECT_EQ(d.x_short, "c=");
  for (const auto& c : d.charts) {
    EXPECT_NE(c.y_label.find("(" + c.unit + ")"), std::string::npos) << c.id;  // units in the axis label
    for (const auto& [key, name] : c.series) {
      ASSERT_TRUE(d.runs[0].metrics.count(key)) << c.id << " " << key;
      EXPECT_EQ(d.runs[0].metrics.at(key).size(), d.runs[0].x.size()) << key;
    }
  }
}

results::Run with_metadata(const std::string& metadata_json) {
  results::Run run = test::read_fixture("knee_c16.json");
  run.label = "demo";
  run.config_json = R"({"model": "m", "metadata": )" + metadata_json + "}";
  return run;
}

std::string note_of(const results::Run& run) {
  std::vector<results::Run> runs{run};
  return report::html_document(runs, analyze_runs(runs, {})).runs[0].scale_note;
}

// The demo records sim_time_scale (and the GPU) in its metadata; the page must say latencies are scaled.
TEST(HtmlView, ScaledTimeNoteFromTheRunsMetadata) {
  EXPECT_EQ(note_of(with_metadata(R"({"sim_time_scale": "10", "sim_gpu": "h100"})")),
            "demo: simulated GPU, 10x faster than the modelled H100: latencies here are 10x shorter and rates 10x "
            "higher than that GPU's (multiply latencies by 10 for its figures).");
  EXPECT_NE(note_of(with_metadata(R"({"sim_time_scale": 2.5})")).find("2.5x faster than the modelled GPU"),
            std::string::npos);
  EXPECT_NE(note_of(with_metadata(R"({"sim_time_scale": "0.5"})")).find("2x slower"), std::string::npos);
  EXPECT_EQ(note_of(with_metadata(R"({"sim_time_scale": "1"})")), "");     // real time: nothing to say
  EXPECT_EQ(note_of(with_metadata(R"({"sim_time_scale": "10x"})")), "");   // not a number: no guess
  EXPECT_EQ(note_of(with_metadata(R"({"other": "10"})")), "");
  EXPECT_EQ(note_of(test::read_fixture("knee_c16.json")), "");
}

// Sweeps of this version carry what the simulator advertised and what the run applied: the page
// says which clock its figures are on, whatever the metadata says.
TEST(HtmlView, ScaledTimeNoteFromTheEnvironment) {
  results::Run run = with_metadata(R"({"other": "1"})");
  run.server_time_scale = 20;
  run.time_factor = 20;
  EXPECT_EQ(note_of(run).rfind("demo: simulated GPU, 20x faster than real time: latencies and rates are the modelled "
                               "GPU's (wall clock x 20;", 0), 0u) << note_of(run);
  run.time_factor = 1;
  EXPECT_NE(note_of(run).find("--wall-clock-times: latencies are 20x shorter and rates 20x higher"), std::string::npos)
      << note_of(run);
}

// Deliverables 6 and 7 of issue 10: a stage whose outputs fell short is warned by its load, and
// open-loop stages carry TTFT p99 from the intended send time as a chart series.
TEST(HtmlView, OutputShortfallWarningsAndIntendedTimeSeries) {
  results::Run run;
  run.label = "rates";
  run.load_mode = LoadMode::request_rate;
  for (int i = 0; i < 2; ++i) {
    results::Stage s;
    s.stage_index = i;
    s.load_value = s.request_rate = 8.0 * (i + 1);
    s.request_throughput = 8.0 * (i + 1);
    s.ttft_from_intended_p99_ms = 40.0 + i;
    OutputCheck c;
    c.requested_tokens = 640;
    c.delivered_tokens = i == 0 ? 640 : 230;
    c.shortfall = 1 - c.delivered_tokens / 640.0;
    c.short_of_requested = i == 1;
    c.short_requests = i == 1 ? 10 : 0;
    c.finish_reasons = {{"length", 10}};
    s.output_check = c;
    run.stages.push_back(s);
  }
  const std::vector<results::Run> runs{run};
  const auto d = report::html_document(runs, analyze_runs(runs, {}));
  const auto& v = d.runs[0];
  EXPECT_DOUBLE_EQ(v.metrics.at("ttft_intended_p99")[1], 41.0);
  int shortfall_lines = 0;
  for (const std::string& w : v.warnings) {
    if (w.find("short of the requested length") == std::string::npos) continue;
    ++shortfall_lines;
    EXPECT_NE(w.find("rate 16: outputs fell 64.1% short"), std::string::npos) << w;
    EXPECT_NE(w.find("finish reasons: length 10"), std::string::npos) << w;
  }
  EXPECT_EQ(shortfall_lines, 1);  // the stage that delivered in full says nothing
}

TEST(HtmlView, CompareDocumentHasTableAndNotes) {
  std::vector<results::Run> runs{test::read_fixture("tuned.json"), test::read_fixture("baseline.json")};
  const auto as = analyze_runs(runs, {});
  const auto c = compare_runs({runs[0], runs[1], as[0].curve, as[1].curve, {"ttft_p99"}, {}});
  report::GateResult g{{parse_gate_rule("ttft_p99:+10%")}, {}};
  g.violations = evaluate_gate(g.rules, c);
  const auto d = report::html_compare_document(runs, as, c, g);
  ASSERT_TRUE(d.comparison.has_value());
  // Metrics by load: one row for ttft_p99, one column per matched load (3).
  ASSERT_EQ(d.comparison->rows.size(), 1u);
  ASSERT_EQ(d.comparison->header.size(), 4u);
  EXPECT_EQ(d.comparison->header[1].substr(0, 2), "c=");
  EXPECT_EQ(d.comparison->rows[0][0], "ttft_p99");
  for (std::size_t i = 0; i < c.stages.size(); ++i) {
    const auto& m = c.stages[i].deltas[0];
    const std::string cell = d.comparison->rows[0][i + 1];
    EXPECT_NE(cell.find(" \u2192 "), std::string::npos) << cell;
    EXPECT_NE(cell.find(fmt::format(" ({:+.0f}%)", std::round(100 * m.rel_change) + 0.0)), std::string::npos) << cell;
    EXPECT_EQ(cell.find("-0%"), std::string::npos) << cell;
    EXPECT_EQ(cell.ends_with(" *"), m.significance == Significance::significant) << cell;
  }
  EXPECT_NE(d.comparison->caption.find("* = significant"), std::string::npos);
  ASSERT_EQ(d.notes.size(), 4u);  // knee shift, then one violation per stage
  EXPECT_EQ(d.notes[0], "knee: none in range -> none in range; peak req/s: 10.92 -> 9.63");
}

}  // namespace
}  // namespace sb::analyze
