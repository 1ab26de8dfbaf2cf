#include "trace/rocprof_v1_json.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"
#include "trace/kernel_stats.hpp"
#include "trace/rank.hpp"
#include "trace/rocprof_v1.hpp"
#include "trace/torch_trace.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::fixture_text;

std::string json_in(std::string_view dir, std::string_view file) {
  return fixture_text(std::string(dir) + std::string(file));
}

TEST(RocprofV1Json, KernelLaneMatchesResultsCsvToTheNanosecond) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelTrace json = parse_rocprof_v1_json(json_in(trace_fixtures::kV1Dir, "results.json"), "results.json");
  const KernelTrace csv = parse_rocprof_v1_csv(json_in(trace_fixtures::kV1Dir, "results.csv"), "results.csv");
  EXPECT_EQ(json.source_format, "rocprof_v1");
  EXPECT_EQ(json.clock_domain, "CLOCK_BOOTTIME");
  ASSERT_EQ(json.events.size(), 12u);  // the authored JSON holds the first 12 dispatches
  for (std::size_t i = 0; i < json.events.size(); ++i) {
    EXPECT_EQ(json.events[i].name, csv.events[i].name);
    EXPECT_EQ(json.events[i].start_ns, csv.events[i].start_ns);
    EXPECT_EQ(json.events[i].end_ns, csv.events[i].end_ns);
    EXPECT_EQ(json.events[i].device, 0);
    EXPECT_EQ(json.events[i].pid, 48213);
  }
}

TEST(RocprofV1Json, RealHipTraceReproducesItsOwnKernelAndCopyStats) {
  SB_REQUIRE_SHARED_FIXTURES();
  // REAL: string pids, kernel lane 10 = GPU 4 (MI300A), copies on lane 1; API lane 2 skipped.
  const KernelTrace t = parse_rocprof_v1_json(json_in(trace_fixtures::kV1Real, "results.json"), "results.json");
  ASSERT_EQ(t.events.size(), 4u);
  const auto kernels = rank_kernels(t);
  ASSERT_EQ(kernels.size(), 1u);
  const KernelStats kstats = parse_kernel_stats(json_in(trace_fixtures::kV1Real, "results.stats.csv"), "s");
  EXPECT_EQ(kernels[0].name, kstats.rows[0].name);
  EXPECT_EQ(kernels[0].total_ns, kstats.rows[0].total_ns);  // 3431611 ns, exact from args.BeginNs/EndNs

  KernelTrace copies = t;
  std::erase_if(copies.events, [](const KernelEvent& e) { return e.kind == OpKind::kernel; });
  const auto ranked = rank_kernels(copies, {.include_copies = true});
  const KernelStats cstats = parse_kernel_stats(json_in(trace_fixtures::kV1Real, "results.copy_stats.csv"), "c");
  ASSERT_EQ(ranked.size(), cstats.rows.size());
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    EXPECT_EQ(ranked[i].name, cstats.rows[i].name);
    EXPECT_EQ(ranked[i].calls, cstats.rows[i].calls);
    EXPECT_EQ(ranked[i].total_ns, cstats.rows[i].total_ns);
    EXPECT_EQ(ranked[i].percent, cstats.rows[i].percent);
  }
  EXPECT_EQ(t.events[0].device, 4);
}

TEST(RocprofV1Json, SniffingTellsItFromKinetoTraces) {
  SB_REQUIRE_SHARED_FIXTURES();
  EXPECT_TRUE(is_rocprof_v1_json(json_in(trace_fixtures::kV1Real, "results.json")));
  EXPECT_FALSE(looks_like_torch_trace(json_in(trace_fixtures::kV1Real, "results.json").substr(0, 4096)));
  EXPECT_FALSE(is_rocprof_v1_json(fixture_text(trace_fixtures::kTorchFile)));
}

TEST(RocprofV1Json, BrokenInputIsAOneLineError) {
  EXPECT_THROW(parse_rocprof_v1_json("{ \"traceEvents\":[{}", "r.json"), UserError);
  try {
    parse_rocprof_v1_json(R"({"traceEvents":[{},{"ph":"X","pid":6,"name":"k","ts":"x","dur":"1"}]})", "r.json");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "r.json: traceEvents[1]: missing or bad BeginNs/EndNs and ts/dur");
  }
  const KernelTrace us = parse_rocprof_v1_json(R"({"traceEvents":[{},{"ph":"X","pid":"7","name":"k","ts":"5","dur":"2"}]})", "r.json");
  ASSERT_EQ(us.events.size(), 1u);
  EXPECT_EQ(us.events[0].start_ns, 5000);
  EXPECT_EQ(us.events[0].end_ns, 7000);
  EXPECT_EQ(us.events[0].device, 1);  // lane 7 = GPU 1
}

std::string own_json(std::string_view dir, std::string_view file) { return trace_fixtures::own_text(dir, file); }

TEST(RocprofV1Json, OwnSampleKernelLaneMatchesResultsCsvToTheNanosecond) {
  const KernelTrace json = parse_rocprof_v1_json(own_json(trace_fixtures::kOwnV1Dir, "results.json"), "results.json");
  const KernelTrace csv = parse_rocprof_v1_csv(own_json(trace_fixtures::kOwnV1Dir, "results.csv"), "results.csv");
  EXPECT_EQ(json.source_format, "rocprof_v1");
  EXPECT_EQ(json.clock_domain, "CLOCK_BOOTTIME");
  ASSERT_EQ(json.events.size(), 8u);  // the sample's JSON holds the first 8 dispatches; metadata lanes skipped
  for (std::size_t i = 0; i < json.events.size(); ++i) {
    EXPECT_EQ(json.events[i].name, csv.events[i].name);
    EXPECT_EQ(json.events[i].start_ns, csv.events[i].start_ns);
    EXPECT_EQ(json.events[i].end_ns, csv.events[i].end_ns);
    EXPECT_EQ(json.events[i].device, 1);  // lane 7 = GPU1, and args gpu-id "1"
    EXPECT_EQ(json.events[i].queue, 2);
    EXPECT_EQ(json.events[i].pid, 7301);
    EXPECT_EQ(json.events[i].kind, OpKind::kernel);
  }
  // ts/dur are whole us ("1"); the exact 1000 ns come from args.BeginNs/EndNs.
  EXPECT_EQ(json.events[0].duration_ns(), 1000);
  EXPECT_EQ(json.events[5].duration_ns(), 10'499);
}

// Older rocprof --hip-trace: string pids, copies on lane "1", HIP API on lane "2" (skipped), kernels on
// lane "8" = 6 + dev-id 2. Durations chosen so that the us ts/dur strings would be off: only the args
// give 250 321 + 249 679 = 500 000 ns of kernels and 3 200 123 + 3 199 877 + 3 500 000 ns of copies.
TEST(RocprofV1Json, OwnHipTraceReproducesItsOwnKernelAndCopyStats) {
  const KernelTrace t = parse_rocprof_v1_json(own_json(trace_fixtures::kOwnV1Hip, "results.json"), "results.json");
  ASSERT_EQ(t.events.size(), 5u);
  EXPECT_EQ(t.events[0].name, "CopyHostToDevice");
  EXPECT_EQ(t.events[0].kind, OpKind::memcpy);
  EXPECT_EQ(t.events[0].duration_ns(), 3'200'123);
  EXPECT_EQ(t.events[0].start_ns, 500'000'812'161'234);
  EXPECT_EQ(t.events[2].name, "CopyDeviceToHost");
  EXPECT_EQ(t.events[3].name, "saxpy_kernel(float, float const*, float*, int)");
  EXPECT_EQ(t.events[3].kind, OpKind::kernel);
  EXPECT_EQ(t.events[3].duration_ns(), 250'321);
  EXPECT_EQ(t.events[3].stream, 1);  // args stream-id
  EXPECT_EQ(t.events[3].pid, 2610);
  for (const KernelEvent& e : t.events) EXPECT_EQ(e.device, 2) << e.name;

  const auto kernels = rank_kernels(t);
  ASSERT_EQ(kernels.size(), 1u);
  const KernelStats kstats = parse_kernel_stats(own_json(trace_fixtures::kOwnV1Hip, "results.stats.csv"), "s");
  ASSERT_EQ(kstats.rows.size(), 1u);
  EXPECT_EQ(kernels[0].name, kstats.rows[0].name);
  EXPECT_EQ(kernels[0].total_ns, 500'000);
  EXPECT_EQ(kernels[0].total_ns, kstats.rows[0].total_ns);

  KernelTrace copies = t;
  std::erase_if(copies.events, [](const KernelEvent& e) { return e.kind == OpKind::kernel; });
  const auto ranked = rank_kernels(copies, {.include_copies = true});
  const KernelStats cstats = parse_kernel_stats(own_json(trace_fixtures::kOwnV1Hip, "results.copy_stats.csv"), "c");
  ASSERT_EQ(ranked.size(), 2u);
  ASSERT_EQ(cstats.rows.size(), 2u);
  EXPECT_EQ(ranked[0].name, "CopyHostToDevice");
  EXPECT_EQ(ranked[0].total_ns, 6'400'000);
  EXPECT_EQ(ranked[1].total_ns, 3'500'000);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    EXPECT_EQ(ranked[i].name, cstats.rows[i].name);
    EXPECT_EQ(ranked[i].calls, cstats.rows[i].calls);
    EXPECT_EQ(ranked[i].total_ns, cstats.rows[i].total_ns);
    EXPECT_EQ(ranked[i].percent, cstats.rows[i].percent);  // 6.4 / 9.9 and 3.5 / 9.9, bit for bit
  }
}

TEST(RocprofV1Json, OwnSamplesSniffing) {
  EXPECT_TRUE(is_rocprof_v1_json(own_json(trace_fixtures::kOwnV1Hip, "results.json")));
  EXPECT_TRUE(is_rocprof_v1_json(own_json(trace_fixtures::kOwnV1Dir, "results.json")));
  EXPECT_FALSE(looks_like_torch_trace(own_json(trace_fixtures::kOwnV1Hip, "results.json").substr(0, 4096)));
  EXPECT_FALSE(is_rocprof_v1_json(trace_fixtures::authored_text(trace_fixtures::kOwnTorchFile)));
}

}  // namespace
}  // namespace sb::trace
