#include "tokenizer/hf_tokenizer.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "support/test_paths.hpp"

namespace sb {
namespace {

using Ids = std::vector<std::int32_t>;

TEST(HfTokenizer, KnownIdsAndSpecialTokens) {
  SB_REQUIRE_TOKENIZER("qwen3");
  SB_REQUIRE_TOKENIZER("llama2");
  const auto qwen = Tokenizer::load(sb::test_files::tokenizer_dir("qwen3"));
  // Values from HF tokenizers 0.23.2 (see tests/data/tokenizer/golden_qwen3.jsonl).
  EXPECT_EQ(qwen->encode("<|im_start|>user\nhi<|im_end|>", false), (Ids{151644, 872, 198, 6023, 151645}));
  const auto llama2 = Tokenizer::load(sb::test_files::tokenizer_dir("llama2"));
  EXPECT_EQ(llama2->encode("Hello world", true), (Ids{1, 22557, 1526}));
  EXPECT_EQ(llama2->encode("Hello world", false), (Ids{22557, 1526}));
  EXPECT_EQ(llama2->count("Hello world", true), 3u);
  EXPECT_EQ(llama2->decode({1, 22557, 1526}, false), "<s> Hello world");
  EXPECT_EQ(llama2->decode({1, 22557, 1526}, true), "Hello world");
}

TEST(HfTokenizer, InvalidUtf8IsRepairedBeforeEncoding) {
  SB_REQUIRE_TOKENIZER("qwen3");
  const auto qwen = Tokenizer::load(sb::test_files::tokenizer_dir("qwen3"));
  EXPECT_EQ(qwen->encode("a\xFF" "b", false), qwen->encode("a\xEF\xBF\xBD" "b", false));
  EXPECT_EQ(qwen->count("a\xFF" "b", false), qwen->encode("a\xEF\xBF\xBD" "b", false).size());
}

// count_up_to is exact up to the limit and only promises "> limit" above it; a long text stops
// early (llama3 splits into many pre-tokens, so the partial count stays far below the full one).
TEST(HfTokenizer, CountUpToIsExactUpToTheLimit) {
  SB_REQUIRE_TOKENIZER("qwen3");
  SB_REQUIRE_TOKENIZER("llama2");
  SB_REQUIRE_TOKENIZER("llama3");
  for (const char* name : {"qwen3", "llama2"}) {
    const auto tok = Tokenizer::load(sb::test_files::tokenizer_dir(name));
    for (const std::string text : {"Hello world", "<|im_start|>user caf\xC3\xA9 \xE6\x97\xA5 don't 12345", ""}) {
      for (const bool special : {true, false}) {
        const std::size_t n = tok->count(text, special);
        for (std::size_t limit = 0; limit <= n + 2; ++limit) {
          const std::size_t got = tok->count_up_to(text, special, limit);
          if (n <= limit) EXPECT_EQ(got, n) << name << " " << text << " " << limit;
          else EXPECT_GT(got, limit) << name << " " << text << " " << limit;
        }
      }
    }
  }
  const auto llama3 = Tokenizer::load(sb::test_files::tokenizer_dir("llama3"));
  std::string long_text;
  for (int i = 0; i < 2000; ++i) long_text += "word" + std::to_string(i) + " ";
  const std::size_t full = llama3->count(long_text, true);
  ASSERT_GT(full, 4000u);
  EXPECT_LT(llama3->count_up_to(long_text, true, 1024), 1100u);
  EXPECT_GT(llama3->count_up_to(long_text, true, 1024), 1024u);
}

TEST(HfTokenizer, ConcurrentEncodingMatchesSequential) {
  SB_REQUIRE_TOKENIZER("llama3");
  const auto tok = Tokenizer::load(sb::test_files::tokenizer_dir("llama3"));
  std::vector<std::string> texts;
  for (int i = 0; i < 200; ++i) {
    texts.push_back("request " + std::to_string(i * 7919) + " caf\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD don't " +
                    std::string(static_cast<std::size_t>(i % 9), ' ') + "x" + std::to_string(i));
  }
  std::vector<Ids> expected;
  for (const auto& t : texts) expected.push_back(tok->encode(t, true));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 3; ++rep) {
        for (std::size_t i = 0; i < texts.size(); ++i) mismatches[t] += tok->encode(texts[i], true) != expected[i];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

}  // namespace
}  // namespace sb
