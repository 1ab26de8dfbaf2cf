#include "trace/rocprofv3.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::fixture_text;

std::string v3(std::string_view file) { return fixture_text(std::string(trace_fixtures::kV3Dir) + std::string(file)); }
std::string v3_real(std::string_view file) { return fixture_text(std::string(trace_fixtures::kV3Real) + std::string(file)); }

TEST(Rocprofv3, ParsesTheCurrent22ColumnKernelTrace) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelTrace t = parse_rocprofv3_kernel_trace(v3("48213_kernel_trace.csv"), "node/48213_kernel_trace.csv");
  EXPECT_EQ(t.source_format, "rocprofv3");
  EXPECT_EQ(t.clock_domain, "CLOCK_BOOTTIME");
  ASSERT_EQ(t.events.size(), 33u);
  const KernelEvent& e = t.events.front();
  EXPECT_EQ(e.name,
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::array<char*, 1ul> "
            ">(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)");
  EXPECT_EQ(e.start_ns, 276480512546454);
  EXPECT_EQ(e.end_ns, 276480512548259);
  EXPECT_EQ(e.device, 2);  // "Agent 2": a node id, CPUs come first
  EXPECT_EQ(e.queue, 1);
  EXPECT_EQ(e.stream, 1);
  EXPECT_EQ(e.correlation, 90211);
  EXPECT_EQ(e.pid, 48213);  // from the file name
  EXPECT_EQ(t.events.back().end_ns, 276480513012713);
}

TEST(Rocprofv3, ParsesTheOld18ColumnLayoutWithNumericAgents) {
  SB_REQUIRE_SHARED_FIXTURES();
  // REAL: rocprofiler-sdk docs data, Aug 2024.
  const KernelTrace t = parse_rocprofv3_kernel_trace(v3_real("kernel_trace.csv"), "kernel_trace.csv");
  ASSERT_EQ(t.events.size(), 7u);
  EXPECT_EQ(t.events[0].name, "void addition_kernel<float>(float*, float const*, float const*, int, int)");
  EXPECT_EQ(t.events[0].device, 1);
  EXPECT_EQ(t.events[0].start_ns, 8819330200067564);
  EXPECT_EQ(t.events[0].duration_ns(), 8819330200116308 - 8819330200067564);
  EXPECT_EQ(t.events[1].queue, 2);
  EXPECT_EQ(t.events[1].stream, 2);  // no Stream_Id column: the queue stands in
  EXPECT_EQ(t.events[0].pid, -1);    // no pid in the file name
}

TEST(Rocprofv3, MemoryCopiesInBothLayoutsIncludingNoFinalNewline) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelTrace cur = parse_rocprofv3_memory_copy_trace(v3("48213_memory_copy_trace.csv"), "48213_memory_copy_trace.csv");
  ASSERT_EQ(cur.events.size(), 4u);
  EXPECT_EQ(cur.events[0].kind, OpKind::memcpy);
  EXPECT_EQ(cur.events[0].name, "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(cur.events[0].device, 2);  // destination agent of a host-to-device copy
  EXPECT_EQ(cur.events[0].duration_ns(), 5120);
  EXPECT_EQ(cur.events[3].device, 2);  // source agent of a device-to-host copy
  EXPECT_EQ(cur.events[3].correlation, 90206);

  const std::string real = v3_real("memory_copy_trace.csv");
  ASSERT_NE(real.back(), '\n');  // the quirk under test
  const KernelTrace old = parse_rocprofv3_memory_copy_trace(real, "memory_copy_trace.csv");
  ASSERT_EQ(old.events.size(), 2u);
  EXPECT_TRUE(old.warnings.empty());
  EXPECT_EQ(old.events[1].name, "MEMORY_COPY_DEVICE_TO_HOST");
  EXPECT_EQ(old.events[1].end_ns, 14955953315285);
  EXPECT_EQ(old.events[1].device, 1);
}

TEST(Rocprofv3, BadAgentAndWrongFileAreOneLineErrors) {
  const std::string header =
      "\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n";
  try {
    parse_rocprofv3_kernel_trace(header + "\"KERNEL_DISPATCH\",\"Agent\",\"k\",1,2\n", "k.csv");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "k.csv:2: bad agent id 'Agent'");
  }
}

TEST(Rocprofv3, KernelAndCopyParsersRefuseEachOthersFiles) {
  SB_REQUIRE_SHARED_FIXTURES();
  EXPECT_THROW(parse_rocprofv3_kernel_trace(v3("48213_memory_copy_trace.csv"), "m.csv"), UserError);
  EXPECT_THROW(parse_rocprofv3_memory_copy_trace(v3("48213_kernel_trace.csv"), "k.csv"), UserError);
}

TEST(Rocprofv3, TruncatedAnywhereNeverCrashes) {
  SB_REQUIRE_SHARED_FIXTURES();
  const std::string text = v3("48213_kernel_trace.csv");
  for (std::size_t n = 0; n < text.size(); n += 11) {
    try {
      EXPECT_LE(parse_rocprofv3_kernel_trace(text.substr(0, n), "k.csv").events.size(), 33u);
    } catch (const UserError&) {
    }
  }
}

TEST(Rocprofv3, HeaderDetection) {
  SB_REQUIRE_SHARED_FIXTURES();
  EXPECT_TRUE(is_rocprofv3_kernel_header(v3("48213_kernel_trace.csv")));
  EXPECT_TRUE(is_rocprofv3_kernel_header(v3_real("kernel_trace.csv")));
  EXPECT_TRUE(is_rocprofv3_memory_copy_header(v3_real("memory_copy_trace.csv")));
  EXPECT_FALSE(is_rocprofv3_kernel_header(v3("48213_kernel_stats.csv")));
}

// The project's own samples (tests/data/trace/authored/README.md): the ROCm decode step's 14 kernels
// on "Agent 3", queue 2, stream 5, from 93 600 050 001 000 ns, 400 ns apart; 3 copies around them.
std::string own_v3(std::string_view file) { return trace_fixtures::own_text(trace_fixtures::kOwnV3Dir, file); }
std::string own_v3_old(std::string_view file) { return trace_fixtures::own_text(trace_fixtures::kOwnV3Old, file); }

TEST(Rocprofv3, OwnSample22ColumnKernelTraceKnownAnswers) {
  const KernelTrace t =
      parse_rocprofv3_kernel_trace(own_v3("7301_kernel_trace.csv"), "sbtest-node7/7301_kernel_trace.csv");
  EXPECT_EQ(t.source_format, "rocprofv3");
  EXPECT_EQ(t.clock_domain, "CLOCK_BOOTTIME");
  ASSERT_EQ(t.events.size(), 14u);
  const KernelEvent& e = t.events.front();
  EXPECT_EQ(e.name, "__amd_rocclr_fillBufferAligned");  // rocprofv3 prints no .kd
  EXPECT_EQ(e.start_ns, 93'600'050'001'000);
  EXPECT_EQ(e.end_ns, 93'600'050'002'000);
  EXPECT_EQ(e.device, 3);  // "Agent 3"
  EXPECT_EQ(e.queue, 2);
  EXPECT_EQ(e.stream, 5);
  EXPECT_EQ(e.correlation, 700);
  EXPECT_EQ(e.pid, 7301);  // from the file name
  EXPECT_EQ(t.events[2].name,
            "void sbtest::rms_norm_kernel<__hip_bfloat16, 4>(__hip_bfloat16*, __hip_bfloat16 const*, float, int)");
  EXPECT_EQ(t.events.back().end_ns, 93'600'050'001'000 + 100'000 + 13 * 400);
  EXPECT_EQ(t.events.back().correlation, 713);
  EXPECT_EQ(parse_rocprofv3_kernel_trace(own_v3("7301_kernel_trace.csv"), "kernel_trace.csv").events[0].pid, -1);
}

TEST(Rocprofv3, OwnSampleOld18ColumnLayoutWithNumericAgents) {
  const KernelTrace t = parse_rocprofv3_kernel_trace(own_v3_old("kernel_trace.csv"), "kernel_trace.csv");
  ASSERT_EQ(t.events.size(), 5u);
  EXPECT_EQ(t.events[0].name, "void scale_kernel<float>(float*, float const*, float, int)");
  EXPECT_EQ(t.events[0].device, 1);
  EXPECT_EQ(t.events[0].start_ns, 4'200'000'000'100'000);
  EXPECT_EQ(t.events[0].duration_ns(), 48'000);
  EXPECT_EQ(t.events[2].name, "offset_kernel(float*, float, int)");
  EXPECT_EQ(t.events[2].queue, 3);
  EXPECT_EQ(t.events[2].stream, 3);  // no Stream_Id column: the queue stands in
  EXPECT_EQ(t.events[2].correlation, 1202);
  EXPECT_EQ(t.events[4].duration_ns(), 51'001);
  EXPECT_EQ(t.events[0].pid, -1);  // no pid in the file name
}

TEST(Rocprofv3, OwnSampleMemoryCopiesInBothLayoutsIncludingNoFinalNewline) {
  const KernelTrace cur =
      parse_rocprofv3_memory_copy_trace(own_v3("7301_memory_copy_trace.csv"), "7301_memory_copy_trace.csv");
  ASSERT_EQ(cur.events.size(), 3u);
  EXPECT_EQ(cur.events[0].kind, OpKind::memcpy);
  EXPECT_EQ(cur.events[0].name, "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(cur.events[0].device, 3);  // destination "Agent 3" of a host-to-device copy (source is Agent 0)
  EXPECT_EQ(cur.events[0].duration_ns(), 5000);
  EXPECT_EQ(cur.events[0].stream, 5);
  EXPECT_EQ(cur.events[0].pid, 7301);
  EXPECT_EQ(cur.events[2].name, "MEMORY_COPY_DEVICE_TO_HOST");
  EXPECT_EQ(cur.events[2].device, 3);  // source "Agent 3" of a device-to-host copy (destination is Agent 1)
  EXPECT_EQ(cur.events[2].correlation, 714);
  EXPECT_EQ(cur.events[2].duration_ns(), 6000);

  const std::string old_text = own_v3_old("memory_copy_trace.csv");
  ASSERT_NE(old_text.back(), '\n');  // the quirk under test
  const KernelTrace old = parse_rocprofv3_memory_copy_trace(old_text, "memory_copy_trace.csv");
  ASSERT_EQ(old.events.size(), 2u);
  EXPECT_TRUE(old.warnings.empty());
  EXPECT_EQ(old.events[0].duration_ns(), 50'000);
  EXPECT_EQ(old.events[1].name, "MEMORY_COPY_DEVICE_TO_HOST");
  EXPECT_EQ(old.events[1].end_ns, 4'200'000'000'403'251);
  EXPECT_EQ(old.events[1].device, 1);
}

TEST(Rocprofv3, OwnSampleKernelAndCopyParsersRefuseEachOthersFiles) {
  EXPECT_THROW(parse_rocprofv3_kernel_trace(own_v3("7301_memory_copy_trace.csv"), "m.csv"), UserError);
  EXPECT_THROW(parse_rocprofv3_memory_copy_trace(own_v3("7301_kernel_trace.csv"), "k.csv"), UserError);
}

TEST(Rocprofv3, OwnSampleTruncatedAnywhereNeverCrashes) {
  const std::string text = own_v3("7301_kernel_trace.csv");
  std::size_t parsed = 0;
  for (std::size_t n = 0; n < text.size(); n += 11) {
    try {
      EXPECT_LE(parse_rocprofv3_kernel_trace(text.substr(0, n), "k.csv").events.size(), 14u);
      ++parsed;
    } catch (const UserError&) {
    }
  }
  EXPECT_GT(parsed, 0u);
}

TEST(Rocprofv3, OwnSampleHeaderDetection) {
  EXPECT_TRUE(is_rocprofv3_kernel_header(own_v3("7301_kernel_trace.csv")));
  EXPECT_TRUE(is_rocprofv3_kernel_header(own_v3_old("kernel_trace.csv")));
  EXPECT_TRUE(is_rocprofv3_memory_copy_header(own_v3("7301_memory_copy_trace.csv")));
  EXPECT_TRUE(is_rocprofv3_memory_copy_header(own_v3_old("memory_copy_trace.csv")));
  EXPECT_FALSE(is_rocprofv3_kernel_header(own_v3("7301_kernel_stats.csv")));
  EXPECT_FALSE(is_rocprofv3_memory_copy_header(own_v3("7301_kernel_trace.csv")));
}

}  // namespace
}  // namespace sb::trace
