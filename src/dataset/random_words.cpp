// Random prompts without a tokenizer: the random dataset's lengths, but prompts are common English
// words, each assumed to be one token (true for most BPE vocabularies when the word follows a
// space). Lengths are approximate and the dataset says so. Each word is drawn on its own (the
// request's own stream): runs of consecutive words from 64 starting points would make most prompts
// share a prefix, which a server's prefix cache then serves instead of computing.
#include <array>
#include <string>
#include <string_view>

#include "dataset/loaders.hpp"
#include "dataset/random_lengths.hpp"
#include "dataset/sampling.hpp"

namespace sb::dataset {
namespace {

constexpr std::array<std::string_view, 64> kWords = {
    "the",   "of",    "and",   "to",    "in",    "is",    "for",   "that",  "with",  "on",
    "as",    "was",   "by",    "at",    "from",  "his",   "are",   "this",  "be",    "or",
    "an",    "had",   "not",   "but",   "which", "one",   "were",  "all",   "their", "has",
    "been",  "more",  "will",  "would", "there", "time",  "new",   "other", "some",  "can",
    "when",  "what",  "first", "only",  "over",  "into",  "also",  "after", "year",  "most",
    "made",  "many",  "before", "world", "people", "day",  "work",  "state", "city",  "water",
    "house", "school", "power", "light"};

void append_words(std::string& out, std::mt19937_64& rng, std::size_t count) {
  for (std::size_t j = 0; j < count; ++j) {
    if (!out.empty()) out += ' ';
    out += kWords[uniform_below(rng, kWords.size())];
  }
}

}  // namespace

Dataset load_random_words(const DatasetConfig& cfg) {
  std::mt19937_64 rng(cfg.seed);
  // No tokenizer: nothing known about special tokens, so none are subtracted.
  const RandomDraws draws = draw_random_lengths(cfg, /*num_special=*/0, kWords.size(), rng);
  std::string prefix;
  for (int j = 0; j < cfg.random_prefix_len; ++j) {
    if (!prefix.empty()) prefix += ' ';
    prefix += kWords[uniform_below(rng, kWords.size())];
  }
  Dataset ds;
  ds.lengths_exact = false;
  ds.requests.resize(draws.input_lens.size());
  for (std::size_t i = 0; i < ds.requests.size(); ++i) {
    RequestSpec& spec = ds.requests[i];
    spec.prompt = prefix;
    std::mt19937_64 words_rng = request_rng(cfg.seed, i);
    append_words(spec.prompt, words_rng, static_cast<std::size_t>(draws.input_lens[i]));
    spec.prompt_tokens = cfg.random_prefix_len + draws.input_lens[i];
    spec.max_tokens = draws.output_lens[i];
    spec.request_id = cfg.request_id_prefix + std::to_string(i);
  }
  ds.warnings.push_back(
      "random: no tokenizer, prompts are common words assumed to be one token each; prompt lengths "
      "are approximate (give --tokenizer for exact lengths)");
  return ds;
}

}  // namespace sb::dataset
