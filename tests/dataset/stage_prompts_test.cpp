// Prompts per stage (dataset/stage_prompts.hpp) and the loaders' spare rows: disjoint blocks while
// the dataset has them, a unique prefix after, --reuse-prompts the same rows, the same seed the same.
#include "dataset/stage_prompts.hpp"

#include <fstream>
#include <set>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "dataset/dataset.hpp"
#include "dataset/fake_tokenizer.hpp"

namespace sb {
namespace {

using dataset::stage_rows;

TEST(StagePrompts, BlocksAreDisjointWhileThePoolLastsThenWrapWithAPrefix) {
  // 10 rows, 3 a stage: stages 0-2 take rows 0-2, 3-5, 6-8; stage 3 starts at row 9 and wraps.
  for (std::size_t stage = 0; stage < 3; ++stage) {
    const auto r = stage_rows(10, 3, stage, false);
    EXPECT_EQ(r.selection, PromptSelection::disjoint) << stage;
    EXPECT_EQ(r.first, 3 * stage);
  }
  EXPECT_EQ(stage_rows(10, 3, 3, false).selection, PromptSelection::unique_prefix);
  EXPECT_EQ(stage_rows(10, 3, 3, false).first, 9u);
  EXPECT_EQ(stage_rows(10, 3, 4, false).first, 2u);  // 12 mod 10
  // A pool of exactly one stage: every later stage is prefixed.
  EXPECT_EQ(stage_rows(5, 5, 0, false).selection, PromptSelection::disjoint);
  EXPECT_EQ(stage_rows(5, 5, 1, false).selection, PromptSelection::unique_prefix);
  EXPECT_EQ(stage_rows(5, 5, 1, false).first, 0u);
}

TEST(StagePrompts, ReuseTakesTheFirstRowsEveryStage) {
  for (std::size_t stage = 0; stage < 5; ++stage) {
    const auto r = stage_rows(10, 3, stage, true);
    EXPECT_EQ(r.selection, PromptSelection::reused);
    EXPECT_EQ(r.first, 0u);
  }
  EXPECT_STREQ(to_string(PromptSelection::reused), "reused");
  EXPECT_STREQ(to_string(PromptSelection::unique_prefix), "unique_prefix");
}

TEST(StagePrompts, PrefixesAreUniqueLeadTheirPromptAndAreCounted) {
  std::set<std::string> seen;
  for (std::size_t stage = 0; stage < 12; ++stage)
    for (std::size_t k = 0; k < 120; ++k) EXPECT_TRUE(seen.insert(dataset::unique_prefix(stage, k)).second);
  // "[1.12] " vs "[11.2] ": no collision from the digits running together.
  EXPECT_NE(dataset::unique_prefix(1, 12), dataset::unique_prefix(11, 2));

  dataset::ByteTokenizer tok;  // tokens = bytes + 1 (<s>)
  RequestSpec exact{"hello", 6, 8, "r-0"};
  dataset::add_unique_prefix(exact, 2, 7, &tok);
  EXPECT_EQ(exact.prompt, "[2.7] hello");
  EXPECT_EQ(exact.prompt_tokens, 12);

  RequestSpec approx{"hello", 6, 8, "r-0"};
  dataset::add_unique_prefix(approx, 2, 7, nullptr);
  EXPECT_EQ(approx.prompt_tokens, 6 + 2);  // "[2.7] " is 6 bytes: ceil(6 / 4) tokens

  RequestSpec unknown{"hello", -1, 8, "r-0"};
  dataset::add_unique_prefix(unknown, 0, 0, nullptr);
  EXPECT_EQ(unknown.prompt_tokens, -1);  // the server's usage will say
}

TEST(StagePrompts, StageSeedKeepsStageZeroAndSeparatesTheRest) {
  EXPECT_EQ(dataset::stage_seed(42, 0), 42u);
  std::set<std::uint64_t> seeds;
  for (std::size_t s = 0; s < 50; ++s) seeds.insert(dataset::stage_seed(42, s));
  EXPECT_EQ(seeds.size(), 50u);
  EXPECT_EQ(dataset::stage_seed(42, 7), dataset::stage_seed(42, 7));
  EXPECT_NE(dataset::stage_seed(42, 7), dataset::stage_seed(43, 7));
}

std::string write_rows(int n) {
  const std::string path = ::testing::TempDir() + "sb_stage_rows_" + std::to_string(::getpid()) + ".jsonl";
  std::ofstream out(path);
  for (int i = 0; i < n; ++i) out << "{\"prompt\": \"row number " << i << "\"}\n";
  return path;
}

TEST(StagePrompts, CustomPoolKeepsStageZeroAndAddsUnusedRows) {
  DatasetConfig cfg;
  cfg.name = "custom";
  cfg.path = write_rows(10);
  cfg.num_prompts = 3;
  cfg.seed = 5;
  const Dataset alone = load_dataset(cfg, nullptr);
  cfg.pool_prompts = 9;
  const Dataset pooled = load_dataset(cfg, nullptr);
  ASSERT_EQ(pooled.requests.size(), 3u);
  ASSERT_EQ(pooled.spare.size(), 6u);
  std::set<std::string> all;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pooled.requests[i].prompt, alone.requests[i].prompt);  // stage 0 is vLLM's sample
    all.insert(pooled.requests[i].prompt);
  }
  for (const RequestSpec& r : pooled.spare) all.insert(r.prompt);
  EXPECT_EQ(all.size(), 9u);  // no row twice
  const Dataset again = load_dataset(cfg, nullptr);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(again.spare[i].prompt, pooled.spare[i].prompt);

  cfg.pool_prompts = 50;  // more than the file: every row once, no oversampling into the pool
  const Dataset capped = load_dataset(cfg, nullptr);
  EXPECT_EQ(capped.requests.size() + capped.spare.size(), 10u);
  std::remove(cfg.path.c_str());
}

TEST(StagePrompts, ShareGptPoolKeepsStageZero) {
  DatasetConfig cfg;
  cfg.name = "sharegpt";
  cfg.path = std::string(SB_SOURCE_DIR) + "/tests/data/dataset/sharegpt_small.json";
  cfg.num_prompts = 1;
  cfg.sharegpt_output_len = 8;
  dataset::ByteTokenizer tok;  // 3 of the file's conversations pass the length filters
  const Dataset alone = load_dataset(cfg, &tok);
  cfg.pool_prompts = 100;
  const Dataset pooled = load_dataset(cfg, &tok);
  ASSERT_EQ(pooled.requests.size(), 1u);
  EXPECT_EQ(pooled.requests[0].prompt, alone.requests[0].prompt);
  std::set<std::string> all{pooled.requests[0].prompt};
  for (const RequestSpec& r : pooled.spare) all.insert(r.prompt);
  EXPECT_EQ(all.size(), 1 + pooled.spare.size());
  EXPECT_EQ(pooled.spare.size(), 2u);
}

}  // namespace
}  // namespace sb
