#include "trace/nsys.hpp"

#include <algorithm>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

std::string nsys_file(std::string_view file) {
  return trace_fixtures::fixture_text(std::string(trace_fixtures::kNsysDir) + std::string(file));
}

TEST(Nsys, ParsesKernelsCopiesAndMemsetsWithSizesAndDevices) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelTrace t = parse_nsys_gpu_trace(nsys_file("vllm_cuda_gpu_trace.csv"), "trace.csv");
  EXPECT_EQ(t.source_format, "nsys");
  EXPECT_EQ(t.clock_domain, "nsys-session");
  ASSERT_EQ(t.events.size(), 36u);
  const auto count = [&](OpKind k) { return std::count_if(t.events.begin(), t.events.end(), [&](auto& e) { return e.kind == k; }); };
  EXPECT_EQ(count(OpKind::kernel), 31);
  EXPECT_EQ(count(OpKind::memcpy), 4);
  EXPECT_EQ(count(OpKind::memset), 1);
  const KernelEvent& h2d = t.events[2];
  EXPECT_EQ(h2d.name, "[CUDA memcpy Host-to-Device]");
  EXPECT_EQ(h2d.start_ns, 41273559801);
  EXPECT_EQ(h2d.end_ns, 41273559801 + 3246);
  EXPECT_EQ(h2d.bytes, 131000);  // "0.131" MB
  EXPECT_EQ(t.events[3].kind, OpKind::memset);
  EXPECT_EQ(t.events[3].bytes, 4000);
  const KernelEvent& fill = t.events[4];
  EXPECT_EQ(fill.name,
            "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<int>, std::array<char *, "
            "(unsigned long)1>>(int, T2, T3)");
  EXPECT_EQ(fill.bytes, -1);
  EXPECT_EQ(fill.device, 0);  // "NVIDIA H100 80GB HBM3 (0)"
  EXPECT_EQ(fill.stream, 7);
  EXPECT_EQ(fill.correlation, 188424);
  // The decode step is one CUDA graph launch: its 25 kernels share one CorrId.
  EXPECT_EQ(std::count_if(t.events.begin(), t.events.end(), [](auto& e) { return e.correlation == 188432; }), 25);
}

TEST(Nsys, ReadsTimeUnitsFromTheHeader) {
  const std::string us =
      "Start (us),Duration (us),CorrId,Device,Strm,Name\n"
      "1.5,0.25,9,NVIDIA H100 80GB HBM3 (1),3,\"k<a, b>\"\n";
  const KernelTrace t = parse_nsys_gpu_trace(us, "us.csv");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].start_ns, 1500);
  EXPECT_EQ(t.events[0].end_ns, 1750);
  EXPECT_EQ(t.events[0].device, 1);
  EXPECT_EQ(t.events[0].name, "k<a, b>");
  EXPECT_EQ(time_unit_to_ns("Start (ms)"), 1e6);
  EXPECT_EQ(time_unit_to_ns("Start (s)"), 1e9);
  EXPECT_EQ(time_unit_to_ns("Start"), 0);
}

TEST(Nsys, FullyQuotedOutputAndPreambleLinesAreAccepted) {
  const std::string text =
      "Generating SQLite file r.sqlite from r.nsys-rep\n"
      "Processing [r.sqlite] with [/opt/nsys/reports/cuda_gpu_trace.py]... \n"
      "\"Start (ns)\",\"Duration (ns)\",\"CorrId\",\"Strm\",\"Name\"\n"
      "\"100\",\"20\",\"5\",\"7\",\"[CUDA memcpy HtoD]\"\n\n"
      "Processing [r.sqlite] with [/opt/nsys/reports/cuda_gpu_kern_sum.py]... \n";
  const KernelTrace t = parse_nsys_gpu_trace(text, "stdout.txt");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].kind, OpKind::memcpy);  // old "HtoD" spelling
  EXPECT_EQ(t.events[0].duration_ns(), 20);
  EXPECT_TRUE(has_nsys_gpu_trace_header(text));
}

TEST(Nsys, ErrorsNameFileAndLine) {
  try {
    parse_nsys_gpu_trace("Start (ns),Duration (ns),Name\n1,2,a\n3,x,b\n", "g.csv");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "g.csv:3: column Duration (ns): bad integer 'x'");
  }
  EXPECT_THROW(parse_nsys_gpu_trace("Start (ns),Duration (furlongs),Name\n1,2,a\n", "u.csv"), UserError);
}

TEST(Nsys, KernelSummaryIsNotATrace) {
  SB_REQUIRE_SHARED_FIXTURES();
  EXPECT_THROW(parse_nsys_gpu_trace(nsys_file("vllm_cuda_gpu_kern_sum.csv"), "sum.csv"), UserError);
}

TEST(Nsys, TruncatedAnywhereNeverCrashes) {
  SB_REQUIRE_SHARED_FIXTURES();
  const std::string text = nsys_file("vllm_cuda_gpu_trace.csv");
  for (std::size_t n = 0; n < text.size(); n += 7) {
    try {
      EXPECT_LE(parse_nsys_gpu_trace(text.substr(0, n), "g.csv").events.size(), 36u);
    } catch (const UserError&) {
    }
  }
}

// The project's own decode step (tests/data/trace/authored/README.md): 18 operations on device 1,
// stream 13, from session ns 3 000 000 000; the CUDA graph's 11 kernels share CorrId 9010.
std::string own_nsys(std::string_view file) { return trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, file); }

TEST(Nsys, OwnSampleKernelsCopiesMemsetsSizesAndDevices) {
  const KernelTrace t = parse_nsys_gpu_trace(own_nsys("sbtest_cuda_gpu_trace.csv"), "trace.csv");
  EXPECT_EQ(t.source_format, "nsys");
  EXPECT_EQ(t.clock_domain, "nsys-session");
  ASSERT_EQ(t.events.size(), 18u);
  const auto count = [&](OpKind k) {
    return std::count_if(t.events.begin(), t.events.end(), [&](auto& e) { return e.kind == k; });
  };
  EXPECT_EQ(count(OpKind::kernel), 14);
  EXPECT_EQ(count(OpKind::memcpy), 3);
  EXPECT_EQ(count(OpKind::memset), 1);
  const KernelEvent& h2d = t.events[0];
  EXPECT_EQ(h2d.name, "[CUDA memcpy Host-to-Device]");
  EXPECT_EQ(h2d.start_ns, 3'000'000'000);
  EXPECT_EQ(h2d.end_ns, 3'000'000'000 + 1500);
  EXPECT_EQ(h2d.bytes, 524'000);                   // "0.524" MB = 10^6 B units, as printed
  EXPECT_EQ(t.events[1].start_ns, 3'000'005'500);  // 1500 ns later + 4000 ns idle
  EXPECT_EQ(t.events[2].kind, OpKind::memset);
  EXPECT_EQ(t.events[2].bytes, 4000);
  const KernelEvent& fill = t.events[3];
  EXPECT_EQ(fill.name, "void sbtest::fill_kernel<(int)4, int>(T2 *, T2, int)");  // quoted: it holds commas
  EXPECT_EQ(fill.bytes, -1);
  EXPECT_EQ(fill.device, 1);  // "NVIDIA H100 80GB HBM3 (1)"
  EXPECT_EQ(fill.stream, 13);
  EXPECT_EQ(fill.correlation, 9004);
  EXPECT_EQ(fill.duration_ns(), 1400);
  EXPECT_EQ(t.events[5].name, "nvjet_tst_sbtest_64x16_TNT");  // unquoted
  EXPECT_EQ(std::count_if(t.events.begin(), t.events.end(), [](auto& e) { return e.correlation == 9010; }), 11);
  EXPECT_EQ(t.events.back().name, "[CUDA memcpy Device-to-Host]");
  EXPECT_EQ(t.events.back().bytes, 0);  // 8 B prints as "0.000" MB
}

TEST(Nsys, OwnKernelSummaryIsNotATrace) {
  EXPECT_THROW(parse_nsys_gpu_trace(own_nsys("sbtest_cuda_gpu_kern_sum.csv"), "sum.csv"), UserError);
  EXPECT_FALSE(has_nsys_gpu_trace_header(own_nsys("stdout_cuda_gpu_kern_sum.txt")));
  EXPECT_TRUE(has_nsys_gpu_trace_header(own_nsys("sbtest_cuda_gpu_trace.csv")));
}

TEST(Nsys, OwnSampleTruncatedAnywhereNeverCrashes) {
  const std::string text = own_nsys("sbtest_cuda_gpu_trace.csv");
  std::size_t parsed = 0;
  for (std::size_t n = 0; n < text.size(); n += 7) {
    try {
      EXPECT_LE(parse_nsys_gpu_trace(text.substr(0, n), "g.csv").events.size(), 18u);
      ++parsed;
    } catch (const UserError&) {
    }
  }
  EXPECT_GT(parsed, 0u);
}

}  // namespace
}  // namespace sb::trace
