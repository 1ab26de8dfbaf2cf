#pragma once
// The requests and bodies of stage i of a run (dataset/stage_prompts.hpp says which prompts):
// computed when the stage starts, so a staircase of any length (stages planned on the fly, repeats)
// costs the memory of one stage beyond the loaded dataset. The same seed gives the same prompts.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "dataset/stage_prompts.hpp"
#include "pipeline/run_config.hpp"
#include "pipeline/run_prepare.hpp"

namespace sb::pipeline {

struct StageWorkload {
  PromptSelection selection = PromptSelection::reused;
  std::shared_ptr<const std::vector<RequestSpec>> specs;   // `per_stage` requests, in send order
  std::shared_ptr<const std::vector<std::string>> bodies;  // one JSON body per spec
};

// Stage 0 (and every stage with --reuse-prompts) sends the loaded dataset's requests and prebuilt
// bodies. Later stages: the random dataset draws afresh (the stage's own seed, counted as stage 0
// is); file datasets take their next unused rows; past those rows come round again with a unique
// prefix, whose tokens are counted by the local tokenizer, else by the server's /tokenize, else
// approximately.
StageWorkload stage_workload(const RunConfig& cfg, const Prepared& p, std::size_t stage, std::size_t per_stage);

// Rows to read from a file dataset for `stages` planned stages (0 when prompts are reused).
int pool_prompts_for(const DatasetConfig& d, std::size_t stages);

}  // namespace sb::pipeline
