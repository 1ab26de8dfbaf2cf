// The sentences report/ makes of the analysis' reasons (analyze/ returns enums and numbers).
#include "report/analysis_text.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace sb::report {
namespace {

analyze::CurveAnalysis curve_of(const std::vector<double>& x, const std::vector<double>& y,
                                const analyze::KneeParams& p = {}) {
  return analyze::analyze_curve({x, y, {}}, p);
}

TEST(AnalysisText, RegionReasons) {
  // Fixed capacity of 8 slots, 55 ms service: flat throughput and doubling latency past 8.
  const std::vector<double> c{1, 2, 4, 8, 16, 32}, x{18.18, 36.36, 72.73, 145.45, 145.45, 145.45},
      e2el{55, 55, 55, 55, 110, 220};
  const auto a = analyze::analyze_curve({c, x, {}, e2el});
  EXPECT_EQ(region_reason_text(a.regions[0]), "lowest stage: room to scale");
  EXPECT_EQ(region_reason_text(a.regions[1]), "throughput still scales with load: elasticity 1.00 from the previous stage");
  EXPECT_EQ(region_reason_text(a.regions[3]),
            "throughput 100% of peak (145.4 of 145.4 req/s), elasticity 1.00 into it: best operating point (highest "
            "throughput before queueing)");
  EXPECT_EQ(region_reason_text(a.regions[5]),
            "throughput flat at 100% of peak (145.4 of 145.4 req/s), elasticity 0.00, while latency grows past the knee "
            "(E2EL 55 -> 220 ms (x4)): queueing, not a better operating point");
  const auto decline = curve_of({1, 2, 4, 8, 16, 32, 64}, {4, 8, 16, 30, 31, 24, 18});
  EXPECT_EQ(region_reason_text(decline.regions[4]), "throughput flat at 100% of peak (31 of 31 req/s), elasticity 0.05: saturated");
  EXPECT_EQ(region_reason_text(decline.regions[5]), "throughput 23% below peak (24 of 31 req/s): overload, avoid");
  // A flat stage says 0.00, never -0.00.
  const auto flat = curve_of({1, 2, 4, 8}, {2, 4, 4, 3.999});
  EXPECT_EQ(region_reason_text(flat.regions[3]).find("-0"), std::string::npos) << region_reason_text(flat.regions[3]);
  const std::vector<double> failed{0, 0, 0, 0.75};
  const auto failing = analyze::analyze_curve({std::vector<double>{1, 2, 4, 8}, std::vector<double>{1, 2, 4, 1}, {}, {}, failed});
  EXPECT_EQ(region_reason_text(failing.regions[3]), "75% of requests failed: overload, not used for the knee");
}

TEST(AnalysisText, KneeReasons) {
  EXPECT_EQ(knee_reason_text(curve_of({}, {})), "no stages");
  EXPECT_EQ(knee_reason_text(curve_of({1, 2}, {0, 0})), "no stage with throughput: no knee can be judged");
  EXPECT_EQ(knee_reason_text(curve_of({1, 2, 4, 8, 16, 32}, {2, 4, 8, 16, 16, 16.2})),
            "throughput reaches the plateau here (plateau 16.2 req/s, within 10%): elasticity 1.00 into it, at most "
            "0.01 after it (saturated below 0.20)");
  EXPECT_EQ(knee_reason_text(curve_of({1, 2, 4, 8, 16, 32}, {2, 4, 8, 16, 24, 24})),
            "capacity ends between 8 and 16 (estimate 12 by extending X ~ load^1.00 from 8 to the plateau 24 req/s): "
            "elasticity 0.58 into 16, at most 0.00 after it (saturated below 0.20)");
  EXPECT_EQ(knee_reason_text(curve_of({1, 2, 4, 8}, {3, 6, 12, 24})),
            "no knee within the tested range: throughput still grows at the highest stage (elasticity 1.00 into it, "
            "saturated below 0.20)");
  analyze::KneeParams rate;
  rate.open_loop = true;
  EXPECT_EQ(knee_reason_text(curve_of({10, 20, 40, 80, std::numeric_limits<double>::infinity()},
                                      {9.71, 18.82, 35.52, 55.13, 57.87}, rate)),
            "capacity ends between 40 and 80 (estimate 57.9 by the achieved plateau 57.87 req/s): elasticity 0.63 into "
            "80 (saturated below 0.20)");
}

analyze::Warning few(int stage, int completed) {
  analyze::Warning w{.kind = analyze::WarningKind::few_samples, .stage = stage};
  w.percentile = 99;
  w.completed = completed;
  w.needed = 100;
  return w;
}

TEST(AnalysisText, WarningLinesFoldConsecutiveStagesWithTheSameText) {
  using analyze::WarningKind;
  const std::vector<analyze::Warning> ws = {
      {.kind = WarningKind::aborted},
      few(0, 48),
      few(1, 48),
      few(2, 48),
      few(3, 47),  // other count
      {.kind = WarningKind::failures, .stage = 4, .failed = 1, .requests = 48},
      few(5, 48),  // not consecutive
  };
  const std::vector<std::string> want = {
      "run was aborted: later stages are missing",
      "stages 0-2: p99 from 48 completed requests (needs >= 100)",
      "stage 3: p99 from 47 completed requests (needs >= 100)",
      "stage 4: 1 of 48 requests failed",
      "stage 5: p99 from 48 completed requests (needs >= 100)",
  };
  EXPECT_EQ(warning_lines(ws), want);
}

TEST(AnalysisText, WarningTexts) {
  using analyze::WarningKind;
  EXPECT_EQ(warning_text({.kind = WarningKind::note, .note = "per-request file x not found"}),
            "per-request file x not found");
  EXPECT_EQ(warning_text({.kind = WarningKind::client_saturated, .stage = 4, .lag_p99_ms = 50}),
            "stage 4: client could not keep the schedule (lag p99 50.0 ms): latencies are understated");
  EXPECT_EQ(warning_text({.kind = WarningKind::failures, .stage = 6, .failed = 40, .requests = 200,
                          .failed_by_category = {{"http_error", 1}, {"timeout", 39}}}),
            "stage 6: 40 of 200 requests failed (1 http_error, 39 timeout)");
  analyze::Warning v{.kind = WarningKind::variance, .stage = 2};
  v.metric = "request_throughput";
  v.cv = 1.0 / 3;
  v.runs = 2;
  EXPECT_EQ(warning_text(v), "stage 2: request_throughput varies 33% (CV) across 2 repeated runs");
  analyze::Warning p999 = few(1, 480);
  p999.percentile = 99.9;
  p999.needed = 1000;
  EXPECT_EQ(warning_text(p999), "stage 1: p99.9 from 480 completed requests (needs >= 1000)");
}

TEST(AnalysisText, CompareGateAndCapacityWords) {
  using Kind = analyze::WorkloadDifference::Kind;
  EXPECT_EQ(difference_text({.kind = Kind::model, .baseline_text = "a", .tuned_text = "b"}),
            "model differs: baseline \"a\", tuned \"b\"");
  EXPECT_EQ(difference_text({.kind = Kind::load_mode, .baseline_text = "concurrency", .tuned_text = "request_rate"}),
            "load modes differ: concurrency vs request_rate");
  EXPECT_EQ(difference_text({.kind = Kind::input_length, .baseline = 512, .tuned = 1024, .loads = {1, 4, 32}}),
            "loads 1, 4, 32: delivered input length differs (512 vs 1024 tokens)");
  EXPECT_EQ(difference_text({.kind = Kind::request_count, .baseline = 200, .tuned = 100, .loads = {4}}),
            "load 4: request count differs (200 vs 100)");
  EXPECT_NE(hint_text(analyze::Hint::throughput_without_queueing).find("chunked prefill"), std::string::npos);
  EXPECT_NE(hint_text(analyze::Hint::scheduling_not_compute).find("more GPUs"), std::string::npos);
  EXPECT_EQ(hint_text(analyze::Hint::decode_bound), "TTFT fine but TPOT higher: decode-bound");
  EXPECT_EQ(violation_text({"rps:-5%", "request_throughput", 32, -0.121, -0.05}),
            "request_throughput at load 32: -12.1% (limit -5.0%)");
  analyze::MetricDelta d;
  d.metric = "ttft_p99";
  EXPECT_EQ(judgement_text(d), "not in both results");
  d.judgement = analyze::Judgement::bootstrap;
  d.confidence = 0.95;
  d.ci = analyze::Interval{-41.25, -12.5};
  EXPECT_EQ(judgement_text(d), "95% bootstrap CI of the ttft_p99 difference: [-41.25, -12.5] ms");
  d.judgement = analyze::Judgement::bootstrap_littles_law;
  EXPECT_EQ(judgement_text(d), "95% bootstrap CI of the mean e2el difference: [-41.25, -12.5] ms (Little's law)");
  analyze::SloAnswer slo;
  slo.goodput_source = analyze::GoodputSource::missing_metrics;
  slo.missing = {"foo_p99_ms", "bar_ms"};
  EXPECT_EQ(goodput_source_text(slo), "SLO metric not in the results: foo_p99_ms, bar_ms");
  slo.goodput_source = analyze::GoodputSource::request_goodput;
  EXPECT_EQ(goodput_source_text(slo), "request_goodput (the run's --goodput SLOs)");
}

}  // namespace
}  // namespace sb::report
