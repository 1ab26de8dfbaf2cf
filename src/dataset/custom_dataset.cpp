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

Row parse_row(od::parser& parser, simdjson::padded_string_view line) {
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
      row.prompt.assign(text);
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

std::vector<Row> parse_rows(const PaddedFile& file, const std::string& path) {
  std::vector<Row> rows;
  od::parser parser;
  // On-Demand validates lazily, and how much it notices depends on the SIMD kernel compiled in; a
  // full DOM pass first makes "malformed JSON" the same verdict on every machine (cold path).
  simdjson::dom::parser validator;
  const std::string_view text = file.text();
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    ++line_no;
    std::string_view line = text.substr(pos, eol - pos);
    const std::size_t begin = pos;
    pos = eol + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // blank line
    try {
      if (auto err = validator.parse(line.data(), line.size()).error()) throw simdjson::simdjson_error(err);
      rows.push_back(parse_row(parser, file.slice(begin, line.size())));
      rows.back().line = line_no;
    } catch (const RowError& e) {
      throw UserError(fmt::format("{}:{}: {}", path, line_no, e.why));
    } catch (const simdjson::simdjson_error& e) {
      throw UserError(fmt::format("{}:{}: malformed JSON ({})", path, line_no, e.what()));
    }
  }
  return rows;
}

void check_custom_path(const DatasetConfig& cfg) {
  if (cfg.path.size() < 6 || cfg.path.compare(cfg.path.size() - 6, 6, ".jsonl") != 0) {
    throw UserError(fmt::format("--dataset-path: {}: the custom dataset must be a .jsonl file", cfg.path));
  }
}

}  // namespace

Dataset load_custom(const DatasetConfig& cfg, const Tokenizer* tokenizer) {
  check_custom_path(cfg);
  std::vector<Row> rows = parse_rows(PaddedFile::open(cfg.path), cfg.path);
  if (rows.empty()) throw UserError(fmt::format("--dataset-path: {}: no rows", cfg.path));
  const bool per_row_output = cfg.custom_output_len == -1;
  for (const Row& r : rows) {
    if (per_row_output && !r.output_tokens) {
      throw UserError(fmt::format("{}:{}: --custom-output-len -1 needs \"output_tokens\" in every row",
                                  cfg.path, r.line));
    }
  }
  const auto order = shuffled_order(rows.size(), cfg.seed, cfg.disable_shuffle);
  const std::size_t take = cfg.num_prompts <= 0 ? rows.size() : std::min(rows.size(), rows_wanted(cfg));
  Dataset ds;
  ds.requests.resize(take);
  parallel_for(take, [&](std::size_t i) {
    Row& row = rows[order[i]];
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
