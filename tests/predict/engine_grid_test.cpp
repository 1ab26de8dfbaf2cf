#include "predict/engine_grid.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::predict {
namespace {

TEST(EngineGrid, EveryCombinationFirstAxisSlowest) {
  const std::vector<GridAxis> axes{parse_grid_axis("max_num_seqs=64,128"),
                                   parse_grid_axis("step_overhead_us=500,1000,2000")};
  const std::vector<GridPoint> points = grid_points(axes);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0], (GridPoint{{"max_num_seqs", 64}, {"step_overhead_us", 500}}));
  EXPECT_EQ(points[2], (GridPoint{{"max_num_seqs", 64}, {"step_overhead_us", 2000}}));
  EXPECT_EQ(points[3], (GridPoint{{"max_num_seqs", 128}, {"step_overhead_us", 500}}));
  const sim::EngineConfig c = apply_grid_point(sim::EngineConfig{}, points[5]);
  EXPECT_EQ(c.scheduler.max_num_seqs, 128);
  EXPECT_DOUBLE_EQ(c.hardware.cost.step_overhead_us, 2000);
  EXPECT_EQ(c.scheduler.max_num_batched_tokens, sim::EngineConfig{}.scheduler.max_num_batched_tokens);
}

TEST(EngineGrid, NoAxesIsOneBasePoint) { EXPECT_EQ(grid_points({}).size(), 1u); }

TEST(EngineGrid, BadAxesNameTheProblem) {
  const auto message = [](const std::string& text) {
    try {
      parse_grid_axis(text);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("max_num_seqs").find("expected KEY=V1,V2"), std::string::npos);
  EXPECT_NE(message("max_seqs=4").find("unknown key 'max_seqs'"), std::string::npos);
  EXPECT_NE(message("max_num_seqs=4,x").find("'x' is not a positive integer"), std::string::npos);
  EXPECT_NE(message("max_num_seqs=2.5").find("'2.5' is not a positive integer"), std::string::npos);
  EXPECT_NE(message("compute_efficiency=0.4,,0.5").find("'' is not a positive number"), std::string::npos);
  EXPECT_EQ(parse_grid_axis("compute_efficiency=0.4,0.55").values, (std::vector<double>{0.4, 0.55}));
}

}  // namespace
}  // namespace sb::predict
