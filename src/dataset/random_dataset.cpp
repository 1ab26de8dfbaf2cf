// Random token prompts (vLLM's vllm/benchmarks/datasets.py, RandomDataset): runs of consecutive allowed ids, decoded and
// re-encoded until the text re-tokenizes to exactly the drawn length.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "dataset/loaders.hpp"
#include "dataset/parallel.hpp"
#include "dataset/random_lengths.hpp"
#include "dataset/sampling.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::dataset {
namespace {

using TokenIds = std::vector<std::int32_t>;
constexpr int kMaxRetries = 10;

struct FittedPrompt {
  std::string text;
  TokenIds ids;       // encode(text, no specials)
  long mismatch = 0;  // ids.size() - target when retries ran out
};

// decode -> encode(no specials) -> pad with random ids or truncate, until the length is right
// or the retries are spent. Decoding merges ids, so one pass is often not enough.
FittedPrompt fit_to_length(const Tokenizer& tok, TokenIds ids, std::size_t target, std::mt19937_64& rng) {
  FittedPrompt out;
  const auto vocab = static_cast<std::int64_t>(tok.vocab_size());
  for (int retries_left = kMaxRetries;; --retries_left) {
    out.text = tok.decode(ids, /*skip_special_tokens=*/false);
    ids = tok.encode(out.text, /*add_special_tokens=*/false);
    if (retries_left <= 0) {
      out.mismatch = static_cast<long>(ids.size()) - static_cast<long>(target);
      break;
    }
    if (ids.size() == target) break;
    if (ids.size() > target) {
      ids.resize(target);
    } else {
      while (ids.size() < target) {
        ids.push_back(static_cast<std::int32_t>(uniform_between(rng, 0, vocab - 1)));
      }
    }
  }
  out.ids = std::move(ids);
  return out;
}

TokenIds allowed_ids(const Tokenizer& tok) {
  TokenIds special = tok.special_ids();
  std::sort(special.begin(), special.end());
  TokenIds allowed;
  allowed.reserve(tok.vocab_size());
  for (std::int32_t id = 0; id < static_cast<std::int32_t>(tok.vocab_size()); ++id) {
    if (!std::binary_search(special.begin(), special.end(), id)) allowed.push_back(id);
  }
  return allowed;
}

TokenIds make_prefix(const Tokenizer& tok, const TokenIds& allowed, int prefix_len,
                     std::mt19937_64& rng) {
  if (prefix_len <= 0) return {};
  TokenIds ids(static_cast<std::size_t>(prefix_len));
  for (auto& id : ids) id = allowed[uniform_below(rng, allowed.size())];
  return fit_to_length(tok, std::move(ids), static_cast<std::size_t>(prefix_len), rng).ids;
}

}  // namespace

Dataset load_random(const DatasetConfig& cfg, const Tokenizer* tokenizer) {
  if (!tokenizer) return load_random_words(cfg);
  const Tokenizer& tok = *tokenizer;
  const std::size_t num_special = tok.num_special_tokens_to_add();
  std::mt19937_64 rng(cfg.seed);
  const RandomDraws draws = draw_random_lengths(cfg, num_special, tok.vocab_size(), rng);
  const TokenIds allowed = allowed_ids(tok);
  if (allowed.empty()) throw UserError("random dataset: the tokenizer has no non-special token ids");
  const TokenIds prefix = make_prefix(tok, allowed, cfg.random_prefix_len, rng);

  Dataset ds;
  ds.requests.resize(draws.input_lens.size());
  std::vector<long> mismatch(ds.requests.size(), 0);
  parallel_for(ds.requests.size(), [&](std::size_t i) {
    TokenIds seq = prefix;
    const auto len = static_cast<std::size_t>(draws.input_lens[i]);
    for (std::size_t j = 0; j < len; ++j) {
      seq.push_back(allowed[(static_cast<std::size_t>(draws.offsets[i]) + i + j) % allowed.size()]);
    }
    std::mt19937_64 fix_rng = request_rng(cfg.seed, i);
    FittedPrompt fit = fit_to_length(tok, std::move(seq), prefix.size() + len, fix_rng);
    mismatch[i] = fit.mismatch;
    RequestSpec& spec = ds.requests[i];
    spec.prompt = std::move(fit.text);
    // What the server counts: the re-encoded prompt plus the specials its tokenizer adds.
    spec.prompt_tokens = static_cast<int>(fit.ids.size() + num_special);
    spec.max_tokens = draws.output_lens[i];
    spec.request_id = cfg.request_id_prefix + std::to_string(i);
  }, 4);
  long total_mismatch = 0, prompts_off = 0;
  for (long m : mismatch) {
    total_mismatch += std::abs(m);
    prompts_off += m != 0;
  }
  if (prompts_off != 0) {
    ds.warnings.push_back(fmt::format(
        "random: {} prompts re-tokenize to other lengths than drawn ({} tokens off in total; "
        "decode/encode did not converge in {} retries); prompt_tokens holds the real counts",
        prompts_off, total_mismatch, kMaxRetries));
  }
  return ds;
}

}  // namespace sb::dataset
