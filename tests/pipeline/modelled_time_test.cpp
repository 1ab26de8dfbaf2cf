#include "pipeline/modelled_time.hpp"

#include <gtest/gtest.h>

namespace sb::pipeline {
namespace {

TEST(ModelledTime, ScheduleGoesOutKTimesFasterAndComesBackWhole) {
  std::vector<Nanos> offsets{0, 1'000'000, 250'000'000, 1'000'000'001};
  to_wall_offsets(offsets, 20);
  EXPECT_EQ(offsets, (std::vector<Nanos>{0, 50'000, 12'500'000, 50'000'000}));  // 1'000'000'001 / 20 rounds to nearest
  EXPECT_EQ(to_wall_ns(3'000'000'000, 20), 150'000'000);
  EXPECT_EQ(to_wall_ns(7, 1), 7);
}

TEST(ModelledTime, EveryStampStretchesAndMarksStay) {
  RequestRecord r;
  r.intended_ns = 0;        // closed loop: not scheduled
  r.sent_ns = 1'000;
  r.first_byte_ns = -1;     // never came
  r.done_ns = 5'000;
  r.slot_free_ns = 200;
  r.token_ns = {2'000, 3'000};
  r.server.prefill_ms = 1.5f;
  r.server.decode_ms = -1;  // not reported
  to_modelled(r, 10);
  EXPECT_EQ(r.intended_ns, 0);
  EXPECT_EQ(r.sent_ns, 10'000);
  EXPECT_EQ(r.first_byte_ns, -1);
  EXPECT_EQ(r.done_ns, 50'000);
  EXPECT_EQ(r.slot_free_ns, 2'000);
  EXPECT_EQ(r.token_ns, (std::vector<Nanos>{20'000, 30'000}));
  EXPECT_EQ(r.ttft_ns(), 10'000);  // 10x the wall clock's 1 µs
  EXPECT_FLOAT_EQ(r.server.prefill_ms, 15.0f);
  EXPECT_EQ(r.server.decode_ms, -1);
}

TEST(ModelledTime, StageEndsAndServerLatenciesStretch) {
  StageOutput out;
  out.records.resize(2);
  out.records[1].done_ns = 4;
  out.end_ns = 100;
  out.issue_end_ns = -1;  // the stage was not duration-bound
  to_modelled(out, 3);
  EXPECT_EQ(out.end_ns, 300);
  EXPECT_EQ(out.issue_end_ns, -1);
  EXPECT_EQ(out.records[1].done_ns, 12);
  ServerStageMetrics m;
  m.ttft = HistogramWindow{5, 2, 1, 4};
  to_modelled(m, 3);
  EXPECT_EQ(m.ttft->count, 5);  // a count is no time
  EXPECT_DOUBLE_EQ(m.ttft->mean_ms, 6);
  EXPECT_DOUBLE_EQ(m.ttft->p50_ms, 3);
  EXPECT_DOUBLE_EQ(m.ttft->p99_ms, 12);
  EXPECT_FALSE(m.queue_time.has_value());
}

TEST(ModelledTime, FactorOneChangesNothing) {
  RequestRecord r;
  r.sent_ns = 123;
  r.token_ns = {456};
  to_modelled(r, 1);
  EXPECT_EQ(r.sent_ns, 123);
  EXPECT_EQ(r.token_ns.front(), 456);
}

}  // namespace
}  // namespace sb::pipeline
