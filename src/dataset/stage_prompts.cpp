#include "dataset/stage_prompts.hpp"

#include <fmt/format.h>

#include "dataset/sampling.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb {

const char* to_string(PromptSelection s) noexcept {
  switch (s) {
    case PromptSelection::disjoint: return "disjoint";
    case PromptSelection::unique_prefix: return "unique_prefix";
    case PromptSelection::reused: return "reused";
  }
  return "unknown";
}

}  // namespace sb

namespace sb::dataset {

StageRows stage_rows(std::size_t pool_size, std::size_t per_stage, std::size_t stage, bool reuse) {
  if (reuse || pool_size == 0 || per_stage == 0) return {PromptSelection::reused, 0};
  const std::size_t whole_blocks = pool_size / per_stage;
  if (stage < whole_blocks) return {PromptSelection::disjoint, stage * per_stage};
  // Past the pool: walk it on from where the disjoint blocks ended, so rows are re-used evenly.
  return {PromptSelection::unique_prefix, (stage * per_stage) % pool_size};
}

std::string unique_prefix(std::size_t stage, std::size_t request) {
  return fmt::format("[{}.{}] ", stage, request);
}

void add_unique_prefix(RequestSpec& spec, std::size_t stage, std::size_t request, const Tokenizer* exact) {
  const std::string prefix = unique_prefix(stage, request);
  spec.prompt.insert(0, prefix);
  if (exact) {
    spec.prompt_tokens = static_cast<int>(exact->count(spec.prompt, /*add_special_tokens=*/true));
  } else if (spec.prompt_tokens >= 0) {
    spec.prompt_tokens += approx_token_count(prefix);
  }
}

std::uint64_t stage_seed(std::uint64_t seed, std::size_t stage) noexcept {
  if (stage == 0) return seed;
  // splitmix64 of (seed, stage): neighbouring stages get unrelated streams.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(stage) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace sb::dataset
