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

TEST(Csv, TableSkipsPreambleStopsAtBlankLineAndFindsColumnsIgnoringCase) {
  const CsvParse p = read_csv_table("progress...\na,B\n1,2\n\nNOTICE: x\n", "f.csv", first_cell_is_a);
  ASSERT_TRUE(p.table);
  EXPECT_EQ(p.table->rows().size(), 1u);
  EXPECT_EQ(p.table->find("b"), 1u);
  EXPECT_EQ(p.table->int_at(p.table->rows()[0], 1), 2);
  EXPECT_FALSE(p.table->find("c"));
}

TEST(Csv, WrongCellCountIsAUserErrorNamingFileAndLine) {
  try {
    read_csv_table("a,b\n1,2\n3\n4,5\n", "x.csv", first_cell_is_a);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "x.csv:3: expected 2 columns, found 1");
  }
}

TEST(Csv, CutOffLastRowIsDroppedAndReported) {
  const CsvParse p = read_csv_table("a,b\n1,2\n3", "x.csv", first_cell_is_a);
  ASSERT_TRUE(p.table);
  EXPECT_EQ(p.table->rows().size(), 1u);
  EXPECT_EQ(p.truncated_line, 3u);
}

TEST(Csv, BadNumbersNameTheColumn) {
  const CsvParse p = read_csv_table("a,Start\n1,12x\n", "t.csv", first_cell_is_a);
  try {
    p.table->int_at(p.table->rows()[0], 1);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2: column Start: bad integer '12x'");
  }
  EXPECT_THROW(p.table->require("End"), UserError);
}

TEST(Csv, SentinelsAreMissingValues) {
  for (const char* s : {"", "None", "N/A", "[N/A]", "[Not Supported]"}) EXPECT_TRUE(is_missing_cell(s)) << s;
  EXPECT_FALSE(is_missing_cell("0"));
  const CsvParse p = read_csv_table("a,n\n1,None\n", "t.csv", first_cell_is_a);
  EXPECT_FALSE(p.table->optional_int_at(p.table->rows()[0], 1));
}

}  // namespace
}  // namespace sb::trace
