// Custom JSONL loader through load_dataset() on fixture files (byte tokenizer: tokens = bytes+1).
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "dataset/dataset.hpp"
#include "dataset/fake_tokenizer.hpp"

namespace sb {
namespace {

const std::string kCustomData = std::string(SB_SOURCE_DIR) + "/tests/data/dataset/";

DatasetConfig custom(const std::string& file, int num_prompts) {
  DatasetConfig cfg;
  cfg.name = "custom";
  cfg.path = kCustomData + file;
  cfg.num_prompts = num_prompts;
  return cfg;
}

std::string custom_error_of(const DatasetConfig& cfg) {
  try {
    load_dataset(cfg, nullptr);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Custom, ReadsEveryRowInFileOrderWithPerRowOutputLengths) {
  dataset::ByteTokenizer tok;
  auto cfg = custom("custom_small.jsonl", 0);  // <= 0: all rows
  cfg.disable_shuffle = true;
  cfg.custom_output_len = -1;
  cfg.request_id_prefix = "row-";
  Dataset ds = load_dataset(cfg, &tok);
  ASSERT_EQ(ds.requests.size(), 4u);
  EXPECT_EQ(ds.requests[0].prompt, "first prompt");
  EXPECT_EQ(ds.requests[0].prompt_tokens, 13);
  EXPECT_EQ(ds.requests[1].prompt, "second \"quoted\"");
  EXPECT_EQ(ds.requests[2].prompt, "third");
  EXPECT_EQ(ds.requests[2].max_tokens, 30);
  EXPECT_EQ(ds.requests[3].max_tokens, 40);
  EXPECT_EQ(ds.requests[3].request_id, "row-3");
  EXPECT_TRUE(ds.lengths_exact);
}

TEST(Custom, FixedOutputLengthAndNoTokenizerLeavesPromptTokensUnknown) {
  auto cfg = custom("custom_small.jsonl", 2);
  cfg.custom_output_len = 64;
  Dataset ds = load_dataset(cfg, nullptr);
  ASSERT_EQ(ds.requests.size(), 2u);
  for (const auto& r : ds.requests) {
    EXPECT_EQ(r.max_tokens, 64);
    EXPECT_EQ(r.prompt_tokens, -1);
  }
  EXPECT_FALSE(ds.lengths_exact);
}

TEST(Custom, ShuffleIsSeededAndOversamplingFillsUp) {
  auto cfg = custom("custom_small.jsonl", 10);
  cfg.seed = 4;
  Dataset a = load_dataset(cfg, nullptr);
  Dataset b = load_dataset(cfg, nullptr);
  ASSERT_EQ(a.requests.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(a.requests[i].prompt, b.requests[i].prompt);
  EXPECT_EQ(a.requests[9].request_id, "bench-9");
  std::string first4;
  for (std::size_t i = 0; i < 4; ++i) first4 += a.requests[i].prompt.substr(0, 2);
  EXPECT_NE(first4, "fisethfo");  // shuffled, not file order
}

TEST(Custom, MalformedLineIsReportedWithItsLineNumber) {
  const std::string e = custom_error_of(custom("custom_malformed.jsonl", 0));
  EXPECT_EQ(e.rfind(kCustomData + "custom_malformed.jsonl:3: malformed JSON (", 0), 0u) << e;
}

TEST(Custom, WrongFieldTypesNameTheField) {
  const std::string path = ::testing::TempDir() + "sb_ds_types_" + std::to_string(::getpid()) + ".jsonl";
  {
    std::ofstream out(path);
    out << "{\"prompt\": \"ok\", \"output_tokens\": null}\n"
        << "{\"prompt\": \"x\", \"output_tokens\": 1.5}\n";
  }
  DatasetConfig cfg = custom("", 0);
  cfg.path = path;
  const std::string e = custom_error_of(cfg);
  std::filesystem::remove(path);
  EXPECT_EQ(e, path + ":2: \"output_tokens\" must be a positive integer");
  { std::ofstream(path) << "{\"prompt\": [\"not\", \"text\"]}\n"; }
  const std::string e2 = custom_error_of(cfg);
  std::filesystem::remove(path);
  EXPECT_EQ(e2, path + ":1: \"prompt\" must be a string");
}

TEST(Custom, PerRowOutputNeedsOutputTokensInEveryRow) {
  auto cfg = custom("custom_missing_output.jsonl", 0);
  cfg.custom_output_len = -1;
  EXPECT_EQ(custom_error_of(cfg), kCustomData +
                                      "custom_missing_output.jsonl:2: --custom-output-len -1 needs "
                                      "\"output_tokens\" in every row");
}

TEST(Custom, RejectsNonJsonlPathAndBadOutputLength) {
  EXPECT_NE(custom_error_of(custom("sharegpt_small.json", 0)).find(".jsonl"), std::string::npos);
  auto cfg = custom("custom_small.jsonl", 0);
  cfg.custom_output_len = 0;
  EXPECT_EQ(custom_error_of(cfg), "custom_output_len: must be > 0 or -1");
}

}  // namespace
}  // namespace sb
