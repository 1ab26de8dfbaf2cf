#include "dataset/dataset.hpp"

#include <chrono>

#include <fmt/format.h>

#include "core/error.hpp"
#include "dataset/loaders.hpp"

namespace sb {
namespace {

Dataset dispatch(const DatasetConfig& cfg, const Tokenizer* tokenizer) {
  if (cfg.name == "random") return dataset::load_random(cfg, tokenizer);
  if (cfg.name == "sharegpt") return dataset::load_sharegpt(cfg, tokenizer);
  return dataset::load_custom(cfg, tokenizer);
}

void check_ratio(Problems& out, const char* field, double r) {
  if (!(r >= 0.0 && r < 1.0)) out.push_back({field, fmt::format("{} is not in [0, 1)", r)});
}

}  // namespace

Problems validate(const DatasetConfig& cfg) {
  Problems out;
  const bool file_dataset = cfg.name == "sharegpt" || cfg.name == "custom";
  if (cfg.name != "random" && !file_dataset)
    out.push_back({"name", fmt::format("'{}' is not one of random, sharegpt, custom", cfg.name)});
  if (cfg.name == "random" && !cfg.path.empty()) out.push_back({"path", "the random dataset takes no file"});
  if (file_dataset && cfg.path.empty()) out.push_back({"path", fmt::format("the {} dataset needs a file", cfg.name)});
  if (cfg.num_prompts <= 0 && cfg.name != "custom")  // custom: <= 0 reads every row
    out.push_back({"num_prompts", fmt::format("must be > 0, got {}", cfg.num_prompts)});
  if (cfg.random_input_len < 0)
    out.push_back({"random_input_len", fmt::format("must be >= 0, got {}", cfg.random_input_len)});
  if (cfg.random_output_len <= 0)
    out.push_back({"random_output_len", fmt::format("must be > 0, got {}", cfg.random_output_len)});
  check_ratio(out, "random_range_ratio_input", cfg.random_range_ratio_input);
  check_ratio(out, "random_range_ratio_output", cfg.random_range_ratio_output);
  if (cfg.random_prefix_len < 0)
    out.push_back({"random_prefix_len", fmt::format("must be >= 0, got {}", cfg.random_prefix_len)});
  if (cfg.sharegpt_output_len && *cfg.sharegpt_output_len <= 0)
    out.push_back({"sharegpt_output_len", fmt::format("must be > 0, got {}", *cfg.sharegpt_output_len)});
  if (cfg.pool_prompts < 0) out.push_back({"pool_prompts", fmt::format("must be >= 0, got {}", cfg.pool_prompts)});
  if (cfg.custom_output_len == 0 || cfg.custom_output_len < -1)
    out.push_back({"custom_output_len", "must be > 0 or -1"});
  return out;
}

Dataset load_dataset(const DatasetConfig& cfg, const Tokenizer* tokenizer) {
  throw_if_problems(validate(cfg));
  const auto start = std::chrono::steady_clock::now();
  Dataset ds = dispatch(cfg, tokenizer);
  ds.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return ds;
}

}  // namespace sb
