#include "trace/rocprof_v1.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fixtures.hpp"

namespace sb::trace {
namespace {

using testing::fixture_text;
using testing::kV1Dir;

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
  // REAL file: rocprof -i input.txt without --stats / --timestamp on.
  const std::string text = fixture_text(std::string(testing::kV1Real) + "output_vec_add_gpu.csv");
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
  EXPECT_TRUE(is_rocprof_v1_header(v1("results.csv")));
  EXPECT_TRUE(is_rocprof_v1_header(v1("results_timestamp_only.csv")));
  EXPECT_FALSE(is_rocprof_v1_header(v1("results.stats.csv")));
}

}  // namespace
}  // namespace sb::trace
