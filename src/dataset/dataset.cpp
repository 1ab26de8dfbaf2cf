#include "dataset/dataset.hpp"

#include <chrono>

#include <fmt/format.h>

#include "core/error.hpp"
#include "dataset/loaders.hpp"

namespace sb {
namespace {

Dataset dispatch(const DatasetConfig& cfg, const Tokenizer* tokenizer) {
  if (cfg.name == "random") {
    if (!cfg.path.empty()) {
      throw UserError("--dataset-path: not used by --dataset-name random (prompts are generated)");
    }
    return dataset::load_random(cfg, tokenizer);
  }
  if (cfg.name != "sharegpt" && cfg.name != "custom") {
    throw UserError(fmt::format("--dataset-name: unknown dataset '{}' (expected random, sharegpt or custom)",
                                cfg.name));
  }
  if (cfg.path.empty()) {
    throw UserError(fmt::format("--dataset-path: required by --dataset-name {}", cfg.name));
  }
  if (cfg.name == "sharegpt") {
    if (cfg.num_prompts <= 0) {
      throw UserError(fmt::format("--num-prompts: must be > 0, got {}", cfg.num_prompts));
    }
    return dataset::load_sharegpt(cfg, tokenizer);
  }
  return dataset::load_custom(cfg, tokenizer);
}

}  // namespace

Dataset load_dataset(const DatasetConfig& cfg, const Tokenizer* tokenizer) {
  const auto start = std::chrono::steady_clock::now();
  Dataset ds = dispatch(cfg, tokenizer);
  ds.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return ds;
}

}  // namespace sb
