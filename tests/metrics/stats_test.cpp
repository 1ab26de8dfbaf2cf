// Tests for src/metrics/stats.cpp: numpy-compatible statistics, bit for bit.
#include "metrics/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace sb {
namespace {

// Same expression as sample() in tests/data/metrics/numpy_reference.py.
std::vector<double> make_sample(int n) {
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) xs.push_back((i * 7919 % 1009) / 1000.0 + 1.0 / (i + 3));
  return xs;
}

struct NumpyCase {
  int n;
  double sum, naive_sum, mean, std, median;
  std::vector<double> percentiles;  // at kPercentiles
};

const double kPercentiles[] = {0.0, 33.3, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0};

// Regenerate: /usr/bin/python3 tests/data/metrics/numpy_reference.py (numpy 1.24.2).
const NumpyCase kNumpyCases[] = {
    {1, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.0, 0.3333333333333333, {0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333}},
    {2, 1.4393333333333331, 1.4393333333333331, 0.7196666666666666, 0.38633333333333325, 0.7196666666666666, {0.3333333333333333, 0.5906313333333333, 0.7196666666666666, 1.0287333333333333, 1.0673666666666666, 1.0982733333333332, 1.1052273333333333, 1.1059999999999999}},
    {5, 3.5988571428571428, 3.5988571428571428, 0.7197714285714285, 0.26998459584847584, 0.7166666666666667, {0.3333333333333333, 0.5985579047619047, 0.7166666666666667, 1.0248, 1.0654, 1.09788, 1.105188, 1.1059999999999999}},
    {7, 4.169968253968253, 4.169968253968253, 0.5957097505668933, 0.3041926339174323, 0.5398571428571428, {0.2021111111111111, 0.3689286666666666, 0.5398571428571428, 0.9842000000000001, 1.0450999999999997, 1.0938199999999998, 1.104782, 1.1059999999999999}},
    {8, 5.216968253968254, 5.216968253968253, 0.6521210317460318, 0.32131315289499823, 0.6282619047619047, {0.2021111111111111, 0.4255537142857142, 0.6282619047619047, 1.0647, 1.0853499999999998, 1.10187, 1.1055869999999999, 1.1059999999999999}},
    {9, 6.101877344877345, 6.1018773448773445, 0.6779863716530383, 0.3116455030245735, 0.7166666666666667, {0.2021111111111111, 0.4824491428571428, 0.7166666666666667, 1.0588, 1.0823999999999998, 1.1012799999999998, 1.1055279999999998, 1.1059999999999999}},
    {16, 9.869108078196312, 9.869108078196312, 0.6168192548872695, 0.30759907746219883, 0.6407948717948717, {0.0915, 0.4062414285714286, 0.6407948717948717, 0.9954117647058823, 1.06175, 1.0971499999999998, 1.1051149999999998, 1.1059999999999999}},
    {100, 54.566082429307265, 54.56608242930726, 0.5456608242930726, 0.29580706170630894, 0.5476593406593406, {0.033195121951219514, 0.36892583870967743, 0.5476593406593406, 0.9478157894736843, 1.0072383631713555, 1.0475900000000002, 1.1001590000000006, 1.1059999999999999}},
    {128, 69.03759133826597, 69.03759133826597, 0.5393561823302029, 0.29493572600408263, 0.5436904761904762, {0.025695652173913043, 0.3674066559139785, 0.5436904761904762, 0.943928764166217, 0.9861397271268058, 1.0431599999999999, 1.098507000000001, 1.1059999999999999}},
    {129, 69.64122492605225, 69.64122492605223, 0.5398544567911027, 0.2938444205985224, 0.5475238095238095, {0.025695652173913043, 0.36815501075268814, 0.5475238095238095, 0.9438936859147329, 0.9856086677367576, 1.0430177777777776, 1.0984480000000008, 1.1059999999999999}},
    {1000, 510.66546786554136, 510.66546786554164, 0.5106654678655413, 0.29175316886062047, 0.5109454995372792, {0.004036659877800407, 0.3420925384764489, 0.5109454995372792, 0.913859126728424, 0.9635838192414713, 1.0051954236916314, 1.0470590000000053, 1.1059999999999999}},
    {20000, 10089.759828209728, 10089.759828209739, 0.5044879914104864, 0.2912970635350958, 0.5044157205718314, {5.2153958485449043e-05, 0.33606800417764254, 0.5044157205718314, 0.908079470255307, 0.9582151154687132, 0.9990636366072034, 1.0080720258093514, 1.1059999999999999}},
};

TEST(Stats, MatchesNumpyBitForBit) {
  for (const NumpyCase& c : kNumpyCases) {
    SCOPED_TRACE(c.n);
    std::vector<double> xs = make_sample(c.n);
    EXPECT_EQ(pairwise_sum(xs), c.sum);
    EXPECT_EQ(np_mean(xs), c.mean);
    EXPECT_EQ(np_std(xs), c.std);
    std::sort(xs.begin(), xs.end());
    EXPECT_EQ(np_median_sorted(xs), c.median);
    for (std::size_t i = 0; i < std::size(kPercentiles); ++i)
      EXPECT_EQ(np_percentile_sorted(xs, kPercentiles[i]), c.percentiles[i]) << kPercentiles[i];
  }
}

// metric_stats_ms puts only the order statistics it reads in place: the same numbers, bit for bit,
// as from a full sort, on samples with many equal values (ITLs of events from one read) and without.
TEST(Stats, MetricStatsFromSelectedRanksEqualsFromASort) {
  const std::vector<double> ps = {0.0, 1.0, 25.0, 33.3, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0};
  for (const int n : {1, 2, 3, 4, 5, 7, 8, 9, 16, 100, 101, 1000, 20000}) {
    for (const int distinct : {1, 3, 1 << 30}) {
      std::vector<double> xs = make_sample(n);
      for (int i = 0; i < n; ++i) xs[i] = (i * 7919 % 1009) % distinct == 0 ? 0.0 : xs[i];
      std::vector<double> sorted = xs;
      std::sort(sorted.begin(), sorted.end());
      std::vector<double> work = xs;
      const MetricStats got = metric_stats_ms(work, ps);
      SCOPED_TRACE(testing::Message() << "n " << n << ", distinct " << distinct);
      EXPECT_EQ(got.count, static_cast<std::size_t>(n));
      EXPECT_EQ(got.mean_ms, np_mean(xs) * 1000);
      EXPECT_EQ(got.std_ms, np_std(xs) * 1000);
      EXPECT_EQ(got.median_ms, np_median_sorted(sorted) * 1000);
      ASSERT_EQ(got.percentiles_ms.size(), ps.size());
      for (std::size_t i = 0; i < ps.size(); ++i) {
        EXPECT_EQ(got.percentiles_ms[i].first, ps[i]);
        EXPECT_EQ(got.percentiles_ms[i].second, np_percentile_sorted(sorted, ps[i]) * 1000) << ps[i];
      }
      std::sort(work.begin(), work.end());
      EXPECT_EQ(work, sorted);  // reordered, nothing lost or changed
    }
  }
}

// A stage's pooled ITLs are not listed but replayed from the token times as nanoseconds; their
// statistics must be those of the seconds vLLM would list, to the last bit, across numpy's
// 8,192-value reduction chunks too.
TEST(Stats, NanosecondSamplesGiveTheStatisticsOfTheirSeconds) {
  const std::vector<double> ps = {0.0, 1.0, 33.3, 50.0, 90.0, 99.0, 99.9, 100.0};
  for (const int n : {0, 1, 2, 3, 8, 9, 100, 8191, 8192, 8193, 20000}) {
    for (const std::uint32_t range : {0xffffffffu, 50'000u}) {  // every radix bucket, or all in the first
      std::vector<std::uint32_t> ns;
      for (int i = 0; i < n; ++i) {
        const std::uint64_t v = static_cast<std::uint64_t>(i) * 2654435761u % 4294967296u % (std::uint64_t{range} + 1);
        ns.push_back(i % 5 == 0 ? 20'000u : static_cast<std::uint32_t>(v));  // ties; values up to 4.29 s
      }
      std::vector<double> seconds;
      for (const std::uint32_t x : ns) seconds.push_back(ns_to_s(static_cast<Nanos>(x)));
      int replays = 0;
      const NsReplay replay = [&](const std::function<void(std::span<const std::uint32_t>)>& sink) {
        ++replays;
        std::size_t i = 0;
        for (std::size_t k = 0; i < ns.size(); ++k) {  // runs of any length, as a caller gives them
          const std::size_t len = std::min<std::size_t>(1 + k * 389 % 1500, ns.size() - i);
          sink(std::span<const std::uint32_t>(ns).subspan(i, len));
          i += len;
        }
      };
      const MetricStats got = metric_stats_ms(ns.size(), replay, ps);
      const MetricStats want = metric_stats_ms(seconds, ps);
      SCOPED_TRACE(testing::Message() << "n " << n << ", range " << range);
      EXPECT_EQ(got.count, want.count);
      EXPECT_EQ(got.mean_ms, want.mean_ms);
      EXPECT_EQ(got.std_ms, want.std_ms);
      EXPECT_EQ(got.median_ms, want.median_ms);
      EXPECT_EQ(got.percentiles_ms, want.percentiles_ms);
      if (n > 1) {
        EXPECT_GT(got.std_ms, 0);
      }
      EXPECT_EQ(replays, n == 0 ? 0 : 4);  // mean, std, two radix passes: never a list
    }
  }
}

TEST(Stats, PairwiseSumIsNotSequential) {
  // The reference shows numpy differs from a left-to-right loop for these sizes; guards against a
  // "simplified" sum that would drift from vLLM's numbers in the last digits.
  int differing = 0;
  for (const NumpyCase& c : kNumpyCases) {
    if (c.sum == c.naive_sum) continue;
    ++differing;
    double naive = 0;
    for (double x : make_sample(c.n)) naive += x;
    EXPECT_EQ(naive, c.naive_sum);
    EXPECT_NE(pairwise_sum(make_sample(c.n)), naive) << c.n;
  }
  EXPECT_GE(differing, 4);
}

TEST(Stats, HandComputedSmallCases) {
  const std::vector<double> xs{1, 2, 3, 4};
  EXPECT_EQ(np_mean(xs), 2.5);
  // deviations -1.5 -0.5 0.5 1.5 -> squares sum 5 -> var 1.25
  EXPECT_DOUBLE_EQ(np_std(xs), std::sqrt(1.25));
  EXPECT_EQ(np_median_sorted(xs), 2.5);
  // h = 3 * 0.99 = 2.97 -> 3 + 0.97 * (4 - 3), computed from the upper end: 4 - 1 * 0.03
  EXPECT_DOUBLE_EQ(np_percentile_sorted(xs, 99), 3.97);
  EXPECT_EQ(np_percentile_sorted(xs, 50), 2.5);
  EXPECT_EQ(np_percentile_sorted(xs, 0), 1);
  EXPECT_EQ(np_percentile_sorted(xs, 100), 4);
  const std::vector<double> odd{5, 1, 3};  // unsorted on purpose for metric_stats_ms
  std::vector<double> copy = odd;
  const double ps[] = {25, 50};
  MetricStats s = metric_stats_ms(copy, ps);
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.mean_ms, 3000);
  EXPECT_DOUBLE_EQ(s.median_ms, 3000);
  EXPECT_DOUBLE_EQ(s.std_ms, std::sqrt(8.0 / 3) * 1000);  // squares 4 + 4 + 0 over 3
  ASSERT_EQ(s.percentiles_ms.size(), 2u);
  EXPECT_DOUBLE_EQ(s.percentiles_ms[0].second, 2000);  // h = 0.5 between 1 and 3
  EXPECT_DOUBLE_EQ(s.percentile_ms(50), 3000);
  EXPECT_EQ(s.percentile_ms(99), 0);  // not computed
}

TEST(Stats, EmptyInputIsAllZero) {
  std::vector<double> none;
  const double ps[] = {50, 99};
  MetricStats s = metric_stats_ms(none, ps);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.mean_ms, 0);
  EXPECT_EQ(s.std_ms, 0);
  EXPECT_EQ(s.median_ms, 0);
  EXPECT_EQ(s.percentile_ms(99), 0);
  LengthStats l = length_stats(none);
  EXPECT_EQ(l.mean, 0);
  EXPECT_EQ(l.p99, 0);
}

TEST(Stats, LengthStats) {
  std::vector<double> lens{10, 30, 20, 40, 50};
  LengthStats l = length_stats(lens);
  EXPECT_EQ(l.mean, 30);
  EXPECT_EQ(l.p50, 30);
  EXPECT_DOUBLE_EQ(l.p99, 49.6);  // h = 3.96 -> 40 + 0.96 * 10
}

}  // namespace
}  // namespace sb
