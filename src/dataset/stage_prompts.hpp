#pragma once
// Which prompts each stage of a staircase sends (docs/datasets.md, "Prompts per stage"). A server
// with a prefix cache (vLLM's automatic prefix caching, llama.cpp's prompt cache) serves a prompt
// it has seen almost for free, so a stage re-sending the previous stage's prompts measures the
// cache, not the load. By default each stage draws its own rows while the dataset has unused ones
// (disjoint), then re-uses rows with a short per-request prefix at the very start of the prompt,
// so no two requests of a run share a cacheable prefix (unique_prefix); --reuse-prompts keeps
// vLLM's behaviour (the same prompts every stage).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dataset/request_spec.hpp"

namespace sb {

class Tokenizer;

enum class PromptSelection : std::uint8_t { disjoint, unique_prefix, reused };

// "disjoint" | "unique_prefix" | "reused" (the results' `prompt_selection`).
const char* to_string(PromptSelection s) noexcept;

}  // namespace sb

namespace sb::dataset {

// Where stage `stage`'s rows come from in a pool of `pool_size` rows (stage 0's first), `per_stage`
// rows a stage: rows [first, first + per_stage) modulo pool_size.
struct StageRows {
  PromptSelection selection = PromptSelection::reused;
  std::size_t first = 0;
};

// reuse: every stage takes rows 0.. (vLLM). Else stage s takes the s-th block of the pool while it
// is whole (disjoint), then blocks of the pool cyclically with a unique prefix.
StageRows stage_rows(std::size_t pool_size, std::size_t per_stage, std::size_t stage, bool reuse);

// The text put at the very start of request `request` of stage `stage`: unique within a run,
// a handful of tokens, deterministic (the same seed gives the same prompts).
std::string unique_prefix(std::size_t stage, std::size_t request);

// Puts unique_prefix(stage, request) in front of the prompt and accounts for its tokens:
// `exact` (a local tokenizer) recounts the whole prompt, specials added as the dataset counts them;
// without one a known count grows by the prefix's approximate count (an unknown one stays -1).
void add_unique_prefix(RequestSpec& spec, std::size_t stage, std::size_t request, const Tokenizer* exact);

// Seed of stage `stage`'s own draws of a generated (random) dataset; stage 0 keeps `seed`, so its
// prompts are the ones vLLM draws with that seed.
std::uint64_t stage_seed(std::uint64_t seed, std::size_t stage) noexcept;

}  // namespace sb::dataset
