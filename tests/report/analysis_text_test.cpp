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
  const double inf = std::numeric_limits<double>::infinity();
  analyze::KneeParams rate;
  rate.min_share_of_linear = 0.8;
  const auto a = curve_of({10, 20, 40, 80, inf}, {9.71, 18.82, 35.52, 55.13, 57.87}, rate);
  EXPECT_EQ(region_reason_text(a.regions[0]), "gains 100% of linear: room to scale");
  EXPECT_EQ(region_reason_text(a.regions[1]), "gains 94% of linear: room to scale");  // 9.11 / 9.71
  EXPECT_EQ(region_reason_text(a.regions[2]), "knee: last stage with near-linear gain");
  EXPECT_EQ(region_reason_text(a.regions[3]), "throughput 95% of peak, gains 50% of linear: best operating zone");
  EXPECT_EQ(region_reason_text(a.regions[4]), "throughput 100% of peak, past the knee: best operating zone");
  const auto decline = curve_of({1, 2, 4, 8, 16, 32, 64}, {4, 8, 16, 30, 31, 24, 18});
  EXPECT_EQ(region_reason_text(decline.regions[5]), "throughput 23% below peak: overload, avoid");
  // A flat stage says 0 %, never -0 %.
  const auto flat = curve_of({1, 2, 4}, {2, 4, 3.999});
  EXPECT_EQ(region_reason_text(flat.regions[2]).find("-0%"), std::string::npos) << region_reason_text(flat.regions[2]);
}

TEST(AnalysisText, KneeReasons) {
  EXPECT_EQ(knee_reason_text(curve_of({}, {})), "no stages");
  EXPECT_EQ(knee_reason_text(curve_of({1, 2}, {0, 0})), "no stage with throughput: no knee can be judged");
  EXPECT_EQ(knee_reason_text(curve_of({1, 2, 4, 8, 16, 32}, {2, 4, 8, 16, 32, 33})),
            "every later stage gains less than 50% of the linear slope (2 req/s per unit of load)");
  EXPECT_EQ(knee_reason_text(curve_of({1, 2, 4, 8}, {3, 6, 12, 24})),
            "no knee within the tested range: throughput still gains at least 50% of linear at the highest stage");
  analyze::KneeParams rate;
  rate.min_share_of_linear = 0.8;
  EXPECT_EQ(knee_reason_text(curve_of({10, 20, 40, 80, std::numeric_limits<double>::infinity()},
                                      {9.71, 18.82, 35.52, 55.13, 57.87}, rate)),
            "the next stages achieve less than 80% of the linear extrapolation (overloaded), later ones gain less "
            "than 50% of its slope (0.971 req/s per unit of load)");
}

}  // namespace
}  // namespace sb::report
