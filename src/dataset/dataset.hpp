#pragma once
// Builds the request list of a run from --dataset-name and its flags (docs/datasets.md; vLLM
// benchmarks/datasets.py).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "dataset/request_spec.hpp"

namespace sb {

class Tokenizer;

struct DatasetConfig {
  std::string name = "random";           // random | sharegpt | custom
  std::string path;                      // --dataset-path
  int num_prompts = 1000;
  std::uint64_t seed = 0;
  int random_input_len = 1024;
  int random_output_len = 128;
  double random_range_ratio_input = 0.0;  // --random-range-ratio (float or {"input":..,"output":..})
  double random_range_ratio_output = 0.0;
  int random_prefix_len = 0;
  std::optional<int> sharegpt_output_len;
  int custom_output_len = 256;            // -1 = use each row's output_tokens
  bool disable_shuffle = false;
  bool no_oversample = false;             // --no-oversample: keep fewer requests than num_prompts
  std::string request_id_prefix = "bench-";
  // Prompts per stage (dataset/stage_prompts.hpp): false = each stage its own (disjoint, then a
  // unique prefix); true = --reuse-prompts, every stage the same (vLLM).
  bool reuse_prompts = false;
  // File datasets: rows to read beyond num_prompts for later stages (Dataset::spare); 0 = none.
  int pool_prompts = 0;
};

struct LengthSummary { double mean = 0; double p50 = 0; double p99 = 0; };

struct Dataset {
  std::vector<RequestSpec> requests;      // num_prompts (oversampled if needed; fewer only with
                                          // no_oversample; all rows for custom with num_prompts <= 0)
  bool lengths_exact = true;              // false when no tokenizer was available (approximate lengths)
  std::vector<RequestSpec> spare;         // file datasets: further rows (up to pool_prompts in all,
                                          // never repeats), for later stages; empty for random
  std::vector<std::string> warnings;      // one line each, printed before the run
  double load_seconds = 0;                // time spent loading + tokenizing + filtering
};

// Every problem with the parameters, by field (name, path, num_prompts, the length fields).
Problems validate(const DatasetConfig& cfg);

// tokenizer may be null: sharegpt/random then use approximate lengths and custom leaves
// prompt_tokens = -1; all set lengths_exact = false and say so in `warnings`.
// Throws sb::UserError listing validate(cfg)'s problems, or naming the file and line.
Dataset load_dataset(const DatasetConfig& cfg, const Tokenizer* tokenizer);

}  // namespace sb
