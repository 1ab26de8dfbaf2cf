// Random dataset ([N] algorithm) with fake tokenizers whose ids are easy to check by hand.
#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "dataset/dataset.hpp"
#include "dataset/fake_tokenizer.hpp"
#include "support/test_paths.hpp"

namespace sb {
namespace {

DatasetConfig random_cfg(int num_prompts, int input_len, int output_len) {
  DatasetConfig cfg;
  cfg.name = "random";
  cfg.num_prompts = num_prompts;
  cfg.random_input_len = input_len;
  cfg.random_output_len = output_len;
  return cfg;
}

TEST(RandomDataset, FixedLengthsSubtractTheBosAndCountItBack) {
  dataset::ByteTokenizer tok;
  Dataset ds = load_dataset(random_cfg(20, 64, 7), &tok);
  ASSERT_EQ(ds.requests.size(), 20u);
  for (std::size_t i = 0; i < ds.requests.size(); ++i) {
    const RequestSpec& r = ds.requests[i];
    EXPECT_EQ(r.prompt.size(), 63u);         // 64 - one special token
    EXPECT_EQ(r.prompt_tokens, 64);          // what the server counts, BOS included
    EXPECT_EQ(r.max_tokens, 7);
    EXPECT_EQ(r.request_id, fmt::format("bench-{}", i));
  }
  EXPECT_TRUE(ds.lengths_exact);
  EXPECT_TRUE(ds.warnings.empty());
}

TEST(RandomDataset, PromptsAreRunsOfConsecutiveNonSpecialIds) {
  dataset::ByteTokenizer tok;  // allowed ids 3..258 = bytes 0..255, so a run is consecutive bytes
  Dataset ds = load_dataset(random_cfg(5, 40, 4), &tok);
  for (const auto& r : ds.requests) {
    for (std::size_t j = 1; j < r.prompt.size(); ++j) {
      const auto prev = static_cast<unsigned char>(r.prompt[j - 1]);
      const auto cur = static_cast<unsigned char>(r.prompt[j]);
      ASSERT_EQ(cur, (prev + 1) % 256) << "at " << j;
    }
  }
  // Request i starts at allowed[(offset_i + i) mod 256]: consecutive requests with equal
  // offsets would differ by one; at least the prompts must not all be equal.
  EXPECT_NE(ds.requests[0].prompt, ds.requests[1].prompt);
}

TEST(RandomDataset, RangeRatioDrawsLengthsInTheClosedRange) {
  dataset::ByteTokenizer tok;
  auto cfg = random_cfg(400, 101, 10);
  cfg.random_range_ratio_input = 0.5;   // real input 100 -> [50, 150]
  cfg.random_range_ratio_output = 0.25; // [floor(7.5), ceil(12.5)] = [7, 13]
  Dataset ds = load_dataset(cfg, &tok);
  int min_in = 1 << 30, max_in = 0, min_out = 1 << 30, max_out = 0;
  for (const auto& r : ds.requests) {
    min_in = std::min(min_in, r.prompt_tokens - 1);
    max_in = std::max(max_in, r.prompt_tokens - 1);
    min_out = std::min(min_out, r.max_tokens);
    max_out = std::max(max_out, r.max_tokens);
  }
  EXPECT_EQ(min_in, 50);
  EXPECT_EQ(max_in, 150);
  EXPECT_EQ(min_out, 7);
  EXPECT_EQ(max_out, 13);
}

TEST(RandomDataset, SharedPrefixStartsEveryPrompt) {
  dataset::ByteTokenizer tok;
  auto cfg = random_cfg(6, 11, 3);
  cfg.random_prefix_len = 8;
  Dataset ds = load_dataset(cfg, &tok);
  const std::string prefix = ds.requests[0].prompt.substr(0, 8);
  for (const auto& r : ds.requests) {
    EXPECT_EQ(r.prompt.size(), 18u);  // 8 prefix + (11 - 1)
    EXPECT_EQ(r.prompt.substr(0, 8), prefix);
    EXPECT_EQ(r.prompt_tokens, 19);
  }
}

TEST(RandomDataset, DeterministicPerSeed) {
  dataset::MergingTokenizer tok;
  auto cfg = random_cfg(30, 50, 5);
  cfg.random_range_ratio_input = 0.3;
  cfg.seed = 17;
  Dataset a = load_dataset(cfg, &tok);
  Dataset b = load_dataset(cfg, &tok);
  cfg.seed = 18;
  Dataset c = load_dataset(cfg, &tok);
  int differing = 0;
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    EXPECT_EQ(a.requests[i].prompt, b.requests[i].prompt);
    differing += a.requests[i].prompt != c.requests[i].prompt;
  }
  EXPECT_GT(differing, 20);
}

TEST(RandomDataset, FixLoopHitsExactLengthsWhenDecodeMergesTokens) {
  dataset::MergingTokenizer tok;  // "ab" re-encodes as one token: one pass would fall short
  Dataset ds = load_dataset(random_cfg(300, 33, 5), &tok);
  int merged_prompts = 0;
  for (const auto& r : ds.requests) {
    EXPECT_EQ(tok.encode(r.prompt, false).size(), 32u) << r.request_id;
    EXPECT_EQ(r.prompt_tokens, 33);
    merged_prompts += r.prompt.find("ab") != std::string::npos;
  }
  EXPECT_GT(merged_prompts, 0);  // the merging path was exercised
  EXPECT_TRUE(ds.warnings.empty());
}

// Encoding always appends one '!' more than the text had: the fix loop can never converge.
class GrowingTokenizer : public dataset::ByteTokenizer {
 public:
  std::vector<std::int32_t> encode(std::string_view text, bool add_special_tokens) const override {
    auto ids = ByteTokenizer::encode(text, add_special_tokens);
    ids.push_back('!' + 3);
    return ids;
  }
};

TEST(RandomDataset, UnconvergedPromptsAreWarnedAboutAndCountedAsTheyAre) {
  GrowingTokenizer tok;
  Dataset ds = load_dataset(random_cfg(3, 9, 2), &tok);
  for (const auto& r : ds.requests) EXPECT_EQ(r.prompt_tokens, 1 + 8 + 1);  // BOS + target + 1
  ASSERT_EQ(ds.warnings.size(), 1u);
  EXPECT_EQ(ds.warnings[0].rfind("random: 3 prompts re-tokenize to other lengths than drawn (3 tokens", 0), 0u)
      << ds.warnings[0];
}

TEST(RandomDataset, WithoutTokenizerUsesWordsAndSaysLengthsAreApproximate) {
  auto cfg = random_cfg(4, 12, 3);
  cfg.random_prefix_len = 2;
  Dataset ds = load_dataset(cfg, nullptr);
  ASSERT_EQ(ds.requests.size(), 4u);
  for (const auto& r : ds.requests) {
    const auto words = 1 + std::count(r.prompt.begin(), r.prompt.end(), ' ');
    EXPECT_EQ(words, 14);
    EXPECT_EQ(r.prompt_tokens, 14);
  }
  EXPECT_FALSE(ds.lengths_exact);
  ASSERT_EQ(ds.warnings.size(), 1u);
  EXPECT_NE(ds.warnings[0].find("approximate"), std::string::npos);
}

TEST(RandomDataset, RejectsBadRatiosAndEmptyPrompts) {
  dataset::ByteTokenizer tok;
  auto cfg = random_cfg(1, 10, 10);
  cfg.random_range_ratio_input = 1.0;
  EXPECT_THROW(load_dataset(cfg, &tok), UserError);
  auto tiny = random_cfg(1, 1, 10);  // 1 - BOS = 0 tokens left
  try {
    load_dataset(tiny, &tok);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--random-input-len"), std::string::npos);
  }
  tiny.random_prefix_len = 1;  // a prefix token makes it valid
  EXPECT_EQ(load_dataset(tiny, &tok).requests[0].prompt_tokens, 2);
}

}  // namespace
}  // namespace sb

namespace sb {
namespace {

// Real tokenizers (SentencePiece-style llama2 that adds <s>; byte-level llama3 and qwen3 that add
// nothing): one decode/encode pass changes the length of most consecutive-id runs, so this checks
// that the fix loop makes every prompt re-encode to exactly its drawn length.
class RandomDatasetRealTokenizer : public ::testing::TestWithParam<const char*> {};

TEST_P(RandomDatasetRealTokenizer, PromptsReEncodeToExactlyTheTargetLengths) {
  SB_REQUIRE_TOKENIZER(GetParam());
  auto tok = Tokenizer::load(test_files::tokenizer_dir(GetParam()));
  const int num_special = static_cast<int>(tok->num_special_tokens_to_add());
  auto cfg = random_cfg(40, 128 + num_special, 16);
  cfg.random_range_ratio_input = 0.25;  // real input 128 -> [96, 160]
  cfg.random_prefix_len = 10;
  cfg.seed = 5;
  Dataset ds = load_dataset(cfg, tok.get());
  ASSERT_EQ(ds.requests.size(), 40u);
  EXPECT_TRUE(ds.warnings.empty()) << ds.warnings.front();  // no prompt missed its length
  for (const auto& r : ds.requests) {
    EXPECT_EQ(tok->count(r.prompt, /*add_special_tokens=*/true), static_cast<std::size_t>(r.prompt_tokens));
    EXPECT_GE(r.prompt_tokens, num_special + 10 + 96);
    EXPECT_LE(r.prompt_tokens, num_special + 10 + 160);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RandomDatasetRealTokenizer,
                         ::testing::Values("llama2", "llama3", "qwen3"));

}  // namespace
}  // namespace sb
