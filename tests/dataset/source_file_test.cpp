#include "dataset/source_file.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::dataset {
namespace {

TEST(SourceFile, LineOfOffsetCountsNewlinesBefore) {
  const std::string_view text = "ab\ncd\n\nef";
  EXPECT_EQ(line_of_offset(text, 0), 1u);
  EXPECT_EQ(line_of_offset(text, 2), 1u);  // the '\\n' itself is still on line 1
  EXPECT_EQ(line_of_offset(text, 3), 2u);
  EXPECT_EQ(line_of_offset(text, 7), 4u);
  EXPECT_EQ(line_of_offset(text, 999), 4u);  // clamped to the end
}

TEST(SourceFile, ReadsFixtureWithPadding) {
  auto file = PaddedFile::open(std::string(SB_SOURCE_DIR) + "/tests/data/dataset/custom_missing_output.jsonl");
  EXPECT_EQ(file.text(),
            "{\"prompt\": \"fine\", \"output_tokens\": 10}\n{\"prompt\": \"no length here\"}\n");
  // A slice in the middle parses in place: the rest of the buffer serves as padding.
  simdjson::ondemand::parser parser;
  auto doc = parser.iterate(file.slice(40, 28));
  EXPECT_EQ(std::string_view(doc["prompt"].get_string()), "no length here");
}

TEST(SourceFile, EmptyFileAndMovesKeepValidViews) {
  const std::string path = ::testing::TempDir() + "sb_ds_empty_" + std::to_string(::getpid()) + ".json";
  { std::ofstream touch(path); }
  PaddedFile empty = PaddedFile::open(path);
  std::filesystem::remove(path);  // the open file stays readable
  EXPECT_TRUE(empty.text().empty());
  simdjson::ondemand::parser parser;
  EXPECT_EQ(parser.iterate(empty.slice(0, 0)).error(), simdjson::EMPTY);  // padded, so no crash
  PaddedFile moved = PaddedFile::open(std::string(SB_SOURCE_DIR) + "/tests/data/dataset/custom_small.jsonl");
  moved = std::move(empty);
  EXPECT_TRUE(moved.text().empty());
}

TEST(SourceFile, DirectoryIsNotADataset) {
  try {
    PaddedFile::open(SB_SOURCE_DIR);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("--dataset-path: {}: not a regular file", SB_SOURCE_DIR));
  }
}

TEST(SourceFile, MissingFileNamesTheFlagAndPath) {
  try {
    PaddedFile::open("/nonexistent/x.json");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "--dataset-path: /nonexistent/x.json: no such file");
  }
}

}  // namespace
}  // namespace sb::dataset
