// ShareGPT loader through load_dataset() on fixture files, with a byte tokenizer (count = bytes+1).
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "dataset/dataset.hpp"
#include "dataset/fake_tokenizer.hpp"
#include "support/test_paths.hpp"

namespace sb {
namespace {

const std::string kShareGptData = std::string(SB_SOURCE_DIR) + "/tests/data/dataset/";

DatasetConfig sharegpt(const std::string& path, int num_prompts) {
  DatasetConfig cfg;
  cfg.name = "sharegpt";
  cfg.path = path;
  cfg.num_prompts = num_prompts;
  return cfg;
}

struct Turns {
  std::size_t prompt_bytes;
  std::size_t completion_bytes;
};

// Writes a ShareGPT file whose entry i has prompt/completion of the given byte lengths (letters
// differ per entry so tests can tell entries apart). Byte tokenizer: tokens = bytes + 1.
// Removed when the test ends.
struct TempFile {
  std::string path;
  ~TempFile() { std::filesystem::remove(path); }
};

TempFile write_generated(const std::string& name, const std::vector<Turns>& entries) {
  // Per-process names: several build trees may run this suite at the same time.
  const std::string path = ::testing::TempDir() + "sb_ds_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream out(path);
  out << "[\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const char letter = static_cast<char>('a' + i);
    out << (i ? ",\n" : "") << R"({"conversations": [{"from": "human", "value": ")"
        << std::string(entries[i].prompt_bytes, letter) << R"("}, {"from": "gpt", "value": ")"
        << std::string(entries[i].completion_bytes, letter) << R"("}]})";
  }
  out << "\n]\n";
  return {path};
}

TEST(ShareGpt, TakesFirstTwoTurnsInFileOrderWithExactCounts) {
  dataset::ByteTokenizer tok;
  auto cfg = sharegpt(kShareGptData + "sharegpt_small.json", 2);
  cfg.disable_shuffle = true;
  Dataset ds = load_dataset(cfg, &tok);
  ASSERT_EQ(ds.requests.size(), 2u);
  EXPECT_EQ(ds.requests[0].prompt, "Hello there");
  EXPECT_EQ(ds.requests[0].prompt_tokens, 12);
  EXPECT_EQ(ds.requests[0].max_tokens, 16);
  EXPECT_EQ(ds.requests[0].request_id, "bench-0");
  EXPECT_EQ(ds.requests[1].prompt, "Quote \"this\"\nplease");
  EXPECT_EQ(ds.requests[1].prompt_tokens, 20);
  EXPECT_EQ(ds.requests[1].max_tokens, 12);  // "Sure: été" is 11 bytes
  EXPECT_EQ(ds.requests[1].request_id, "bench-1");
  EXPECT_TRUE(ds.lengths_exact);
  EXPECT_TRUE(ds.warnings.empty());
  EXPECT_GT(ds.load_seconds, 0.0);
}

TEST(ShareGpt, OversamplesWhenTooFewPassTheFilters) {
  dataset::ByteTokenizer tok;
  auto cfg = sharegpt(kShareGptData + "sharegpt_small.json", 5);
  Dataset ds = load_dataset(cfg, &tok);
  ASSERT_EQ(ds.requests.size(), 5u);  // only 2 of 4 usable entries pass
  for (const auto& r : ds.requests) {
    EXPECT_TRUE(r.prompt == "Hello there" || r.prompt == "Quote \"this\"\nplease") << r.prompt;
  }
  EXPECT_EQ(ds.requests[4].request_id, "bench-4");
  ASSERT_EQ(ds.warnings.size(), 1u);
}

TEST(ShareGpt, FixedOutputLengthSkipsTheShortOutputFilter) {
  dataset::ByteTokenizer tok;
  auto cfg = sharegpt(kShareGptData + "sharegpt_small.json", 3);
  cfg.disable_shuffle = true;
  cfg.sharegpt_output_len = 100;
  Dataset ds = load_dataset(cfg, &tok);
  ASSERT_EQ(ds.requests.size(), 3u);
  EXPECT_EQ(ds.requests[2].prompt, "Short answer");
  for (const auto& r : ds.requests) EXPECT_EQ(r.max_tokens, 100);
  EXPECT_TRUE(ds.warnings.empty());
}

TEST(ShareGpt, FiltersAtTheExactThresholds) {
  dataset::ByteTokenizer tok;
  // tokens = bytes + 1: prompt 3|4, output 3|4, prompt 1024|1025, total 2048|2049.
  const TempFile file = write_generated("thresholds.json", {
      {2, 10},     // a: prompt 3 -> drop
      {3, 10},     // b: prompt 4 -> keep
      {10, 2},     // c: output 3 -> drop
      {10, 3},     // d: output 4 -> keep
      {1023, 10},  // e: prompt 1024 -> keep
      {1024, 10},  // f: prompt 1025 -> drop
      {999, 1047}, // g: 1000 + 1048 = 2048 -> keep
      {999, 1048}, // h: 1000 + 1049 = 2049 -> drop
  });
  auto cfg = sharegpt(file.path, 100);
  cfg.disable_shuffle = true;
  cfg.no_oversample = true;
  Dataset ds = load_dataset(cfg, &tok);
  std::string kept;
  for (const auto& r : ds.requests) kept += r.prompt.front();
  EXPECT_EQ(kept, "bdeg");
  EXPECT_EQ(ds.requests[3].prompt_tokens + ds.requests[3].max_tokens, 2048);
}

TEST(ShareGpt, ShuffleIsSeededAndWalksUntilEnoughAccepted) {
  dataset::ByteTokenizer tok;
  std::vector<Turns> many(20, Turns{5, 5});
  const TempFile file = write_generated("many.json", many);
  auto cfg = sharegpt(file.path, 6);
  cfg.seed = 1;
  Dataset a = load_dataset(cfg, &tok);
  Dataset b = load_dataset(cfg, &tok);
  cfg.seed = 2;
  Dataset c = load_dataset(cfg, &tok);
  std::string order_a, order_b, order_c;
  for (std::size_t i = 0; i < 6; ++i) {
    order_a += a.requests[i].prompt.front();
    order_b += b.requests[i].prompt.front();
    order_c += c.requests[i].prompt.front();
  }
  EXPECT_EQ(order_a, order_b);
  EXPECT_NE(order_a, order_c);
  EXPECT_NE(order_a, "abcdef");
}

TEST(ShareGpt, WithoutTokenizerCountsBytesOverFourAndWarns) {
  // "a" entry: ceil(12/4) = 3 prompt tokens -> filtered; "b": ceil(40/4), ceil(17/4).
  const TempFile file = write_generated("approx.json", {{12, 40}, {40, 17}});
  auto cfg = sharegpt(file.path, 1);
  cfg.disable_shuffle = true;
  Dataset ds = load_dataset(cfg, nullptr);
  ASSERT_EQ(ds.requests.size(), 1u);
  EXPECT_EQ(ds.requests[0].prompt, std::string(40, 'b'));
  EXPECT_EQ(ds.requests[0].prompt_tokens, 10);
  EXPECT_EQ(ds.requests[0].max_tokens, 5);
  EXPECT_FALSE(ds.lengths_exact);
  ASSERT_EQ(ds.warnings.size(), 1u);
  EXPECT_NE(ds.warnings[0].find("approximate"), std::string::npos);
}

TEST(ShareGpt, MalformedEntryNamesFileAndLine) {
  dataset::ByteTokenizer tok;
  const std::string path = kShareGptData + "sharegpt_malformed.json";
  try {
    load_dataset(sharegpt(path, 2), &tok);  // entry b is only parsed fully when walked
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":3: expected {\"conversations\"", 0), 0u) << e.what();
  }
}

// Counts from the official HF `tokenizers` (Node binding, addSpecialTokens: true) on the fixture:
// a 3/5, d 9/4, e 2/4, f 3/2 -> only d passes the >= 4 filters.
TEST(ShareGpt, RealLlama2CountsIncludeBosAndDriveTheFilters) {
  SB_REQUIRE_TOKENIZER("llama2");
  auto tok = Tokenizer::load(test_files::tokenizer_dir("llama2"));
  auto cfg = sharegpt(kShareGptData + "sharegpt_small.json", 4);
  cfg.no_oversample = true;
  Dataset ds = load_dataset(cfg, tok.get());
  ASSERT_EQ(ds.requests.size(), 1u);
  EXPECT_EQ(ds.requests[0].prompt, "Quote \"this\"\nplease");
  EXPECT_EQ(ds.requests[0].prompt_tokens, 9);
  EXPECT_EQ(ds.requests[0].max_tokens, 4);
}

TEST(ShareGpt, MissingFileIsAUserError) {
  try {
    load_dataset(sharegpt(kShareGptData + "nope.json", 1), nullptr);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--dataset-path"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sb
