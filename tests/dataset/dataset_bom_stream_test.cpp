// Dataset files as users have them: a UTF-8 byte order mark at the start (Windows editors), and
// JSONL files far larger than the prompts a run takes (read in a streamed pass whose pages are
// given back as it goes, src/dataset/source_file.cpp, custom_dataset.cpp).
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "dataset/dataset.hpp"
#include "dataset/source_file.hpp"

namespace sb {
namespace {

const std::string kBom = "\xEF\xBB\xBF";

struct BomTempFile {
  std::string path;
  BomTempFile(const std::string& name, const std::string& text)
      : path(::testing::TempDir() + "sb_ds_bom_" + std::to_string(::getpid()) + "_" + name) {
    std::ofstream(path, std::ios::binary) << text;
  }
  ~BomTempFile() { std::filesystem::remove(path); }
};

TEST(DatasetBom, PaddedFileTextStartsAfterTheMark) {
  const BomTempFile f("marked.json", kBom + "[1]");
  const dataset::PaddedFile file = dataset::PaddedFile::open(f.path);
  EXPECT_EQ(file.text(), "[1]");
  simdjson::ondemand::parser parser;
  auto doc = parser.iterate(file.slice(0, file.text().size()));
  simdjson::ondemand::array arr = doc.get_array();
  EXPECT_EQ(arr.count_elements().value(), 1u);
}

TEST(DatasetBom, MarkOnlyInTheMiddleIsKept) {
  const BomTempFile f("middle.json", "a" + kBom);
  EXPECT_EQ(dataset::PaddedFile::open(f.path).text(), "a" + kBom);
}

TEST(DatasetBom, CustomJsonlWithAMarkIsAccepted) {
  const BomTempFile f("marked.jsonl", kBom + "{\"prompt\": \"one\"}\n{\"prompt\": \"two\"}\n");
  DatasetConfig cfg;
  cfg.name = "custom";
  cfg.path = f.path;
  cfg.num_prompts = 0;  // every row
  cfg.disable_shuffle = true;
  const Dataset ds = load_dataset(cfg, nullptr);
  ASSERT_EQ(ds.requests.size(), 2u);
  EXPECT_EQ(ds.requests[0].prompt, "one");
  EXPECT_EQ(ds.requests[1].prompt, "two");
}

TEST(DatasetBom, ShareGptJsonWithAMarkIsAccepted) {
  const BomTempFile f("marked_sharegpt.json",
                     kBom + R"([{"conversations": [{"from": "human", "value": "hello there, a prompt of forty bytes."},)"
                            R"( {"from": "gpt", "value": "a reply long enough to pass the filters"}]}])");
  DatasetConfig cfg;
  cfg.name = "sharegpt";
  cfg.path = f.path;
  cfg.num_prompts = 1;
  cfg.disable_shuffle = true;
  const Dataset ds = load_dataset(cfg, nullptr);
  ASSERT_EQ(ds.requests.size(), 1u);
  EXPECT_EQ(ds.requests[0].prompt, "hello there, a prompt of forty bytes.");
}

TEST(DatasetBom, DroppedPagesReadBackTheSameBytes) {
  const std::string text(3 * 4096 + 100, 'q');
  const BomTempFile f("pages.jsonl", text);
  const auto file = dataset::PaddedFile::open(f.path, dataset::PaddedFile::Access::streamed);
  file.drop_pages_before(2 * 4096 + 7);
  EXPECT_EQ(file.text(), text);
}

// 40 MB, past the 32 MB step at which the first pass gives pages back: rows on both sides of a
// drop are read again correctly, and the sample is the one the seed picks over all rows.
TEST(DatasetStream, LargeJsonlRowsSurviveThePagesBeingDropped) {
  const int rows = 100'000;
  std::string text;
  text.reserve(static_cast<std::size_t>(rows) * 420);
  for (int i = 0; i < rows; ++i)
    text += fmt::format("{{\"prompt\": \"row {:06d} {}\", \"output_tokens\": {}}}\n", i, std::string(380, 'p'),
                        i % 100 + 1);
  const BomTempFile f("large.jsonl", text);
  DatasetConfig cfg;
  cfg.name = "custom";
  cfg.path = f.path;
  cfg.custom_output_len = -1;
  cfg.num_prompts = 0;
  cfg.disable_shuffle = true;
  const Dataset all = load_dataset(cfg, nullptr);
  ASSERT_EQ(all.requests.size(), static_cast<std::size_t>(rows));
  for (int i : {0, 79'000, 80'500, rows - 1}) {
    EXPECT_EQ(all.requests[i].prompt.substr(0, 10), fmt::format("row {:06d}", i)) << i;
    EXPECT_EQ(all.requests[i].max_tokens, i % 100 + 1) << i;
  }
  cfg.disable_shuffle = false;
  cfg.num_prompts = 20;
  const Dataset sample = load_dataset(cfg, nullptr);
  ASSERT_EQ(sample.requests.size(), 20u);
  const int picked = std::stoi(sample.requests[0].prompt.substr(4, 6));
  EXPECT_EQ(sample.requests[0].max_tokens, picked % 100 + 1);
  EXPECT_EQ(load_dataset(cfg, nullptr).requests[19].prompt, sample.requests[19].prompt);  // seeded
}

}  // namespace
}  // namespace sb
