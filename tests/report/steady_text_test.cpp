// Tests for src/report/steady_text.cpp and repeat_text.cpp: stages named by their load, never by
// index, with the numbers of the finding.
#include "report/steady_text.hpp"

#include <gtest/gtest.h>

#include "report/repeat_text.hpp"

namespace sb::report {
namespace {

TEST(SteadyText, LoadNames) {
  StageLoad c;
  c.max_concurrency = 128;
  EXPECT_EQ(stage_load_name(c), "c=128");
  StageLoad r;
  r.request_rate = 32;
  EXPECT_EQ(stage_load_name(r), "rate 32");
  r.max_concurrency = 8;
  EXPECT_EQ(stage_load_name(r), "rate 32, c<=8");
}

StageSummary drained_c128() {
  StageSummary s;
  s.stage_index = 3;
  s.load.max_concurrency = 128;
  s.sent = 200;
  s.duration_s = 1.2;
  s.in_flight_mean = 99;
  SteadyState st;
  st.window_start_s = 0.01;
  st.window_s = 0.4;
  st.held_fraction = 0.95;
  st.target_in_flight = 128;
  st.mean_in_flight = 127.5;
  st.request_throughput = 180.5;
  st.output_throughput = 2888;
  st.ttft.percentiles_ms = {{99, 12.345}};
  st.completed = 70;
  st.littles_law_ratio = 1;
  s.steady = st;
  return s;
}

TEST(SteadyText, LineAndDrainWarning) {
  const StageSummary s = drained_c128();
  EXPECT_EQ(format_steady_line(s),
            "Steady state: window 0.01-0.41 s (0.40 s), held 95.0 % at c=128, 180.50 req/s, 2888.0 tok/s, "
            "TTFT p99 12.35 ms\n");
  const std::string w = format_steady_summary(s);
  EXPECT_NE(w.find("warning: c=128: the steady window is 33 % of the stage (0.40 of 1.20 s; mean in flight 99.0 of "
                   "128)"),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("--stage-seconds"), std::string::npos);
  EXPECT_EQ(w.find("stage 3"), std::string::npos);
  EXPECT_EQ(format_steady_line(StageSummary{}), "");
}

TEST(SteadyText, RepeatSpreadWarningNamesTheLoad) {
  analyze::RepeatSpread r;
  r.load.request_rate = 16;
  r.repeats = 2;
  r.request_throughput = {10, 13, 0.13, 0.3};
  r.ttft_p99_ms = {5, 5.5, 0.05, 0.1};
  r.differs = true;
  const std::string text = format_repeat_spread({r});
  EXPECT_NE(text.find("warning: rate 16: repeats differ by more than 20 %: throughput 10.00-13.00 req/s (+30 %)"),
            std::string::npos)
      << text;
  const auto j = repeat_spread_json({r}, 2);
  EXPECT_EQ(j["count"], 2);
  EXPECT_EQ(j["stages"][0]["differs"], true);
  EXPECT_DOUBLE_EQ(j["stages"][0]["request_throughput"]["max"].get<double>(), 13);
}

}  // namespace
}  // namespace sb::report
