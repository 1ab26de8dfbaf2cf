#include "dataset/sampling.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb::dataset {

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound) {
  // Reject the top partial block of the 64-bit range so every residue is equally likely.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              std::numeric_limits<std::uint64_t>::max() % bound;
  std::uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % bound;
}

std::int64_t uniform_between(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<std::int64_t>(uniform_below(rng, span));
}

std::vector<std::size_t> shuffled_order(std::size_t n, std::uint64_t seed, bool keep_order) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (keep_order || n < 2) return order;
  std::mt19937_64 rng(seed);
  for (std::size_t i = n - 1; i > 0; --i) {
    std::swap(order[i], order[uniform_below(rng, i + 1)]);
  }
  return order;
}

void maybe_oversample(Dataset& ds, const DatasetConfig& cfg, std::string_view what) {
  const std::size_t have = ds.requests.size();
  const auto want = static_cast<std::size_t>(cfg.num_prompts);
  if (cfg.num_prompts <= 0 || have >= want) return;
  if (cfg.no_oversample) {
    ds.warnings.push_back(fmt::format("{}: only {} of {} requests available (--no-oversample)",
                                      what, have, want));
    return;
  }
  if (have == 0) {
    throw UserError(fmt::format("{}: no usable requests (all rows were filtered out)", what));
  }
  std::mt19937_64 rng(cfg.seed);
  ds.requests.reserve(want);
  for (std::size_t i = 0; have + i < want; ++i) {
    RequestSpec copy = ds.requests[uniform_below(rng, have)];
    copy.request_id = cfg.request_id_prefix + std::to_string(have + i);
    ds.requests.push_back(std::move(copy));
  }
  ds.warnings.push_back(fmt::format(
      "{}: only {} usable requests, oversampled to {} with repeats", what, have, want));
}

std::size_t rows_wanted(const DatasetConfig& cfg) {
  return static_cast<std::size_t>(std::max({cfg.num_prompts, cfg.pool_prompts, 0}));
}

void split_spare(Dataset& ds, const DatasetConfig& cfg) {
  const auto keep = static_cast<std::size_t>(std::max(cfg.num_prompts, 0));
  if (cfg.num_prompts <= 0 || ds.requests.size() <= keep) return;
  ds.spare.assign(std::make_move_iterator(ds.requests.begin() + static_cast<std::ptrdiff_t>(keep)),
                  std::make_move_iterator(ds.requests.end()));
  ds.requests.resize(keep);
}

int approx_token_count(std::string_view text) noexcept {
  const std::size_t tokens = (text.size() + 3) / 4;
  return tokens == 0 ? 1 : static_cast<int>(std::min<std::size_t>(tokens, INT32_MAX));
}

}  // namespace sb::dataset
