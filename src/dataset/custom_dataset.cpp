// Custom JSONL (vLLM's vllm/benchmarks/datasets.py, CustomDataset; docs/datasets.md): one {"prompt": str, "output_tokens": int?} object per line.
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "core/error.hpp"
#include "dataset/loaders.hpp"
#include "dataset/parallel.hpp"
#include "dataset/sampling.hpp"
#include "dataset/source_file.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::dataset {
namespace {

namespace od = simdjson::ondemand;

struct Row {
  std::string prompt;
  std::optional<int> output_tokens;
  std::size_t line = 0;
};

// Where a row is in the file: the first pass keeps only this, so a 2 GB file sampled for 20
// prompts holds 20 prompts in memory, not the file (docs/datasets.md).
struct RowPlace {
  std::size_t begin = 0;
  std::size_t length = 0;
  std::size_t line = 0;
  bool has_output_tokens = false;
};

struct RowError {
  std::string why;
};

// A value that cannot even be typed is malformed JSON, reported as such rather than as a type error.
od::json_type type_of(od::value v) {
  od::json_type type{};
  if (auto err = v.type().get(type)) throw simdjson::simdjson_error(err);
  return type;
}

std::optional<int> read_output_tokens(od::value v) {
  const od::json_type type = type_of(v);
  if (type == od::json_type::null) return std::nullopt;
  std::int64_t n = 0;
  if (type != od::json_type::number || v.get_int64().get(n) || n <= 0 || n > INT32_MAX) {
    throw RowError{"\"output_tokens\" must be a positive integer"};
  }
  return static_cast<int>(n);
}

// `keep_prompt` false: checked only (the first pass), the text is not copied.
Row parse_row(od::parser& parser, simdjson::padded_string_view line, bool keep_prompt) {
  Row row;
  bool has_prompt = false;
  od::document doc = parser.iterate(line);
  od::object obj;
  if (doc.get_object().get(obj)) throw RowError{"expected a JSON object"};
  for (auto field : obj) {
    std::string_view key = field.unescaped_key();
    if (key == "prompt") {
      std::string_view text;
      od::value v = field.value();
      if (type_of(v) != od::json_type::string || v.get_string().get(text)) {
        throw RowError{"\"prompt\" must be a string"};
      }
      if (keep_prompt) row.prompt.assign(text);
      has_prompt = true;
    } else if (key == "output_tokens") {
      row.output_tokens = read_output_tokens(field.value());
    }
  }
  // current_location() is OUT_OF_BOUNDS only once the whole line has been consumed.
  if (doc.current_location().error() == simdjson::SUCCESS) {
    throw RowError{"unexpected content after the JSON object"};
  }
  if (!has_prompt) throw RowError{"missing \"prompt\""};
  return row;
}

// Pages behind the first pass are given back every this many bytes.
constexpr std::size_t kDropEveryBytes = std::size_t{32} << 20;

std::vector<RowPlace> scan_rows(const PaddedFile& file, const std::string& path) {
  std::vector<RowPlace> rows;
  od::parser parser;
  // On-Demand validates lazily, and how much it notices depends on the SIMD kernel compiled in; a
  // full DOM pass first makes "malformed JSON" the same verdict on every machine (cold path).
  simdjson::dom::parser validator;
  const std::string_view text = file.text();
  std::size_t line_no = 0;
  std::size_t dropped = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    ++line_no;
    std::string_view line = text.substr(pos, eol - pos);
    const std::size_t begin = pos;
    pos = eol + 1;
    if (pos - dropped >= kDropEveryBytes) {
      file.drop_pages_before(begin);
      dropped = begin;
    }
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // blank line
    try {
      if (auto err = validator.parse(line.data(), line.size()).error()) throw simdjson::simdjson_error(err);
      const Row row = parse_row(parser, file.slice(begin, line.size()), false);
      rows.push_back({begin, line.size(), line_no, row.output_tokens.has_value()});
    } catch (const RowError& e) {
      throw UserError(fmt::format("{}:{}: {}", path, line_no, e.why));
    } catch (const simdjson::simdjson_error& e) {
      throw UserError(fmt::format("{}:{}: malformed JSON ({})", path, line_no, e.what()));
    }
  }
  file.drop_pages_before(text.size());
  return rows;
}

// The second pass: only the rows the run takes, read again from their place (checked already).
Row read_row(od::parser& parser, const PaddedFile& file, const RowPlace& place) {
  Row row = parse_row(parser, file.slice(place.begin, place.length), true);
  row.line = place.line;
  return row;
}

void check_custom_path(const DatasetConfig& cfg) {
  if (cfg.path.size() < 6 || cfg.path.compare(cfg.path.size() - 6, 6, ".jsonl") != 0) {
    throw UserError(fmt::format("--dataset-path: {}: the custom dataset must be a .jsonl file", cfg.path));
  }
}

}  // namespace

Dataset load_custom(const DatasetConfig& cfg, const Tokenizer* tokenizer) {
  check_custom_path(cfg);
  const PaddedFile file = PaddedFile::open(cfg.path, PaddedFile::Access::streamed);
  const std::vector<RowPlace> places = scan_rows(file, cfg.path);
  if (places.empty()) throw UserError(fmt::format("--dataset-path: {}: no rows", cfg.path));
  const bool per_row_output = cfg.custom_output_len == -1;
  for (const RowPlace& r : places) {
    if (per_row_output && !r.has_output_tokens) {
      throw UserError(fmt::format("{}:{}: --custom-output-len -1 needs \"output_tokens\" in every row",
                                  cfg.path, r.line));
    }
  }
  // The same rows as when every row was kept: the order is drawn over all of them.
  const auto order = shuffled_order(places.size(), cfg.seed, cfg.disable_shuffle);
  const std::size_t take = cfg.num_prompts <= 0
                               ? places.size()
                               : std::min(places.size(), rows_wanted(cfg));
  std::vector<Row> rows;
  rows.reserve(take);
  od::parser parser;
  for (std::size_t i = 0; i < take; ++i) rows.push_back(read_row(parser, file, places[order[i]]));
  Dataset ds;
  ds.requests.resize(take);
  parallel_for(take, [&](std::size_t i) {
    Row& row = rows[i];
    RequestSpec& spec = ds.requests[i];
    spec.prompt_tokens = tokenizer ? static_cast<int>(tokenizer->count(row.prompt, true)) : -1;
    spec.max_tokens = per_row_output ? *row.output_tokens : cfg.custom_output_len;
    spec.prompt = std::move(row.prompt);
    spec.request_id = cfg.request_id_prefix + std::to_string(i);
  }, 4);
  if (!tokenizer) {
    ds.lengths_exact = false;
    ds.warnings.push_back("custom: no tokenizer, prompt token counts unknown until the server reports usage");
  }
  split_spare(ds, cfg);
  maybe_oversample(ds, cfg, "custom");
  return ds;
}

}  // namespace sb::dataset
