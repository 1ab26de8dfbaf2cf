// Tokenizer::load: tokenizer.json (+ tokenizer_config.json beside it) -> HfTokenizer.
// Cold path, but a dataset run loads it on start-up, so it uses simdjson's DOM (~10x nlohmann).
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <fstream>
#include <stdexcept>

#include "tokenizer/component_json.hpp"
#include "tokenizer/hf_tokenizer.hpp"

namespace sb {

using namespace sb::tok;
using simdjson::dom::element;

namespace {

std::vector<AddedToken> parse_added_tokens(const JsonCtx& c, element root) {
  std::vector<AddedToken> out;
  auto list = JsonCtx::field(root, "added_tokens");
  if (!list || list->is_null()) return out;
  simdjson::dom::array arr;
  if (list->get_array().get(arr) != simdjson::SUCCESS) c.fail("added_tokens is not an array");
  for (element t : arr) {
    AddedToken a;
    a.id = static_cast<std::int32_t>(c.integer(t, "id", "added_tokens"));
    a.content = c.str(t, "content", "added_tokens");
    a.special = c.boolean(t, "special", false);
    a.lstrip = c.boolean(t, "lstrip", false);
    a.rstrip = c.boolean(t, "rstrip", false);
    a.single_word = c.boolean(t, "single_word", false);
    a.normalized = c.boolean(t, "normalized", !a.special);
    out.push_back(std::move(a));
  }
  return out;
}

std::pair<std::string_view, std::string_view> parse_merge(const JsonCtx& c, element m) {
  std::string_view line;
  if (m.get_string().get(line) == simdjson::SUCCESS) {
    const auto sp = line.find(' ');
    if (sp == std::string_view::npos || line.find(' ', sp + 1) != std::string_view::npos) {
      c.fail("model.merges: malformed merge '" + std::string(line) + "'");
    }
    return {line.substr(0, sp), line.substr(sp + 1)};
  }
  simdjson::dom::array pair;
  std::string_view a, b;
  if (m.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2 || pair.at(0).get_string().get(a) ||
      pair.at(1).get_string().get(b)) {
    c.fail("model.merges: a merge is neither \"a b\" nor [\"a\", \"b\"]");
  }
  return {a, b};
}

std::unique_ptr<BpeModel> parse_model(const JsonCtx& c, element root, bool byte_level) {
  element m = c.obj_elem(root, "model", "tokenizer.json");
  const std::string type = c.opt_str(m, "type").value_or("BPE");
  if (type != "BPE") c.fail("unsupported model type '" + type + "' (only BPE)");
  double dropout = 0;
  if (auto d = JsonCtx::field(m, "dropout"); d && !d->is_null() && d->get_double().get(dropout) == simdjson::SUCCESS && dropout > 0) {
    c.fail("model BPE: dropout is not supported (it makes encoding random)");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (auto v = c.opt_str(m, key); v && !v->empty()) c.fail(std::string("model BPE: ") + key + " is not supported");
  }
  BpeConfig cfg;
  cfg.byte_level = byte_level;
  cfg.unk_token = c.opt_str(m, "unk_token");
  cfg.byte_fallback = c.boolean(m, "byte_fallback", false);
  cfg.fuse_unk = c.boolean(m, "fuse_unk", false);
  cfg.ignore_merges = c.boolean(m, "ignore_merges", false);
  simdjson::dom::object vocab;
  if (c.need(m, "vocab", "model").get_object().get(vocab) != simdjson::SUCCESS) c.fail("model.vocab is not an object");
  cfg.vocab.reserve(vocab.size());
  for (auto [key, value] : vocab) {
    cfg.vocab.emplace_back(std::string(key), static_cast<std::int32_t>(c.as_int(value, "model.vocab")));
  }
  auto merges = c.arr(m, "merges", "model");
  cfg.merges.reserve(merges.size());
  for (element merge : merges) cfg.merges.push_back(parse_merge(c, merge));
  try {
    return std::make_unique<BpeModel>(std::move(cfg));
  } catch (const std::invalid_argument& ex) {
    c.fail(std::string("model BPE: ") + ex.what());
  }
}

std::optional<std::int32_t> id_of(const TokenizerParts& parts, const std::string& token) {
  for (const auto& t : parts.added_tokens) {
    if (t.content == token) return t.id;
  }
  return parts.model->token_to_id(token);
}

element parse_file(const JsonCtx& c, const std::filesystem::path& file, simdjson::dom::parser& parser,
                   simdjson::padded_string& json) {
  element root;
  if (simdjson::padded_string::load(file.string()).get(json) != simdjson::SUCCESS) c.fail("cannot read the file");
  if (const auto err = parser.parse(json).get(root); err != simdjson::SUCCESS) {
    c.fail(std::string("invalid JSON: ") + simdjson::error_message(err));
  }
  return root;
}

// bos_token / eos_token are a string or {"content": ...}.
std::optional<std::string> special_name(const nlohmann::json& cfg, const char* key) {
  const auto it = cfg.find(key);
  if (it == cfg.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) return (*it)["content"].get<std::string>();
  return std::nullopt;
}

// tokenizer_config.json is optional. nlohmann here, not simdjson: these files carry integers like
// model_max_length = 1e30 that simdjson rejects, and they are a few KB.
void read_config(const std::filesystem::path& file, TokenizerParts& parts) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return;
  std::ifstream in(file);
  const nlohmann::json root = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) JsonCtx(file.string()).fail("invalid JSON");
  if (auto bos = special_name(root, "bos_token")) parts.bos_id = id_of(parts, *bos);
  if (auto eos = special_name(root, "eos_token")) parts.eos_id = id_of(parts, *eos);
  if (const auto it = root.find("add_bos_token"); it != root.end() && it->is_boolean()) parts.add_bos_token = it->get<bool>();
}

}  // namespace

std::unique_ptr<Tokenizer> Tokenizer::load(const std::filesystem::path& path) {
  std::error_code ec;
  const bool is_dir = std::filesystem::is_directory(path, ec);
  const std::filesystem::path file = is_dir ? path / "tokenizer.json" : path;
  if (!std::filesystem::is_regular_file(file, ec)) throw UserError("tokenizer " + file.string() + ": file not found");
  const JsonCtx c(file.string());
  simdjson::padded_string json;
  simdjson::dom::parser parser;
  const element root = parse_file(c, file, parser, json);
  if (JsonCtx::present(root, "truncation")) c.fail("truncation is not supported (it would cut prompts silently)");

  TokenizerParts parts;
  const std::filesystem::path dir = is_dir ? path : file.parent_path();
  parts.name = std::filesystem::absolute(dir, ec).lexically_normal().filename().string();
  if (parts.name.empty()) parts.name = dir.filename().string();
  parts.added_tokens = parse_added_tokens(c, root);
  if (auto n = JsonCtx::field(root, "normalizer"); n && !n->is_null()) {
    std::vector<NormalizerStep> steps;
    parse_normalizer(c, *n, steps);
    parts.normalizer = Normalizer(std::move(steps));
  }
  bool byte_level = false;
  if (auto p = JsonCtx::field(root, "pre_tokenizer"); p && !p->is_null()) {
    std::vector<PreTokenizerStep> steps;
    parse_pre_tokenizer(c, *p, steps, byte_level);
    parts.pre_tokenizer = PreTokenizer(std::move(steps));
  }
  parts.model = parse_model(c, root, byte_level);
  if (auto p = JsonCtx::field(root, "post_processor"); p && !p->is_null()) parse_post_processor(c, *p, parts);
  if (auto d = JsonCtx::field(root, "decoder"); d && !d->is_null()) {
    std::vector<DecoderStep> steps;
    parse_decoder(c, *d, steps);
    parts.decoder = Decoder(std::move(steps));
  }
  read_config(dir / "tokenizer_config.json", parts);
  return std::make_unique<HfTokenizer>(std::move(parts));
}

}  // namespace sb
