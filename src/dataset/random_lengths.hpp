#pragma once
// Length ranges and per-request draws of the random dataset (vLLM's vllm/benchmarks/datasets.py, RandomDataset; docs/datasets.md),
// shared by the tokenizer path (random_dataset.cpp) and the word fallback (random_words.cpp).
#include <cstdint>
#include <random>
#include <vector>

#include "dataset/dataset.hpp"

namespace sb::dataset {

struct RandomDraws {
  std::vector<int> input_lens;             // tokens after the prefix, specials excluded
  std::vector<int> output_lens;
  std::vector<std::int64_t> offsets;       // start of each request's run of consecutive ids
};

// Validates the random flags (ratios in [0,1), lengths) and draws, in vLLM's order, input
// lengths in [floor(I'(1-r)), ceil(I'(1+r))] with I' = max(0, I - num_special), output lengths in
// [max(floor(O(1-r)),1), max(ceil(O(1+r)),1)] and offsets in [0, vocab_size). Throws UserError.
RandomDraws draw_random_lengths(const DatasetConfig& cfg, std::size_t num_special,
                                std::size_t vocab_size, std::mt19937_64& rng);

// Independent, reproducible stream for request i (lets requests be built in parallel).
std::mt19937_64 request_rng(std::uint64_t seed, std::size_t i);

}  // namespace sb::dataset
