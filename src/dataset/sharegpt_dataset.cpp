// ShareGPT (vLLM's vllm/benchmarks/datasets.py, ShareGPTDataset; docs/datasets.md): first two turns of each conversation, seeded shuffle, walk
// the shuffled list tokenizing until num_prompts pass the 4 / 1024 / 2048 filters.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/error.hpp"
#include "dataset/json_array.hpp"
#include "dataset/loaders.hpp"
#include "dataset/parallel.hpp"
#include "dataset/sampling.hpp"
#include "dataset/source_file.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::dataset {
namespace {

namespace od = simdjson::ondemand;

constexpr int kMinLen = 4;
constexpr int kMaxPromptLen = 1024;
constexpr int kMaxTotalLen = 2048;

// Pass 1 only checks which elements have a `conversations` list with >= 2 turns (nothing is
// copied); pass 2 re-parses just the elements walked, so a 650 MB file costs one scan plus
// ~num_prompts small parses instead of copying every conversation.
struct Conversation {
  std::string prompt;      // turn 0 value
  std::string completion;  // turn 1 value
};

std::string turn_value(od::value turn) {
  std::string_view v = turn.get_object().find_field_unordered("value").get_string();
  return std::string(v);
}

// Returns false when the entry has no `conversations` key.
bool find_turns(od::document& doc, od::array& turns) {
  od::object entry = doc.get_object();
  od::value turns_value;
  auto err = entry.find_field_unordered("conversations").get(turns_value);
  if (err == simdjson::NO_SUCH_FIELD) return false;
  if (err) throw simdjson::simdjson_error(err);
  turns = turns_value.get_array();
  return true;
}

bool has_two_turns(od::parser& parser, simdjson::padded_string_view element) {
  od::document doc = parser.iterate(element);
  od::array turns;
  if (!find_turns(doc, turns)) return false;
  int count = 0;
  for (auto turn : turns) {
    turn.value();  // surfaces a malformed element as an error here, not silently
    if (++count == 2) return true;
  }
  return false;
}

Conversation first_two_turns(od::parser& parser, simdjson::padded_string_view element) {
  Conversation c;
  od::document doc = parser.iterate(element);
  od::array turns;
  find_turns(doc, turns);
  int index = 0;
  for (auto turn : turns) {
    (index == 0 ? c.prompt : c.completion) = turn_value(turn.value());
    if (++index == 2) break;
  }
  return c;
}

// One parsed ShareGPT file: the buffer, and the spans of the elements usable as requests.
struct ShareGptFile {
  std::string path;
  PaddedFile file;
  std::vector<ByteSpan> usable;

  // Runs fn(parser, element, i) for every span, in parallel (one parser per thread), turning
  // JSON errors into "FILE:LINE: ..." user errors.
  template <class Fn>
  void for_each_element(const std::vector<ByteSpan>& spans, Fn&& fn, std::size_t min_per_thread) const;
};

template <class Fn>
void ShareGptFile::for_each_element(const std::vector<ByteSpan>& spans, Fn&& fn,
                                    std::size_t min_per_thread) const {
  parallel_blocks(
      spans.size(),
      [&](std::size_t begin, std::size_t end) {
        od::parser parser;
        for (std::size_t i = begin; i < end; ++i) {
          try {
            fn(parser, file.slice(spans[i].begin, spans[i].end - spans[i].begin), i);
          } catch (const simdjson::simdjson_error& e) {
            throw UserError(fmt::format(
                "{}:{}: expected {{\"conversations\": [{{\"from\": ..., \"value\": \"...\"}}, ...]}} ({})",
                path, line_of_offset(file.text(), spans[i].begin), e.what()));
          }
        }
      },
      min_per_thread);
}

ShareGptFile scan_file(const std::string& path) {
  ShareGptFile f{path, PaddedFile::open(path), {}};
  std::vector<ByteSpan> spans = split_json_array(f.file.text(), path);
  std::vector<char> keep(spans.size(), 0);
  f.for_each_element(spans, [&](od::parser& p, simdjson::padded_string_view e, std::size_t i) {
    keep[i] = has_two_turns(p, e);
  }, 256);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    if (keep[i]) f.usable.push_back(spans[i]);
  }
  return f;
}

struct Lengths {
  int prompt = 0;
  int output = 0;
};

// vLLM's is_valid_sequence with min 4, max prompt 1024, max total 2048.
bool passes_filters(Lengths len, bool fixed_output) {
  if (len.prompt < kMinLen) return false;
  if (!fixed_output && len.output < kMinLen) return false;
  if (len.prompt > kMaxPromptLen) return false;
  return len.prompt + len.output <= kMaxTotalLen;
}

// Exact up to `limit`; above it only "> limit" matters to the filters, so tokenizing may stop.
int count_tokens(const Tokenizer* tok, std::string_view text, int limit) {
  if (!tok) return approx_token_count(text);
  const std::size_t n = tok->count_up_to(text, /*add_special_tokens=*/true, static_cast<std::size_t>(limit));
  return static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(limit) + 1));
}

// Walks `order` like vLLM (accept until num_prompts), parsing and counting tokens in parallel
// batches slightly larger than what is still needed; the result does not depend on batch size.
void accept_in_order(const ShareGptFile& file, const std::vector<std::size_t>& order,
                     const DatasetConfig& cfg, const Tokenizer* tok, Dataset& ds) {
  const std::size_t want = rows_wanted(cfg);  // later stages' rows follow in the same walk
  const bool fixed_output = cfg.sharegpt_output_len.has_value();
  std::vector<ByteSpan> batch_spans;
  std::vector<Conversation> convs;
  std::vector<Lengths> lens;
  for (std::size_t pos = 0; ds.requests.size() < want && pos < order.size();) {
    const std::size_t need = want - ds.requests.size();
    const std::size_t batch = std::min(order.size() - pos, need + need / 4 + 32);
    batch_spans.clear();
    for (std::size_t k = 0; k < batch; ++k) batch_spans.push_back(file.usable[order[pos + k]]);
    convs.assign(batch, {});
    lens.assign(batch, {});
    file.for_each_element(batch_spans, [&](od::parser& p, simdjson::padded_string_view e, std::size_t k) {
      convs[k] = first_two_turns(p, e);
      lens[k].prompt = count_tokens(tok, convs[k].prompt, kMaxPromptLen);
      // A prompt that fails its own limits is dropped whatever the output: skip counting it.
      const bool prompt_ok = lens[k].prompt >= kMinLen && lens[k].prompt <= kMaxPromptLen;
      if (fixed_output) {
        lens[k].output = *cfg.sharegpt_output_len;
      } else if (prompt_ok) {
        lens[k].output = count_tokens(tok, convs[k].completion, kMaxTotalLen - lens[k].prompt);
      }
    }, 4);
    for (std::size_t k = 0; k < batch && ds.requests.size() < want; ++k) {
      if (!passes_filters(lens[k], fixed_output)) continue;
      ds.requests.push_back({std::move(convs[k].prompt), lens[k].prompt, lens[k].output,
                             cfg.request_id_prefix + std::to_string(ds.requests.size())});
    }
    pos += batch;
  }
}

}  // namespace

Dataset load_sharegpt(const DatasetConfig& cfg, const Tokenizer* tokenizer) {
  if (cfg.sharegpt_output_len && *cfg.sharegpt_output_len <= 0) {
    throw UserError(fmt::format("--sharegpt-output-len: must be > 0, got {}", *cfg.sharegpt_output_len));
  }
  Dataset ds;
  const ShareGptFile file = scan_file(cfg.path);
  const auto order = shuffled_order(file.usable.size(), cfg.seed, cfg.disable_shuffle);
  accept_in_order(file, order, cfg, tokenizer, ds);
  if (!tokenizer) {
    ds.lengths_exact = false;
    ds.warnings.push_back(
        "sharegpt: no tokenizer, token counts approximated as ceil(bytes/4); length filters and "
        "token totals are approximate");
  }
  split_spare(ds, cfg);
  maybe_oversample(ds, cfg, "sharegpt");
  return ds;
}

}  // namespace sb::dataset
