#include "trace/parse_util.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::trace {
namespace {

CsvRow row_of(std::string_view line) { return split_csv(line).front(); }

TEST(ParseUtil, TrailingNumberReadsAgentAndDeviceSpellings) {
  EXPECT_EQ(trailing_number("Agent 2"), 2);
  EXPECT_EQ(trailing_number("GPU 0"), 0);
  EXPECT_EQ(trailing_number("17"), 17);
  EXPECT_EQ(trailing_number("NVIDIA H100 80GB HBM3 (1)"), 1);
  EXPECT_EQ(trailing_number("NVIDIA H100 80GB HBM3 (simulated) (3)"), 3);
  EXPECT_FALSE(trailing_number("Agent"));
  EXPECT_FALSE(trailing_number(""));
}

TEST(ParseUtil, HeaderHelpersIgnoreCase) {
  const CsvRow h = row_of("\"Start (us)\",Duration (us),name\n");
  EXPECT_EQ(find_prefixed(h, "start ("), 0u);
  EXPECT_EQ(find_prefixed(h, "Duration ("), 1u);
  EXPECT_FALSE(find_prefixed(h, "Bytes ("));
  EXPECT_TRUE(has_cells(h, {"Name", "START (US)"}));
  EXPECT_FALSE(has_cells(h, {"Name", "CorrId"}));
  EXPECT_TRUE(first_row_is("a,b\nc", [](const CsvRow& r) { return r.cells.size() == 2; }));
}

TEST(ParseUtil, TraceBookkeeping) {
  KernelTrace t = make_trace("nsys", kClockNsysSession, "x.csv");
  EXPECT_EQ(t.files, std::vector<std::string>{"x.csv"});
  note_cut_off(t, "x.csv", 0);
  EXPECT_TRUE(t.warnings.empty());
  note_cut_off(t, "x.csv", 9);
  EXPECT_EQ(t.warnings, std::vector<std::string>{"x.csv:9: last row cut off (file truncated?), ignored"});

  const auto table = read_csv_table("a,b\n5,3\n", "x.csv", [](const CsvRow&) { return true; });
  table->for_each_row([&](const CsvRow& row) {
    KernelEvent e;
    e.start_ns = table->int_at(row, 0);
    e.end_ns = table->int_at(row, 1);
    try {
      check_interval(*table, row, e);
      FAIL() << "no error";
    } catch (const UserError& err) {
      EXPECT_STREQ(err.what(), "x.csv:2: end 3 before start 5");
    }
  });
  EXPECT_EQ(op_kind_name(OpKind::memset), "memset");
  EXPECT_EQ(op_kind_name(OpKind::kernel), "kernel");
  KernelEvent k;
  k.start_ns = 10;
  k.end_ns = 25;
  EXPECT_EQ(k.duration_ns(), 15);
}

}  // namespace
}  // namespace sb::trace
