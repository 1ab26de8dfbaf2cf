#include "tokenizer/hf_tokenizer.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace sb {
namespace {

const std::string kFixtures = std::string(SB_SHARED_DIR) + "/fixtures/tokenizers/";
using Ids = std::vector<std::int32_t>;

TEST(HfTokenizer, KnownIdsAndSpecialTokens) {
  const auto qwen = Tokenizer::load(kFixtures + "qwen3");
  // Values from HF tokenizers 0.23.2 (see tests/data/tokenizer/golden_qwen3.jsonl).
  EXPECT_EQ(qwen->encode("<|im_start|>user\nhi<|im_end|>", false), (Ids{151644, 872, 198, 6023, 151645}));
  const auto llama2 = Tokenizer::load(kFixtures + "llama2");
  EXPECT_EQ(llama2->encode("Hello world", true), (Ids{1, 22557, 1526}));
  EXPECT_EQ(llama2->encode("Hello world", false), (Ids{22557, 1526}));
  EXPECT_EQ(llama2->count("Hello world", true), 3u);
  EXPECT_EQ(llama2->decode({1, 22557, 1526}, false), "<s> Hello world");
  EXPECT_EQ(llama2->decode({1, 22557, 1526}, true), "Hello world");
}

TEST(HfTokenizer, InvalidUtf8IsRepairedBeforeEncoding) {
  const auto qwen = Tokenizer::load(kFixtures + "qwen3");
  EXPECT_EQ(qwen->encode("a\xFF" "b", false), qwen->encode("a\xEF\xBF\xBD" "b", false));
  EXPECT_EQ(qwen->count("a\xFF" "b", false), qwen->encode("a\xEF\xBF\xBD" "b", false).size());
}

TEST(HfTokenizer, ConcurrentEncodingMatchesSequential) {
  const auto tok = Tokenizer::load(kFixtures + "llama3");
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
