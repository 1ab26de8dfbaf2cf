#include "trace/csv.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::trace {
namespace {

bool first_cell_is_a(const CsvRow& row) { return !row.cells.empty() && row.cells[0] == "a"; }

TEST(Csv, SplitsQuotedFieldsWithCommasAndEscapedQuotes) {
  const auto rows = split_csv("a,\"x, y\",\"say \"\"hi\"\"\"\r\n1,2,3\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cells, (std::vector<std::string>{"a", "x, y", "say \"hi\""}));
  EXPECT_EQ(rows[1].cells, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(rows[1].line, 2u);
  EXPECT_TRUE(rows[1].complete);
}

TEST(Csv, KeepsLiteralQuotesInsideUnquotedFieldsAndEmptyCells) {
  const auto rows = split_csv("ab\"c,,\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].cells, (std::vector<std::string>{"ab\"c", "", ""}));
}

TEST(Csv, CountsLinesAcrossBlankLinesAndMarksThem) {
  const auto rows = split_csv("h\n\n\nx\ny");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].line, 4u);
  EXPECT_TRUE(rows[1].after_blank);
  EXPECT_FALSE(rows[2].after_blank);
  EXPECT_FALSE(rows[2].complete);  // no final newline
}

TEST(Csv, SkipsAUtf8ByteOrderMark) {
  const auto rows = split_csv("\xEF\xBB\xBF\"Name\",x\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].cells[0], "Name");
}

TEST(Csv, UnterminatedQuoteMarksTheRowIncomplete) {
  const auto rows = split_csv("a,b\n1,\"cut off");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[1].complete);
  EXPECT_EQ(rows[1].cells.back(), "cut off");
}

// Collects a table's data rows (and the cut-off line) the way the parsers walk them.
struct Collected {
  std::vector<CsvRow> rows;
  std::size_t cut_line = 0;
};
Collected collect(const CsvTable& t) {
  Collected c;
  c.cut_line = t.for_each_row([&](const CsvRow& row) { c.rows.push_back(row); });
  return c;
}

TEST(Csv, TableSkipsPreambleStopsAtBlankLineAndFindsColumnsIgnoringCase) {
  const auto t = read_csv_table("progress...\na,B\n1,2\n\nNOTICE: x\n", "f.csv", first_cell_is_a);
  ASSERT_TRUE(t);
  const Collected c = collect(*t);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(t->find("b"), 1u);
  EXPECT_EQ(t->int_at(c.rows[0], 1), 2);
  EXPECT_FALSE(t->find("c"));
  EXPECT_FALSE(read_csv_table("x,y\n", "f.csv", first_cell_is_a));
}

TEST(Csv, WrongCellCountIsAUserErrorNamingFileAndLine) {
  const auto t = read_csv_table("a,b\n1,2\n3\n4,5\n", "x.csv", first_cell_is_a);
  try {
    collect(*t);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "x.csv:3: expected 2 columns, found 1");
  }
}

TEST(Csv, CutOffLastRowIsDroppedAndReported) {
  const auto t = read_csv_table("a,b\n1,2\n3", "x.csv", first_cell_is_a);
  const Collected c = collect(*t);
  EXPECT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.cut_line, 3u);
  EXPECT_EQ(collect(*read_csv_table("a,b\n1,2\n3,4", "x.csv", first_cell_is_a)).cut_line, 0u);  // complete
}

TEST(Csv, RowBuffersAreReusedWithoutLeakingCellsBetweenRows) {
  CsvCursor cursor("a,b,c\nd\n\"e,f\",g\n");
  CsvRow row;
  ASSERT_TRUE(cursor.next(row));
  ASSERT_TRUE(cursor.next(row));
  EXPECT_EQ(row.cells, (std::vector<std::string>{"d"}));
  ASSERT_TRUE(cursor.next(row));
  EXPECT_EQ(row.cells, (std::vector<std::string>{"e,f", "g"}));
  EXPECT_FALSE(cursor.next(row));
}

TEST(Csv, BadNumbersNameTheColumn) {
  const auto t = read_csv_table("a,Start\n1,12x\n", "t.csv", first_cell_is_a);
  const Collected c = collect(*t);
  try {
    t->int_at(c.rows[0], 1);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2: column Start: bad integer '12x'");
  }
  EXPECT_THROW(t->require("End"), UserError);
}

TEST(Csv, SentinelsAreMissingValues) {
  for (const char* s : {"", "None", "N/A", "[N/A]", "[Not Supported]"}) EXPECT_TRUE(is_missing_cell(s)) << s;
  EXPECT_FALSE(is_missing_cell("0"));
  const auto t = read_csv_table("a,n\n1,None\n", "t.csv", first_cell_is_a);
  EXPECT_FALSE(t->optional_int_at(collect(*t).rows[0], 1));
}

}  // namespace
}  // namespace sb::trace
