// Known answers for tune's best configuration and its Pareto view, on runs built in memory.
#include "analyze/pareto.hpp"
#include "analyze/tune_rank.hpp"

#include <gtest/gtest.h>

namespace sb::analyze {
namespace {

struct TuneStageSpec {
  double load, out_tok_s, tpot_mean_ms, ttft_p99_ms;
};

results::Run tune_run(const std::vector<TuneStageSpec>& specs) {
  results::Run r;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    results::Stage s;
    s.stage_index = static_cast<int>(i);
    s.load_value = specs[i].load;
    s.completed = 10;
    s.output_throughput = specs[i].out_tok_s;
    s.request_throughput = specs[i].out_tok_s / 100;
    s.stats(results::Metric::tpot) = results::MetricStats{.mean = specs[i].tpot_mean_ms};
    s.stats(results::Metric::ttft) = results::MetricStats{.percentiles = {{99, specs[i].ttft_p99_ms}}};
    r.stages.push_back(s);
  }
  return r;
}

const std::vector<Slo> kTtftSlo{{"ttft_p99_ms", 1000}};

// c=16 of the third configuration has the most throughput but misses the SLO; the second's c=16 wins.
TEST(RankConfigs, HighestThroughputStageMeetingTheSlos) {
  const auto a = tune_run({{1, 100, 10, 50}, {4, 350, 11, 120}, {16, 500, 30, 900}});
  const auto b = tune_run({{1, 100, 10, 50}, {4, 380, 10.5, 110}, {16, 700, 20, 400}});
  const auto c = tune_run({{1, 100, 10, 60}, {4, 370, 12, 150}, {16, 800, 25, 1500}});
  const TuneRanking r = rank_configs({{&a, &b, &c, nullptr}, {}, kTtftSlo});
  ASSERT_EQ(r.best, 1u);
  EXPECT_EQ(r.runner_up, 0u);
  EXPECT_EQ(r.reason, BestReason::highest_throughput);
  ASSERT_EQ(r.standings.size(), 4u);
  EXPECT_EQ(r.standings[1].stage, 2u);
  EXPECT_DOUBLE_EQ(r.standings[1].output_throughput, 700);
  EXPECT_EQ(r.standings[2].stage, 1u);  // c=16 misses the SLO: c=4 is its best
  EXPECT_DOUBLE_EQ(r.standings[2].output_throughput, 370);
  EXPECT_FALSE(r.standings[3].ran);
  // Without SLOs every stage counts: the third configuration's c=16 is the best.
  EXPECT_EQ(rank_configs({{&a, &b, &c}, {}, {}}).best, 2u);
}

TEST(RankConfigs, TiesGoToFewerGpusThenLowerTtft) {
  const auto a = tune_run({{8, 1000, 10, 300}});
  const auto b = tune_run({{8, 995, 10, 200}});  // within 1 % of a
  const TuneRanking ttft = rank_configs({{&a, &b}, {1, 1}, kTtftSlo});
  EXPECT_EQ(ttft.best, 1u);
  EXPECT_EQ(ttft.reason, BestReason::tie_lower_ttft);
  const TuneRanking gpus = rank_configs({{&a, &b}, {1, 2}, kTtftSlo});
  EXPECT_EQ(gpus.best, 0u);
  EXPECT_EQ(gpus.reason, BestReason::tie_fewer_gpus);
  const TuneRanking same = rank_configs({{&a, &a}, {1, 1}, kTtftSlo});
  EXPECT_EQ(same.best, 0u);
  EXPECT_EQ(same.reason, BestReason::tie_first_listed);
  // 2 % apart is no tie.
  const auto c = tune_run({{8, 980, 10, 100}});
  EXPECT_EQ(rank_configs({{&a, &c}, {2, 1}, kTtftSlo}).reason, BestReason::highest_throughput);
}

TEST(RankConfigs, NoneMeetsNoneRanAndMissingMetrics) {
  const auto a = tune_run({{1, 100, 10, 5000}});
  EXPECT_EQ(rank_configs({{&a}, {}, kTtftSlo}).reason, BestReason::none_meets);
  EXPECT_EQ(rank_configs({{nullptr, nullptr}, {}, kTtftSlo}).reason, BestReason::none_ran);
  const TuneRanking missing = rank_configs({{&a}, {}, {{"tpot_p99_ms", 50}}});
  EXPECT_EQ(missing.reason, BestReason::none_meets);
  EXPECT_EQ(missing.standings[0].missing, std::vector<std::string>{"tpot_p99_ms"});
  const auto b = tune_run({{1, 100, 10, 50}});
  const TuneRanking one = rank_configs({{&a, &b}, {}, kTtftSlo});
  EXPECT_EQ(one.best, 1u);
  EXPECT_EQ(one.reason, BestReason::only_one_meets);
}

// x = 1000 / mean TPOT, y = output tok/s / GPUs; hand-checked dominance (tests/data/tune/README.md).
TEST(Pareto, MarksDominatedPointsAndWhoDominatesThem) {
  const auto a = tune_run({{1, 100, 10, 50}, {4, 350, 11, 120}, {16, 500, 30, 900}});
  const auto b = tune_run({{1, 100, 10, 50}, {4, 380, 10.5, 110}, {16, 700, 20, 400}});
  const auto c = tune_run({{1, 100, 10, 60}, {4, 370, 12, 150}, {16, 800, 25, 1500}});
  const auto pts = pareto_points({&a, &b, nullptr, &c}, {1, 1, 1, 1});
  ASSERT_EQ(pts.size(), 9u);
  EXPECT_DOUBLE_EQ(pts[1].tok_s_per_user, 1000 / 11.0);
  EXPECT_DOUBLE_EQ(pts[1].tok_s_per_gpu, 350);
  std::vector<bool> dominated;
  for (const auto& p : pts) dominated.push_back(p.dominated);
  // a c=4, a c=16, c's c=4 are dominated (by b's c=4, b's c=16, b's c=4); equal c=1 points are not.
  EXPECT_EQ(dominated, (std::vector<bool>{false, true, true, false, false, false, false, true, false}));
  EXPECT_EQ(pts[1].dominated_by, 4u);
  EXPECT_EQ(pts[2].dominated_by, 5u);
  EXPECT_EQ(pts[7].dominated_by, 4u);
  EXPECT_EQ(pts[6].config, 3u);  // the null run adds no point, the indices stay the caller's
  // Per GPU: a run on 2 GPUs halves its y, and b's c=16 (350 per GPU) no longer dominates a's c=16.
  const auto per_gpu = pareto_points({&a, &b}, {1, 2});
  EXPECT_DOUBLE_EQ(per_gpu[5].tok_s_per_gpu, 350);
  EXPECT_FALSE(per_gpu[2].dominated);
}

TEST(Pareto, SkipsStagesWithoutTpotOrCompletions) {
  auto a = tune_run({{1, 100, 10, 50}, {4, 350, 11, 120}});
  a.stages[0].stats(results::Metric::tpot).reset();
  a.stages[1].completed = 0;
  EXPECT_TRUE(pareto_points({&a}, {1}).empty());
}

}  // namespace
}  // namespace sb::analyze
