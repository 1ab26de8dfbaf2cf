#include "trace/torch_trace.hpp"

#include <algorithm>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"
#include "trace/nsys.hpp"

namespace sb::trace {
namespace {

// The authored torch trace and nsys CSV describe the same 36 GPU operations; the torch trace puts
// the nsys session start at Unix 1763647350.0 s (fixtures/README.md).
constexpr std::int64_t kSessionStartUnixNs = 1'763'647'350'000'000'000;

std::vector<KernelEvent> by_start(std::vector<KernelEvent> v) {
  std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.start_ns < b.start_ns; });
  return v;
}

TEST(TorchTrace, GpuEventsMatchTheNsysViewOfTheSameRunToTheNanosecond) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelTrace torch = parse_torch_trace(trace_fixtures::fixture_text(trace_fixtures::kTorchFile), "rank0.pt.trace.json");
  const KernelTrace nsys = parse_nsys_gpu_trace(
      trace_fixtures::fixture_text(std::string(trace_fixtures::kNsysDir) + "vllm_cuda_gpu_trace.csv"), "trace.csv");
  EXPECT_EQ(torch.source_format, "torch");
  EXPECT_EQ(torch.clock_domain, "unix");
  EXPECT_EQ(torch.unix_offset_ns, 0);
  const auto t = by_start(torch.events);
  const auto n = by_start(nsys.events);
  ASSERT_EQ(t.size(), 36u);  // 31 kernels + 4 memcpy + 1 memset; cpu_op, runtime, flows, metadata skipped
  ASSERT_EQ(t.size(), n.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].start_ns, n[i].start_ns + kSessionStartUnixNs) << i << " " << t[i].name;
    EXPECT_EQ(t[i].end_ns, n[i].end_ns + kSessionStartUnixNs) << i << " " << t[i].name;
    EXPECT_EQ(t[i].kind, n[i].kind) << t[i].name;
    EXPECT_EQ(t[i].correlation, n[i].correlation) << t[i].name;
    EXPECT_EQ(t[i].stream, 7);
    EXPECT_EQ(t[i].device, 0);
  }
  EXPECT_EQ(t[0].name, "Memcpy HtoD (Pinned -> Device)");
  EXPECT_EQ(t[0].bytes, 128);
}

TEST(TorchTrace, AcceptsStringPidsAndOldAbsoluteTimestamps) {
  const std::string old = R"({"traceEvents":[{"ph":"M","pid":"Spans","name":"process_name"},
    {"ph":"X","cat":"kernel","name":"k","pid":"1","tid":"3","ts":1700000000000001,"dur":2,"args":{}},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":99,"tid":99,"ts":1700000000000000,"dur":5}]})";
  const KernelTrace t = parse_torch_trace(old, "old.json");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].start_ns, 1'700'000'000'000'001'000);
  EXPECT_EQ(t.events[0].duration_ns(), 2000);
  EXPECT_EQ(t.events[0].device, 1);
  EXPECT_EQ(t.events[0].stream, 3);
  EXPECT_EQ(t.clock_domain, "unix");

  const KernelTrace rel = parse_torch_trace(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":5.5,"dur":1}]})", "r.json");
  EXPECT_EQ(rel.clock_domain, "unknown");
  EXPECT_FALSE(rel.unix_offset_ns);
  EXPECT_EQ(rel.events[0].start_ns, 5500);
}

TEST(TorchTrace, GzipTruncatedAndMalformedInputAreOneLineErrors) {
  SB_REQUIRE_SHARED_FIXTURES();
  const std::string gz = trace_fixtures::fixture_text(std::string(trace_fixtures::kTorchFile) + ".gz");
  EXPECT_TRUE(is_gzip(gz));
  try {
    parse_torch_trace(gz, "t.json.gz");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "t.json.gz: gzip-compressed trace: decompress it first (gunzip -k)");
  }
  const std::string text = trace_fixtures::fixture_text(trace_fixtures::kTorchFile);
  for (std::size_t n = 0; n < text.size(); n += 997) {
    EXPECT_THROW(parse_torch_trace(text.substr(0, n), "cut.json"), UserError) << n;
  }
}

TEST(TorchTrace, MalformedEventsAreOneLineErrors) {
  EXPECT_THROW(parse_torch_trace(R"({"traceEvents":{}})", "x.json"), UserError);
  EXPECT_THROW(parse_torch_trace(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","dur":1}]})", "x.json"),
               UserError);
}

TEST(TorchTrace, Sniffing) {
  EXPECT_FALSE(looks_like_torch_trace("Start (ns),Duration (ns)"));
  EXPECT_FALSE(looks_like_torch_trace("{\"simulated\": true}"));
}

TEST(TorchTrace, SniffingTheSharedTrace) {
  SB_REQUIRE_SHARED_FIXTURES();
  EXPECT_TRUE(looks_like_torch_trace(trace_fixtures::fixture_text(trace_fixtures::kTorchFile).substr(0, 4096)));
}

// The project's own pair (tests/data/trace/authored/README.md): 18 GPU operations of one decode step on
// device 1, stream 13; the nsys session started at Unix 1 760 000 100 s, the torch base time is
// 1 760 000 000 s, so torch ts = 100 s + nsys ns, in us with 3 decimals.
constexpr std::int64_t kOwnSessionStartUnixNs = 1'760'000'100'000'000'000;

TEST(TorchTrace, OwnSampleMatchesTheNsysViewOfTheSameStepToTheNanosecond) {
  const KernelTrace torch = parse_torch_trace(trace_fixtures::authored_text(trace_fixtures::kOwnTorchFile), "rank1.pt.trace.json");
  const KernelTrace nsys =
      parse_nsys_gpu_trace(trace_fixtures::own_text(trace_fixtures::kOwnNsysDir, "sbtest_cuda_gpu_trace.csv"), "trace.csv");
  EXPECT_EQ(torch.source_format, "torch");
  EXPECT_EQ(torch.clock_domain, "unix");
  EXPECT_EQ(torch.unix_offset_ns, 0);
  const auto t = by_start(torch.events);
  const auto n = by_start(nsys.events);
  // 14 kernels + 3 memcpy + 1 memset; metadata, cpu_op, user_annotation, runtime/driver, flows and the
  // window-end instant are skipped.
  ASSERT_EQ(t.size(), 18u);
  ASSERT_EQ(t.size(), n.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].start_ns, n[i].start_ns + kOwnSessionStartUnixNs) << i << " " << t[i].name;
    EXPECT_EQ(t[i].end_ns, n[i].end_ns + kOwnSessionStartUnixNs) << i << " " << t[i].name;
    EXPECT_EQ(t[i].kind, n[i].kind) << t[i].name;
    EXPECT_EQ(t[i].correlation, n[i].correlation) << t[i].name;
    EXPECT_EQ(t[i].stream, 13);
    EXPECT_EQ(t[i].device, 1);
  }
  EXPECT_EQ(t[0].name, "Memcpy HtoD (Pinned -> Device)");
  EXPECT_EQ(t[0].start_ns, 1'760'000'103'000'000'000);  // ts 103000000.000 us past the base time
  EXPECT_EQ(t[0].duration_ns(), 1500);
  EXPECT_EQ(t[0].bytes, 524'288);
  EXPECT_EQ(t[2].kind, OpKind::memset);
  EXPECT_EQ(t[2].bytes, 4096);
  EXPECT_EQ(t[3].bytes, -1);  // kernels carry no size
  EXPECT_EQ(t[3].name, "void sbtest::fill_kernel<4, int>(int*, int, int)");
  EXPECT_EQ(t[4].start_ns, 1'760'000'103'000'020'800);  // ts 103000020.800: the fraction is kept exactly
  EXPECT_EQ(t.back().name, "Memcpy DtoH (Device -> Pageable)");
  EXPECT_EQ(std::count_if(t.begin(), t.end(), [](auto& e) { return e.correlation == 9010; }), 11);
}

TEST(TorchTrace, OwnSampleGzipAndTruncatedInputAreOneLineErrors) {
  const std::string gz = trace_fixtures::authored_text(std::string(trace_fixtures::kOwnTorchFile) + ".gz");
  EXPECT_TRUE(is_gzip(gz));
  try {
    parse_torch_trace(gz, "t.json.gz");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "t.json.gz: gzip-compressed trace: decompress it first (gunzip -k)");
  }
  const std::string text = trace_fixtures::authored_text(trace_fixtures::kOwnTorchFile);
  for (std::size_t n = 0; n < text.size(); n += 997) {
    EXPECT_THROW(parse_torch_trace(text.substr(0, n), "cut.json"), UserError) << n;
  }
  EXPECT_EQ(parse_torch_trace(text, "whole.json").events.size(), 18u);  // only the cuts fail
}

TEST(TorchTrace, OwnSampleSniffing) {
  EXPECT_TRUE(looks_like_torch_trace(trace_fixtures::authored_text(trace_fixtures::kOwnTorchFile).substr(0, 4096)));
  EXPECT_FALSE(looks_like_torch_trace(trace_fixtures::own_text(trace_fixtures::kOwnV1Dir, "results.json").substr(0, 4096)));
}

}  // namespace
}  // namespace sb::trace
