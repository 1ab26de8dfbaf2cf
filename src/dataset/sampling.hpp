#pragma once
// Seeded sampling shared by the dataset loaders: shuffles, oversampling (vLLM's
// maybe_oversample_requests) and the token-count rule used when no tokenizer is available.
// Our own Fisher-Yates over std::mt19937_64 keeps orders identical across standard libraries
// (std::shuffle and std::uniform_int_distribution are implementation-defined).
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "dataset/dataset.hpp"

namespace sb::dataset {

// Uniform integer in [0, bound) by rejection (no modulo bias). bound must be > 0.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound);

// Uniform integer in [lo, hi], both inclusive (numpy Generator.integers(lo, hi + 1)).
std::int64_t uniform_between(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi);

// 0..n-1, shuffled with `seed` unless `keep_order`.
std::vector<std::size_t> shuffled_order(std::size_t n, std::uint64_t seed, bool keep_order);

// Fills `ds.requests` up to cfg.num_prompts with seeded copies of what is there; copies get the
// ids prefix + (original count + i). Adds a warning line; throws UserError if there is nothing to
// copy. With cfg.no_oversample it only warns that fewer requests will be sent.
void maybe_oversample(Dataset& ds, const DatasetConfig& cfg, std::string_view what);

// Rows a file loader reads: num_prompts, or pool_prompts when larger (later stages' own rows).
std::size_t rows_wanted(const DatasetConfig& cfg);

// Moves the rows past num_prompts into ds.spare (file datasets read with pool_prompts).
void split_spare(Dataset& ds, const DatasetConfig& cfg);

// Token count without a tokenizer: ceil(bytes / 4), at least 1. English text under common BPE
// vocabularies averages about 4 bytes per token; other scripts are undercounted.
int approx_token_count(std::string_view text) noexcept;

}  // namespace sb::dataset
