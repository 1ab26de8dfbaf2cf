#include "pipeline/output_recount.hpp"

#include <gtest/gtest.h>

#include "support/test_paths.hpp"

namespace sb::pipeline {
namespace {

RequestRecord event_counted(const std::string& text, int events) {
  RequestRecord r;
  r.token_ns.assign(static_cast<std::size_t>(events), 1);
  r.output_tokens = events;
  r.token_source = TokenSource::event_count;
  r.generated_text = text;
  return r;
}

TEST(OutputRecount, OnlyEventCountedSuccessesWithText) {
  EXPECT_TRUE(needs_output_recount(event_counted("Hello world", 1)));
  RequestRecord usage = event_counted("Hello world", 1);
  usage.token_source = TokenSource::usage_chunk;
  EXPECT_FALSE(needs_output_recount(usage));
  RequestRecord failed = event_counted("Hello world", 1);
  failed.outcome = Outcome::dropped;
  EXPECT_FALSE(needs_output_recount(failed));
  EXPECT_FALSE(needs_output_recount(event_counted("", 1)));  // text not kept
}

TEST(OutputRecount, CountsWithoutSpecialTokensAsVllm) {
  SB_REQUIRE_TOKENIZER("llama2");
  const auto tok = Tokenizer::load(::sb::test_files::tokenizer_dir("llama2"));
  // One SSE event carried the whole text; llama2 encodes it as [22557, 1526] (no BOS).
  RequestRecord r = event_counted("Hello world", 1);
  recount_output_tokens(*tok, r, /*keep_text=*/false);
  EXPECT_EQ(r.output_tokens, 2);
  EXPECT_EQ(r.token_source, TokenSource::tokenizer);
  EXPECT_TRUE(r.generated_text.empty());
  RequestRecord kept = event_counted("Hello world", 1);
  recount_output_tokens(*tok, kept, /*keep_text=*/true);
  EXPECT_EQ(kept.generated_text, "Hello world");
}

}  // namespace
}  // namespace sb::pipeline
