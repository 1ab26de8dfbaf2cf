#include "load/ramp.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "load/schedule.hpp"

namespace sb {
namespace {

TEST(Ramp, LinearAndExponentialRatesHitBothEnds) {
  const RampUp lin{RampKind::linear, 2, 10};
  EXPECT_DOUBLE_EQ(ramp_rate(lin, 0, 5), 2);
  EXPECT_DOUBLE_EQ(ramp_rate(lin, 2, 5), 6);  // progress 2/4
  EXPECT_DOUBLE_EQ(ramp_rate(lin, 4, 5), 10);
  const RampUp exp{RampKind::exponential, 1, 16};
  EXPECT_DOUBLE_EQ(ramp_rate(exp, 0, 5), 1);
  EXPECT_DOUBLE_EQ(ramp_rate(exp, 1, 5), 2);  // 16^(1/4)
  EXPECT_DOUBLE_EQ(ramp_rate(exp, 4, 5), 16);
  EXPECT_DOUBLE_EQ(ramp_rate(lin, 0, 1), 2);  // a single request: progress 0
}

TEST(Ramp, ConstantSpacingScheduleFollowsTheRampWithoutNormalising) {
  // burstiness inf: gaps 1/r_i with r = 1, 2, 4 (exponential 1 -> 4 over 3 requests).
  ScheduleParams p{.num_requests = 3, .request_rate = 123.0, .burstiness = INFINITY, .seed = 0};
  auto s = make_ramp_schedule(p, {RampKind::exponential, 1, 4});
  EXPECT_EQ(s, (std::vector<Nanos>{1'000'000'000, 1'500'000'000, 1'750'000'000}));
}

TEST(Ramp, LinearFromZeroStartsImmediately) {
  ScheduleParams p{.num_requests = 3, .request_rate = 1.0, .burstiness = INFINITY, .seed = 0};
  auto s = make_ramp_schedule(p, {RampKind::linear, 0, 4});  // rates 0, 2, 4
  EXPECT_EQ(s, (std::vector<Nanos>{0, 500'000'000, 750'000'000}));
}

TEST(Ramp, GammaRampIsSeededAndNonDecreasing) {
  ScheduleParams p{.num_requests = 500, .request_rate = 1.0, .burstiness = 1.0, .seed = 4};
  const RampUp ramp{RampKind::linear, 1, 50};
  auto a = make_ramp_schedule(p, ramp);
  EXPECT_EQ(a, make_ramp_schedule(p, ramp));
  for (std::size_t i = 1; i < a.size(); ++i) ASSERT_LE(a[i - 1], a[i]);
}

TEST(Ramp, NoRampIsThePlainSchedule) {
  ScheduleParams p{.num_requests = 10, .request_rate = 5.0, .burstiness = 2.0, .seed = 1};
  EXPECT_EQ(make_ramp_schedule(p, {}), make_schedule(p));
}

TEST(Ramp, InvalidRampsNameTheField) {
  auto ramp_fields = [](RampUp r) {
    std::vector<std::string> out;
    for (const Problem& p : validate(r)) out.push_back(p.field);
    return out;
  };
  EXPECT_EQ(ramp_fields({RampKind::linear, -1, 5}), std::vector<std::string>{"start_rps"});
  EXPECT_EQ(ramp_fields({RampKind::linear, 5, 4}), std::vector<std::string>{"end_rps"});
  EXPECT_EQ(ramp_fields({RampKind::exponential, 0, 4}), std::vector<std::string>{"start_rps"});
  EXPECT_EQ(describe_problems(validate({RampKind::linear, 5, 4})),
            "end_rps: must be finite and >= start_rps (5), got 4");
  EXPECT_TRUE(validate({RampKind::linear, 0, 4}).empty());
  EXPECT_TRUE(validate({RampKind::none, -1, -5}).empty());
  EXPECT_THROW(make_ramp_schedule({.num_requests = 3, .request_rate = 1, .burstiness = 1, .seed = 0},
                                  {RampKind::linear, 5, 4}),
               UserError);
}

}  // namespace
}  // namespace sb
