#include "trace/rocprofv3.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

using testing::fixture_text;

std::string v3(std::string_view file) { return fixture_text(std::string(testing::kV3Dir) + std::string(file)); }
std::string v3_real(std::string_view file) { return fixture_text(std::string(testing::kV3Real) + std::string(file)); }

TEST(Rocprofv3, ParsesTheCurrent22ColumnKernelTrace) {
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
  EXPECT_THROW(parse_rocprofv3_kernel_trace(v3("48213_memory_copy_trace.csv"), "m.csv"), UserError);
  EXPECT_THROW(parse_rocprofv3_memory_copy_trace(v3("48213_kernel_trace.csv"), "k.csv"), UserError);
}

TEST(Rocprofv3, TruncatedAnywhereNeverCrashes) {
  const std::string text = v3("48213_kernel_trace.csv");
  for (std::size_t n = 0; n < text.size(); n += 11) {
    try {
      EXPECT_LE(parse_rocprofv3_kernel_trace(text.substr(0, n), "k.csv").events.size(), 33u);
    } catch (const UserError&) {
    }
  }
}

TEST(Rocprofv3, HeaderDetection) {
  EXPECT_TRUE(is_rocprofv3_kernel_header(v3("48213_kernel_trace.csv")));
  EXPECT_TRUE(is_rocprofv3_kernel_header(v3_real("kernel_trace.csv")));
  EXPECT_TRUE(is_rocprofv3_memory_copy_header(v3_real("memory_copy_trace.csv")));
  EXPECT_FALSE(is_rocprofv3_kernel_header(v3("48213_kernel_stats.csv")));
}

}  // namespace
}  // namespace sb::trace
