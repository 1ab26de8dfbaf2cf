// Tests for src/report/selftest_text.cpp and client_use_json.cpp: the words of the ceiling and of
// a stage's client use, and the ceiling's JSON read back as written.
#include "report/selftest_text.hpp"

#include <gtest/gtest.h>

#include "report/client_use_json.hpp"

namespace sb::report {
namespace {

ClientCeiling sample_ceiling() {
  ClientCeiling c;
  c.threads = 2;
  c.events_per_cpu_s = 1234567;
  c.events_per_s = 900000;
  c.requests_per_s = 14000;
  c.timestamp_overhead_ns = 21.5;
  c.timer_overshoot_p99_us = 61;
  c.dispatch_lag_p99_ms = 0.125;
  c.dispatch_rate = 2000;
  c.measured_unix_s = 1700000000;
  return c;
}

TEST(SelftestText, CeilingJsonRoundTrips) {
  const ClientCeiling c = sample_ceiling();
  const auto back = ceiling_from_json(nlohmann::json::parse(ceiling_json(c).dump()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->threads, 2);
  EXPECT_EQ(back->events_per_cpu_s, c.events_per_cpu_s);
  EXPECT_EQ(back->dispatch_lag_p99_ms, c.dispatch_lag_p99_ms);
  EXPECT_EQ(back->measured_unix_s, c.measured_unix_s);
  nlohmann::json broken = nlohmann::json::parse(ceiling_json(c).dump());
  broken.erase("requests_per_s");
  EXPECT_FALSE(ceiling_from_json(broken));
}

TEST(SelftestText, TableAndNote) {
  const std::string table = format_selftest_table({sample_ceiling()});
  EXPECT_NE(table.find("      2          1234567       900000      14000        21.5           61.0            0.125\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(format_ceiling_note(sample_ceiling(), 0.41, "/c/selftest.json"),
            "client ceiling: 1.23 M events/s per thread (probed in 0.41 s; cached for a day in /c/selftest.json; "
            "--no-selftest skips it)");
}

TEST(SelftestText, ClientUseLineAndCause) {
  StageSummary s;
  EXPECT_EQ(format_client_use(s), "");
  s.client_use = ClientUse{1, 45678, 0.2, 0.93, 0.81};
  s.client_limit = ClientLimit::cpu;
  const std::string text = format_client_use(s);
  EXPECT_NE(text.find("Client: 1 thread, 45.7 k events/s, busiest thread 93% busy, 81% of its ceiling\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("WARNING: client CPU"), std::string::npos);
  s.client_limit = ClientLimit::concurrency_limit;
  EXPECT_NE(format_client_use(s).find("NOTE: client concurrency limit"), std::string::npos);
  const nlohmann::ordered_json j = client_use_json(*s.client_use);
  EXPECT_EQ(j["busiest_thread_busy"], 0.93);
  EXPECT_EQ(j["ceiling_fraction"], 0.81);
}

}  // namespace
}  // namespace sb::report
