#include "trace/rocprof_v1.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

using trace_fixtures::fixture_text;
using trace_fixtures::kV1Dir;

std::string v1(std::string_view file) { return fixture_text(std::string(kV1Dir) + std::string(file)); }

std::string v1_error_of(std::string_view text) {
  try {
    parse_rocprof_v1_csv(text, "results.csv");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RocprofV1, ParsesTheSqliteFlavourWithQuotedNamesHoldingCommas) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelTrace t = parse_rocprof_v1_csv(v1("results.csv"), "results.csv");
  EXPECT_EQ(t.source_format, "rocprof_v1");
  EXPECT_EQ(t.clock_domain, "CLOCK_BOOTTIME");
  ASSERT_EQ(t.events.size(), 35u);
  const KernelEvent& first = t.events.front();
  EXPECT_EQ(first.name,
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::array<char*, 1ul> "
            ">(int, at::native::FillFunctor<int>, std::array<char*, 1ul>) [clone .kd]");
  EXPECT_EQ(first.start_ns, 276480512569240);
  EXPECT_EQ(first.end_ns, 276480512571110);
  EXPECT_EQ(first.pid, 48213);
  EXPECT_EQ(first.device, 0);
  EXPECT_EQ(first.queue, 0);
  EXPECT_EQ(first.kind, OpKind::kernel);
  EXPECT_EQ(t.events.back().name, "__amd_rocclr_fillBufferAligned.kd");
  EXPECT_EQ(t.events.back().duration_ns(), 1904);
  EXPECT_FALSE(t.simulated);
  EXPECT_TRUE(t.warnings.empty());
}

TEST(RocprofV1, PlainFlavourWithoutDurationMatchesTheSqliteOne) {
  SB_REQUIRE_SHARED_FIXTURES();
  const KernelTrace full = parse_rocprof_v1_csv(v1("results.csv"), "results.csv");
  const KernelTrace plain = parse_rocprof_v1_csv(v1("results_timestamp_only.csv"), "ts.csv");
  ASSERT_EQ(plain.events.size(), 8u);
  for (std::size_t i = 0; i < plain.events.size(); ++i) {
    EXPECT_EQ(plain.events[i].name, full.events[i].name);
    EXPECT_EQ(plain.events[i].start_ns, full.events[i].start_ns);
    EXPECT_EQ(plain.events[i].end_ns, full.events[i].end_ns);
  }
}

TEST(RocprofV1, CounterOnlyRunWithoutTimestampsIsRefusedWithAHint) {
  SB_REQUIRE_SHARED_FIXTURES();
  // REAL file: rocprof -i input.txt without --stats / --timestamp on.
  const std::string text = fixture_text(std::string(trace_fixtures::kV1Real) + "output_vec_add_gpu.csv");
  EXPECT_EQ(v1_error_of(text), "results.csv:1: no BeginNs/EndNs columns: rerun rocprof with --timestamp on or --stats");
}

TEST(RocprofV1, MalformedRowsNameFileAndLine) {
  const std::string header = "Index,KernelName,gpu-id,queue-id,pid,BeginNs,EndNs\n";
  EXPECT_EQ(v1_error_of(header + "0,\"k\",0,0,1,100,200\n1,\"k\",0,0,1,1x0,200\n"),
            "results.csv:3: column BeginNs: bad integer '1x0'");
  EXPECT_EQ(v1_error_of(header + "0,\"k\",0,0,1,300,200\n"), "results.csv:2: end 200 before start 300");
  EXPECT_EQ(v1_error_of(header + "0,\"k\",0,0\n0,\"k\",0,0,1,100,200\n"), "results.csv:2: expected 7 columns, found 4");
  EXPECT_EQ(v1_error_of("just some text\n"), "results.csv: not a rocprof results.csv (no KernelName,gpu-id header)");
}

TEST(RocprofV1, TruncatedFilesKeepTheCompleteRowsAndNeverCrash) {
  SB_REQUIRE_SHARED_FIXTURES();
  const std::string text = v1("results.csv");
  const KernelTrace cut = parse_rocprof_v1_csv(text.substr(0, text.size() - 40), "results.csv");
  EXPECT_EQ(cut.events.size(), 34u);
  ASSERT_EQ(cut.warnings.size(), 1u);
  EXPECT_EQ(cut.warnings[0], "results.csv:36: last row cut off (file truncated?), ignored");
  // Cut anywhere: either a trace or a one-line UserError.
  for (std::size_t n = 0; n < text.size(); n += 13) {
    try {
      const KernelTrace t = parse_rocprof_v1_csv(text.substr(0, n), "results.csv");
      EXPECT_LE(t.events.size(), 35u);
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(RocprofV1, DetectsItsHeaderInBothFlavours) {
  SB_REQUIRE_SHARED_FIXTURES();
  EXPECT_TRUE(is_rocprof_v1_header(v1("results.csv")));
  EXPECT_TRUE(is_rocprof_v1_header(v1("results_timestamp_only.csv")));
  EXPECT_FALSE(is_rocprof_v1_header(v1("results.stats.csv")));
}

// The same checks on the project's own sample (tests/data/trace/authored/README.md): 14 dispatches,
// 400 ns apart, durations summing to 100 000 ns, first BeginNs 93 600 000 001 000.
std::string own_v1(std::string_view file) { return trace_fixtures::own_text(trace_fixtures::kOwnV1Dir, file); }

TEST(RocprofV1, OwnSampleSqliteFlavourKnownAnswers) {
  const KernelTrace t = parse_rocprof_v1_csv(own_v1("results.csv"), "results.csv");
  EXPECT_EQ(t.source_format, "rocprof_v1");
  EXPECT_EQ(t.clock_domain, "CLOCK_BOOTTIME");
  ASSERT_EQ(t.events.size(), 14u);
  const KernelEvent& first = t.events.front();
  EXPECT_EQ(first.name, "__amd_rocclr_fillBufferAligned.kd");
  EXPECT_EQ(first.start_ns, 93'600'000'001'000);
  EXPECT_EQ(first.end_ns, 93'600'000'002'000);
  EXPECT_EQ(first.device, 1);
  EXPECT_EQ(first.queue, 2);
  EXPECT_EQ(first.stream, 2);  // no streams in v1: the queue stands in
  EXPECT_EQ(first.pid, 7301);
  EXPECT_EQ(first.kind, OpKind::kernel);
  EXPECT_EQ(t.events[2].name,
            "void sbtest::rms_norm_kernel<__hip_bfloat16, 4>(__hip_bfloat16*, __hip_bfloat16 const*, float, int) "
            "[clone .kd]");
  EXPECT_EQ(t.events[2].start_ns, 93'600'000'004'800);  // 1000 + 400 + 2000 + 400 after the first begin
  EXPECT_EQ(t.events[2].duration_ns(), 3000);
  // 13 gaps of 400 ns after the first begin, plus the 100 000 ns of kernels.
  EXPECT_EQ(t.events.back().end_ns, 93'600'000'001'000 + 100'000 + 13 * 400);
  EXPECT_EQ(t.events.back().name, "void sbtest::argmax_kernel<float, 256>(float const*, long*, int) [clone .kd]");
  std::int64_t total = 0;
  for (const KernelEvent& e : t.events) total += e.duration_ns();
  EXPECT_EQ(total, 100'000);
  EXPECT_FALSE(t.simulated);
  EXPECT_TRUE(t.warnings.empty());
}

TEST(RocprofV1, OwnSamplePlainFlavourMatchesTheSqliteOne) {
  const KernelTrace full = parse_rocprof_v1_csv(own_v1("results.csv"), "results.csv");
  const KernelTrace plain = parse_rocprof_v1_csv(own_v1("results_timestamp_only.csv"), "ts.csv");
  ASSERT_EQ(plain.events.size(), 6u);
  for (std::size_t i = 0; i < plain.events.size(); ++i) {
    EXPECT_EQ(plain.events[i].name, full.events[i].name);
    EXPECT_EQ(plain.events[i].start_ns, full.events[i].start_ns);
    EXPECT_EQ(plain.events[i].end_ns, full.events[i].end_ns);
    EXPECT_EQ(plain.events[i].device, 1);
  }
  EXPECT_EQ(plain.events[5].duration_ns(), 10'499);  // the attention kernel, from BeginNs/EndNs alone
}

TEST(RocprofV1, OwnCounterOnlyRunIsRefusedWithAHint) {
  const std::string text = trace_fixtures::own_text(trace_fixtures::kOwnV1Hip, "output_saxpy.csv");
  EXPECT_EQ(v1_error_of(text), "results.csv:1: no BeginNs/EndNs columns: rerun rocprof with --timestamp on or --stats");
}

TEST(RocprofV1, OwnSampleTruncatedKeepsTheCompleteRowsAndNeverCrashes) {
  const std::string text = own_v1("results.csv");
  // 25 bytes off the end cuts into the last row (line 15: the header, then 14 rows).
  const KernelTrace cut = parse_rocprof_v1_csv(text.substr(0, text.size() - 25), "results.csv");
  EXPECT_EQ(cut.events.size(), 13u);
  ASSERT_EQ(cut.warnings.size(), 1u);
  EXPECT_EQ(cut.warnings[0], "results.csv:15: last row cut off (file truncated?), ignored");
  for (std::size_t n = 0; n < text.size(); n += 13) {
    try {
      EXPECT_LE(parse_rocprof_v1_csv(text.substr(0, n), "results.csv").events.size(), 14u);
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(RocprofV1, OwnSampleHeadersInBothFlavours) {
  EXPECT_TRUE(is_rocprof_v1_header(own_v1("results.csv")));
  EXPECT_TRUE(is_rocprof_v1_header(own_v1("results_timestamp_only.csv")));
  EXPECT_FALSE(is_rocprof_v1_header(own_v1("results.stats.csv")));
}

}  // namespace
}  // namespace sb::trace
