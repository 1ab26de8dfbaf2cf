// stage_workload: the requests and bodies of stage i (pipeline/stage_workload.hpp) on a prepared
// run built by hand: stage 0 is the loaded dataset, later stages their own rows, then prefixed
// rows; --reuse-prompts the same every stage; the random dataset draws afresh per stage.
#include "pipeline/stage_workload.hpp"

#include <set>

#include <gtest/gtest.h>

#include "dataset/fake_tokenizer.hpp"

namespace sb::pipeline {
namespace {

Prepared file_prepared(int head, int spare) {
  Prepared p;
  for (int i = 0; i < head + spare; ++i) {
    RequestSpec s{"prompt " + std::to_string(i), 3, 4, "bench-" + std::to_string(i)};
    (i < head ? p.dataset.requests : p.dataset.spare).push_back(s);
  }
  p.ctx.served_model_name = "m";
  return p;
}

RunConfig file_config() {
  RunConfig c;
  c.dataset.name = "custom";
  return c;
}

std::set<std::string> prompts(const StageWorkload& w) {
  std::set<std::string> out;
  for (const RequestSpec& s : *w.specs) out.insert(s.prompt);
  return out;
}

TEST(StageWorkload, FileRowsAreDisjointThenPrefixedAndBodiesMatch) {
  const RunConfig cfg = file_config();
  Prepared p = file_prepared(2, 2);
  p.bodies = build_request_bodies(cfg, "m", p.dataset.requests);
  const StageWorkload s0 = stage_workload(cfg, p, 0, 2);
  const StageWorkload s1 = stage_workload(cfg, p, 1, 2);
  const StageWorkload s2 = stage_workload(cfg, p, 2, 2);
  EXPECT_EQ(s0.selection, PromptSelection::disjoint);
  EXPECT_EQ(s0.bodies.get(), &p.bodies);  // stage 0 sends the prebuilt bodies (warm-up uses them too)
  EXPECT_EQ(s1.selection, PromptSelection::disjoint);
  EXPECT_EQ(prompts(s1), (std::set<std::string>{"prompt 2", "prompt 3"}));
  EXPECT_EQ(s2.selection, PromptSelection::unique_prefix);
  EXPECT_EQ(prompts(s2), (std::set<std::string>{"[2.0] prompt 0", "[2.1] prompt 1"}));
  EXPECT_EQ((*s2.specs)[0].prompt_tokens, 3 + 2);  // no tokenizer: the prefix's approximate count
  ASSERT_EQ(s2.bodies->size(), 2u);
  EXPECT_NE((*s2.bodies)[0].find("[2.0] prompt 0"), std::string::npos);
  // Nothing sent twice across the three stages.
  std::set<std::string> all;
  for (const auto* w : {&s0, &s1, &s2}) for (const auto& t : prompts(*w)) EXPECT_TRUE(all.insert(t).second) << t;
}

TEST(StageWorkload, ReusePromptsSendsStageZerosRequestsEveryStage) {
  RunConfig cfg = file_config();
  cfg.dataset.reuse_prompts = true;
  Prepared p = file_prepared(2, 2);
  p.bodies = build_request_bodies(cfg, "m", p.dataset.requests);
  for (std::size_t stage = 0; stage < 4; ++stage) {
    const StageWorkload w = stage_workload(cfg, p, stage, 2);
    EXPECT_EQ(w.selection, PromptSelection::reused);
    EXPECT_EQ(w.specs.get(), &p.dataset.requests);
    EXPECT_EQ(w.bodies.get(), &p.bodies);
  }
}

TEST(StageWorkload, RandomWithALocalTokenizerDrawsEachStageAfreshAndRepeatably) {
  RunConfig cfg;
  cfg.dataset.name = "random";
  cfg.dataset.num_prompts = 4;
  cfg.dataset.random_input_len = 12;
  cfg.dataset.random_output_len = 5;
  cfg.dataset.seed = 9;
  Prepared p;
  p.tokenizer = std::make_unique<sb::dataset::ByteTokenizer>();
  p.local_tokenizer = true;
  p.dataset = load_dataset(cfg.dataset, p.tokenizer.get());
  p.bodies = build_request_bodies(cfg, "m", p.dataset.requests);
  const StageWorkload s1 = stage_workload(cfg, p, 1, 4);
  const StageWorkload s1_again = stage_workload(cfg, p, 1, 4);
  const StageWorkload s2 = stage_workload(cfg, p, 2, 4);
  EXPECT_EQ(s1.selection, PromptSelection::disjoint);
  EXPECT_EQ(prompts(s1), prompts(s1_again));  // same seed, same prompts
  std::set<std::string> stage0;
  for (const RequestSpec& s : p.dataset.requests) stage0.insert(s.prompt);
  for (const auto& t : prompts(s1)) EXPECT_EQ(stage0.count(t), 0u);
  for (const auto& t : prompts(s2)) EXPECT_EQ(prompts(s1).count(t), 0u);
  for (const RequestSpec& s : *s2.specs) EXPECT_EQ(s.prompt_tokens, 12);  // <s> included, as drawn
}

TEST(StageWorkload, PoolCoversThePlannedStagesOfFileDatasetsOnly) {
  DatasetConfig d;
  d.name = "sharegpt";
  d.num_prompts = 100;
  EXPECT_EQ(pool_prompts_for(d, 5), 500);
  EXPECT_EQ(pool_prompts_for(d, 1), 0);
  d.reuse_prompts = true;
  EXPECT_EQ(pool_prompts_for(d, 5), 0);
  d.reuse_prompts = false;
  d.name = "random";  // draws afresh, needs no pool
  EXPECT_EQ(pool_prompts_for(d, 5), 0);
}

}  // namespace
}  // namespace sb::pipeline
