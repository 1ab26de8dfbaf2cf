#include "dataset/random_lengths.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "dataset/sampling.hpp"

namespace sb::dataset {
namespace {

void check_lengths(const DatasetConfig& cfg) {
  for (double r : {cfg.random_range_ratio_input, cfg.random_range_ratio_output}) {
    if (!(r >= 0.0 && r < 1.0)) {
      throw UserError(fmt::format("--random-range-ratio: each ratio must be in [0, 1), got {}", r));
    }
  }
  if (cfg.random_input_len < 0) {
    throw UserError(fmt::format("--random-input-len: must be >= 0, got {}", cfg.random_input_len));
  }
  if (cfg.random_output_len <= 0) {
    throw UserError(fmt::format("--random-output-len: must be > 0, got {}", cfg.random_output_len));
  }
  if (cfg.random_prefix_len < 0) {
    throw UserError(fmt::format("--random-prefix-len: must be >= 0, got {}", cfg.random_prefix_len));
  }
}

}  // namespace

RandomDraws draw_random_lengths(const DatasetConfig& cfg, std::size_t num_special,
                                std::size_t vocab_size, std::mt19937_64& rng) {
  check_lengths(cfg);
  const double real_in = std::max(0.0, cfg.random_input_len - static_cast<double>(num_special));
  const double r_in = cfg.random_range_ratio_input, r_out = cfg.random_range_ratio_output;
  const auto in_lo = static_cast<std::int64_t>(std::floor(real_in * (1 - r_in)));
  const auto in_hi = static_cast<std::int64_t>(std::ceil(real_in * (1 + r_in)));
  const double out = cfg.random_output_len;
  const auto out_lo = std::max<std::int64_t>(static_cast<std::int64_t>(std::floor(out * (1 - r_out))), 1);
  const auto out_hi = std::max<std::int64_t>(static_cast<std::int64_t>(std::ceil(out * (1 + r_out))), 1);
  if (cfg.random_prefix_len + in_lo < 1) {
    throw UserError(fmt::format(
        "--random-input-len: too small ({} minus {} special tokens leaves an empty prompt)",
        cfg.random_input_len, num_special));
  }
  if (vocab_size == 0) throw UserError("random dataset: the tokenizer has an empty vocabulary");
  const auto n = static_cast<std::size_t>(std::max(cfg.num_prompts, 0));  // validate(DatasetConfig): > 0
  RandomDraws d;
  d.input_lens.resize(n);
  d.output_lens.resize(n);
  d.offsets.resize(n);
  for (int& v : d.input_lens) v = static_cast<int>(uniform_between(rng, in_lo, in_hi));
  for (int& v : d.output_lens) v = static_cast<int>(uniform_between(rng, out_lo, out_hi));
  for (auto& v : d.offsets) v = uniform_between(rng, 0, static_cast<std::int64_t>(vocab_size) - 1);
  return d;
}

std::mt19937_64 request_rng(std::uint64_t seed, std::size_t i) {
  // splitmix64 of (seed, i): decorrelates neighbouring requests' streams.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(i) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return std::mt19937_64(z ^ (z >> 31));
}

}  // namespace sb::dataset
