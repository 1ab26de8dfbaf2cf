#include "target/engine.hpp"

#include <simdjson.h>
#include <strings.h>

#include <array>

namespace sb {

namespace {

// A 2xx answer whose body is a JSON object, parsed into `doc`.
bool json_object(simdjson::dom::parser& parser, const ProbeAnswer& a, simdjson::dom::object& doc) {
  if (a.status < 200 || a.status >= 300 || a.body.empty()) return false;
  const simdjson::padded_string padded(a.body);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root)) return false;
  return !root.get_object().get(doc);
}

bool has_key(simdjson::dom::object obj, std::string_view key) { return !obj[key].error(); }

std::string string_at(simdjson::dom::object obj, std::string_view key) {
  std::string_view v;
  return obj[key].get_string().get(v) ? std::string() : std::string(v);
}

std::optional<Engine> engine_of_owner(std::string_view owner) {
  if (owner == "vllm") return Engine::vllm;
  if (owner == "sglang") return Engine::sglang;
  if (owner == "llamacpp" || owner == "llama.cpp") return Engine::llamacpp;
  return std::nullopt;
}

// /v1/models: the first entry that names its owner, else llama.cpp's `meta` object.
std::optional<EngineGuess> from_models(simdjson::dom::parser& parser, const ProbeAnswer& a) {
  simdjson::dom::object doc;
  simdjson::dom::array data;
  if (!json_object(parser, a, doc) || doc["data"].get_array().get(data)) return std::nullopt;
  for (simdjson::dom::element item : data) {
    std::string_view owner;
    if (item["owned_by"].get_string().get(owner)) continue;
    if (const auto e = engine_of_owner(owner)) return EngineGuess{*e, EngineClue::models_owned_by, ""};
  }
  for (simdjson::dom::element item : data) {
    simdjson::dom::object meta;
    if (!item["meta"].get_object().get(meta)) return EngineGuess{Engine::llamacpp, EngineClue::models_meta, ""};
  }
  return std::nullopt;
}

bool header_names_llamacpp(std::string_view server) {
  constexpr std::string_view kName = "llama.cpp";
  for (std::size_t i = 0; i + kName.size() <= server.size(); ++i) {
    if (strncasecmp(server.data() + i, kName.data(), kName.size()) == 0) return true;
  }
  return false;
}

std::optional<EngineGuess> from_props(simdjson::dom::parser& parser, const ProbeAnswer& a) {
  simdjson::dom::object doc;
  if (!json_object(parser, a, doc)) return std::nullopt;
  if (!has_key(doc, "default_generation_settings") && !has_key(doc, "total_slots")) return std::nullopt;
  return EngineGuess{Engine::llamacpp, EngineClue::props, string_at(doc, "build_info")};
}

std::optional<EngineGuess> from_model_info(simdjson::dom::parser& parser, const ProbeAnswer& a) {
  simdjson::dom::object doc;
  if (!json_object(parser, a, doc) || !has_key(doc, "model_path")) return std::nullopt;
  if (!has_key(doc, "is_generation") && !has_key(doc, "tokenizer_path")) return std::nullopt;
  return EngineGuess{Engine::sglang, EngineClue::get_model_info, ""};
}

// SGLang's server arguments: a large object; these keys are among its oldest.
std::optional<EngineGuess> from_server_info(simdjson::dom::parser& parser, const ProbeAnswer& a) {
  simdjson::dom::object doc;
  if (!json_object(parser, a, doc)) return std::nullopt;
  const bool args = has_key(doc, "tp_size") || has_key(doc, "model_path") || has_key(doc, "served_model_name");
  if (!args) return std::nullopt;
  return EngineGuess{Engine::sglang, EngineClue::get_server_info, string_at(doc, "version")};
}

std::optional<EngineGuess> from_info(simdjson::dom::parser& parser, const ProbeAnswer& a) {
  simdjson::dom::object doc;
  if (!json_object(parser, a, doc)) return std::nullopt;
  if (!string_at(doc, "router").starts_with("text-generation-router")) return std::nullopt;
  return EngineGuess{Engine::tgi, EngineClue::info, string_at(doc, "version")};
}

std::optional<EngineGuess> from_version(simdjson::dom::parser& parser, const ProbeAnswer& a) {
  simdjson::dom::object doc;
  if (!json_object(parser, a, doc)) return std::nullopt;
  const std::string v = string_at(doc, "version");
  if (v.empty()) return std::nullopt;
  return EngineGuess{Engine::vllm, EngineClue::version, v};
}

}  // namespace

EngineGuess classify_engine(const EngineProbes& p) {
  simdjson::dom::parser parser;
  if (auto g = from_models(parser, p.models)) return *g;
  for (const ProbeAnswer* a : {&p.models, &p.props, &p.get_model_info, &p.info, &p.version}) {
    if (header_names_llamacpp(a->server_header)) return {Engine::llamacpp, EngineClue::server_header, ""};
  }
  if (auto g = from_props(parser, p.props)) return *g;
  if (auto g = from_model_info(parser, p.get_model_info)) return *g;
  if (auto g = from_server_info(parser, p.get_server_info)) return *g;
  if (auto g = from_info(parser, p.info)) return *g;
  if (auto g = from_version(parser, p.version)) return *g;
  return {};
}

ProbeAnswer& probe_slot(EngineProbes& p, std::string_view path) {
  if (path == "/props") return p.props;
  if (path == "/get_model_info") return p.get_model_info;
  if (path == "/get_server_info") return p.get_server_info;
  if (path == "/info") return p.info;
  if (path == "/version") return p.version;
  return p.models;
}

std::string_view engine_name(Engine e) {
  switch (e) {
    case Engine::vllm: return "vllm";
    case Engine::sglang: return "sglang";
    case Engine::tgi: return "tgi";
    case Engine::llamacpp: return "llama.cpp";
    case Engine::openai: break;
  }
  return "openai";
}

std::optional<Engine> parse_engine(std::string_view name) {
  for (Engine e : {Engine::openai, Engine::vllm, Engine::sglang, Engine::tgi, Engine::llamacpp}) {
    if (name == engine_name(e)) return e;
  }
  if (name == "llamacpp") return Engine::llamacpp;
  return std::nullopt;
}

std::string_view clue_name(EngineClue c) {
  static constexpr std::array<std::string_view, 10> kNames = {
      "given", "models.owned_by", "models.meta", "header.server", "props", "get_model_info",
      "get_server_info", "info", "version", "none"};
  return kNames[static_cast<std::size_t>(c)];
}

}  // namespace sb
