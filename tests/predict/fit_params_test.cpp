#include "predict/fit_params.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sb::predict {
namespace {

// The fittable rows of sim/engine_knobs, in its order, with the bounds calibrate has searched in.
TEST(FitParams, AreTheKnobTablesFittableRows) {
  struct Row {
    std::string name;
    double lower, upper;
    bool tensor_parallel_only;
  };
  const std::vector<Row> want{{"compute_efficiency", 0.02, 1.0, false},
                              {"bandwidth_efficiency", 0.05, 1.0, false},
                              {"step_overhead_us", 1.0, 1e5, false},
                              {"allreduce_latency_us", 0.1, 1e4, true},
                              {"link_efficiency", 0.05, 1.0, true}};
  ASSERT_EQ(fit_params().size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const FitParam& p = fit_params()[i];
    EXPECT_EQ(p.name, want[i].name);
    EXPECT_EQ(p.knob->table, "cost");
    EXPECT_EQ(p.lower, want[i].lower) << p.name;
    EXPECT_EQ(p.upper, want[i].upper) << p.name;
    EXPECT_EQ(p.tensor_parallel_only, want[i].tensor_parallel_only) << p.name;
  }
}

TEST(FitParams, GetAndSetTheCostField) {
  sim::EngineConfig c;
  const FitParam& step = fit_params()[2];
  step.set(c, 1234.5);
  EXPECT_EQ(c.hardware.cost.step_overhead_us, 1234.5);
  EXPECT_EQ(step.get(c), 1234.5);
  EXPECT_EQ(fit_params()[0].get(c), c.hardware.cost.compute_efficiency);
}

}  // namespace
}  // namespace sb::predict
