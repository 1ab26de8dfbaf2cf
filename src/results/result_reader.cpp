#include "results/result_reader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace sb::results {
namespace {

using nlohmann::json;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open results file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// nlohmann reports a byte offset; users want a line.
json parse_json(std::string_view text, const std::string& where) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::size_t line = 1 + static_cast<std::size_t>(
        std::count(text.begin(), text.begin() + std::min(e.byte, text.size()), '\n'));
    throw UserError(where + ":" + std::to_string(line) + ": malformed JSON (" + e.what() + ")");
  }
}

double number_or(const json& j, const char* key, double fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (it->is_string()) return it->get<std::string>() == "inf" ? kInf : fallback;
  return it->is_number() ? it->get<double>() : fallback;
}

std::string string_or(const json& j, const char* key, std::string fallback = "") {
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : fallback;
}

void require_number(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    throw UserError(where + ": missing or non-numeric key \"" + key + "\"");
}

// The vLLM result keys shared by a sweep stage and a vLLM file.
Stage read_vllm_keys(const json& j, const std::string& where) {
  for (const char* k : {"duration", "completed", "request_throughput", "output_throughput"})
    require_number(j, k, where);
  Stage s;
  s.request_rate = number_or(j, "request_rate", kInf);
  if (auto it = j.find("max_concurrency"); it != j.end() && it->is_number_integer())
    s.max_concurrency = it->get<int>();
  s.num_prompts = static_cast<int>(number_or(j, "num_prompts", 0));
  s.completed = static_cast<int>(number_or(j, "completed", 0));
  s.failed = static_cast<int>(number_or(j, "failed", 0));
  s.duration_s = number_or(j, "duration", 0);
  s.request_throughput = number_or(j, "request_throughput", 0);
  s.output_throughput = number_or(j, "output_throughput", 0);
  s.total_token_throughput = number_or(j, "total_token_throughput", -1);
  if (s.total_token_throughput < 0) {
    // Files older than ~v0.6 have no total_token_throughput: it is every token over the duration.
    const double tokens = number_or(j, "total_input_tokens", 0) + number_or(j, "total_output_tokens", 0);
    s.total_token_throughput = s.duration_s > 0 ? tokens / s.duration_s : 0;
  }
  // v0.8-era files spell the goodput key with a trailing colon (a typo upstream).
  for (const char* key : {"request_goodput", "request_goodput:"}) {
    if (auto it = j.find(key); it != j.end() && it->is_number()) s.request_goodput = it->get<double>();
  }
  for (const auto& [k, v] : j.items()) {
    if (v.is_number() && k.size() > 3 && k.ends_with("_ms")) s.latency_ms[k] = v.get<double>();
  }
  return s;
}

void read_servebench_block(const json& sb, Stage& s) {
  s.load_value = number_or(sb, "load_value", s.load_value);
  s.stage_index = static_cast<int>(number_or(sb, "stage_index", s.stage_index));
  s.client_saturated = sb.value("client_saturated", false);
  if (auto it = sb.find("schedule_lag_ms"); it != sb.end() && it->is_object())
    s.schedule_lag_p99_ms = number_or(*it, "p99", 0);
  if (auto it = sb.find("errors"); it != sb.end() && it->is_object()) {
    for (const auto& [cat, e] : it->items()) s.errors[cat] = static_cast<int>(number_or(e, "count", 0));
  }
  auto delivered_mean = [&](const char* key) -> std::optional<double> {
    auto it = sb.find(key);
    if (it == sb.end() || !it->is_object() || !it->contains("delivered")) return std::nullopt;
    return number_or((*it)["delivered"], "mean", 0);
  };
  s.input_len_mean = delivered_mean("input_len");
  s.output_len_mean = delivered_mean("output_len");
}

// Sorts stages by load; per-request samples refer to stages by their run-order stage_index, which
// is mapped to the stage's new position.
void sort_stages(Run& run) {
  std::stable_sort(run.stages.begin(), run.stages.end(),
                   [](const Stage& a, const Stage& b) { return a.load_value < b.load_value; });
  std::map<int, int> position;
  for (std::size_t i = 0; i < run.stages.size(); ++i) position[run.stages[i].stage_index] = static_cast<int>(i);
  std::erase_if(run.requests, [&](const Request& r) { return !position.contains(r.stage); });
  for (Request& r : run.requests) r.stage = position[r.stage];
}

void load_requests_file(Run& run, const json& doc, const std::string& path) {
  std::string rel = string_or(doc, "requests_file");
  if (rel.empty()) return;
  std::filesystem::path p(rel);
  if (p.is_relative()) p = std::filesystem::path(path).parent_path() / p;
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    run.notes.push_back("per-request file " + p.string() + " not found: significance cannot be judged");
    return;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  run.requests = parse_requests_jsonl(ss.str(), p.string());
}

double ms_or_missing(const json& j, const char* key) {
  auto it = j.find(key);
  return (it != j.end() && it->is_number()) ? it->get<double>() : -1.0;
}

bool secret_key(std::string k) {
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  return k.find("api_key") != std::string::npos || k.find("apikey") != std::string::npos ||
         k.find("secret") != std::string::npos || k.find("password") != std::string::npos ||
         k.find("authorization") != std::string::npos;
}

void redact(json& j, bool inside_headers) {
  if (!j.is_object()) return;
  for (auto& [k, v] : j.items()) {
    if (inside_headers || secret_key(k)) {
      if (!v.is_object()) v = "<redacted>";
      else redact(v, true);
    } else {
      redact(v, k == "headers");
    }
  }
}

// vLLM's --save-detailed arrays, when present, give per-request samples (seconds -> ms).
void read_vllm_detail(const json& j, int stage, std::vector<Request>& out) {
  auto ttfts = j.find("ttfts");
  auto lens = j.find("output_lens");
  if (ttfts == j.end() || lens == j.end() || !ttfts->is_array() || !lens->is_array()) return;
  auto lat = j.find("latencies");
  auto errs = j.find("errors");
  for (std::size_t i = 0; i < ttfts->size() && i < lens->size(); ++i) {
    Request r;
    r.stage = stage;
    r.output_tokens = (*lens)[i].get<int>();
    bool has_err = errs != j.end() && errs->is_array() && i < errs->size() &&
                   (*errs)[i].is_string() && !(*errs)[i].get<std::string>().empty();
    r.ok = !has_err && r.output_tokens > 0;
    r.ttft_ms = (*ttfts)[i].get<double>() * 1000.0;
    if (lat != j.end() && lat->is_array() && i < lat->size()) {
      r.e2el_ms = (*lat)[i].get<double>() * 1000.0;
      if (r.output_tokens > 1) r.tpot_ms = (r.e2el_ms - r.ttft_ms) / (r.output_tokens - 1);
    }
    out.push_back(r);
  }
}

}  // namespace

std::optional<double> Stage::value(std::string_view name) const {
  if (name == "request_throughput") return request_throughput;
  if (name == "output_throughput") return output_throughput;
  if (name == "total_token_throughput") return total_token_throughput;
  if (name == "request_goodput") return request_goodput;
  std::string key(name);
  // Alias "ttft_p99" / "ttft_p99_ms" -> "p99_ttft_ms"; "ttft_median" -> "median_ttft_ms".
  if (!key.starts_with("p") && !key.starts_with("mean_") && !key.starts_with("median_") &&
      !key.starts_with("std_")) {
    if (key.ends_with("_ms")) key.resize(key.size() - 3);
    auto us = key.rfind('_');
    if (us == std::string::npos) return std::nullopt;
    key = key.substr(us + 1) + "_" + key.substr(0, us) + "_ms";
  }
  if (!key.ends_with("_ms")) key += "_ms";
  if (auto it = latency_ms.find(key); it != latency_ms.end()) return it->second;
  if (key.starts_with("p50_")) {
    if (auto it = latency_ms.find("median_" + key.substr(4)); it != latency_ms.end()) return it->second;
  }
  return std::nullopt;
}

int Run::find_stage(double load_value) const {
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const double v = stages[i].load_value;
    if (v == load_value || (std::isfinite(v) && std::abs(v - load_value) <= 1e-9 * std::max(1.0, std::abs(v))))
      return static_cast<int>(i);
  }
  return -1;
}

std::string redact_config(std::string_view json_text) {
  json j = parse_json(json_text, "config");
  redact(j, false);
  return j.dump(2);
}

std::vector<Request> parse_requests_jsonl(std::string_view text, const std::string& path) {
  std::vector<Request> out;
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json j = parse_json(line, path + ":" + std::to_string(line_no) + " (JSONL)");
    if (!j.is_object() || !j.contains("stage"))
      throw UserError(path + ":" + std::to_string(line_no) + ": request record without \"stage\"");
    Request r;
    r.stage = static_cast<int>(number_or(j, "stage", 0));
    r.ok = string_or(j, "outcome") == "ok";
    r.ttft_ms = ms_or_missing(j, "ttft_ms");
    r.tpot_ms = ms_or_missing(j, "tpot_ms");
    r.e2el_ms = ms_or_missing(j, "e2el_ms");
    r.output_tokens = static_cast<int>(number_or(j, "output_tokens", 0));
    out.push_back(r);
  }
  return out;
}

Run parse_sweep(std::string_view text, const std::string& path) {
  json doc = parse_json(text, path);
  if (!doc.is_object() || string_or(doc, "kind") != "servebench.sweep")
    throw UserError(path + ": not a servebench sweep document (kind != \"servebench.sweep\")");
  if (number_or(doc, "schema_version", 0) != 1)
    throw UserError(path + ": unsupported schema_version (this servebench reads 1)");
  Run run;
  run.source = path;
  run.format = "servebench.sweep";
  run.load_mode = string_or(doc, "load_mode", "concurrency");
  run.aborted = doc.value("aborted", false);
  const json cfg = doc.value("config", json::object());
  json redacted = cfg;
  redact(redacted, false);
  run.config_json = redacted.dump(2);
  run.model = string_or(cfg, "model");
  run.backend = string_or(cfg, "backend");
  if (auto it = cfg.find("dataset"); it != cfg.end() && it->is_object()) run.dataset = string_or(*it, "name");
  // Unlabelled runs are named after their file: overlaid runs need distinct legend entries.
  run.label = string_or(doc, "label", std::filesystem::path(path).stem().string());
  const json stages = doc.value("stages", json::array());
  if (!stages.is_array() || stages.empty()) throw UserError(path + ": sweep document has no stages");
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const std::string where = path + ": stages[" + std::to_string(i) + "]";
    Stage s = read_vllm_keys(stages[i], where);
    s.stage_index = static_cast<int>(i);
    s.load_value = run.load_mode == "concurrency" ? s.max_concurrency.value_or(0) : s.request_rate;
    if (auto it = stages[i].find("servebench"); it != stages[i].end() && it->is_object())
      read_servebench_block(*it, s);
    run.stages.push_back(std::move(s));
  }
  load_requests_file(run, doc, path);
  sort_stages(run);
  return run;
}

std::vector<Run> group_vllm(const std::vector<std::pair<std::string, std::string>>& path_texts) {
  std::vector<Run> runs;
  std::map<std::string, std::size_t> by_key;
  for (const auto& [path, text] : path_texts) {
    json j = parse_json(text, path);
    if (!j.is_object()) throw UserError(path + ": not a JSON object");
    Stage s = read_vllm_keys(j, path);
    const std::string backend = string_or(j, "backend", string_or(j, "endpoint_type"));
    const std::string model = string_or(j, "model_id");
    const std::string label = string_or(j, "label", backend + " " + model);
    auto [it, fresh] = by_key.emplace(label + "\n" + backend + "\n" + model, runs.size());
    if (fresh) {
      Run r;
      r.source = path;
      r.format = "vllm";
      r.label = label;
      r.model = model;
      r.backend = backend;
      json cfg = {{"backend", backend}, {"model", model}, {"burstiness", number_or(j, "burstiness", 1)}};
      r.config_json = cfg.dump(2);
      runs.push_back(std::move(r));
    }
    Run& run = runs[it->second];
    s.stage_index = static_cast<int>(run.stages.size());
    read_vllm_detail(j, s.stage_index, run.requests);
    run.stages.push_back(std::move(s));
  }
  for (Run& run : runs) {
    // Several max_concurrency values under an unlimited rate = a concurrency sweep; else a rate sweep.
    bool concurrency_sweep = std::all_of(run.stages.begin(), run.stages.end(), [](const Stage& s) {
      return s.max_concurrency.has_value() && std::isinf(s.request_rate);
    });
    run.load_mode = concurrency_sweep ? "concurrency" : "request_rate";
    for (Stage& s : run.stages)
      s.load_value = concurrency_sweep ? *s.max_concurrency : s.request_rate;
    sort_stages(run);
    // vLLM files have no run order (a shell glob sorts "16" before "2"): number them by load.
    for (std::size_t i = 0; i < run.stages.size(); ++i) run.stages[i].stage_index = static_cast<int>(i);
  }
  return runs;
}

namespace {

// A folder stands for the *.json files in it (a folder of vLLM results, one per stage), in name order.
std::vector<std::string> expand_folders(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
    if (files.empty()) throw UserError(p + ": folder holds no .json result files");
    std::sort(files.begin(), files.end());
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

}  // namespace

std::vector<Run> read_runs(const std::vector<std::string>& paths) {
  std::vector<Run> runs;
  std::vector<std::pair<std::string, std::string>> vllm_files;
  for (const std::string& p : expand_folders(paths)) {
    std::string text = read_file(p);
    if (text.find("\"servebench.sweep\"") != std::string::npos) {
      runs.push_back(parse_sweep(text, p));
    } else {
      vllm_files.emplace_back(p, std::move(text));
    }
  }
  for (Run& r : group_vllm(vllm_files)) runs.push_back(std::move(r));
  return runs;
}

}  // namespace sb::results
