#include "results/result_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "results/json_fields.hpp"
#include "results/server_side_keys.hpp"
#include "results/telemetry_reader.hpp"

namespace sb::results {
namespace {

using nlohmann::json;
using detail::number_or;
using detail::parse_json;
using detail::string_or;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open results file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// docs/results-format.md: output_check, ttft_from_intended_ms, prompt_selection, steady_state.duration_bounded
// (absent in older documents).
void read_workload_keys(const json& sb, Stage& s) {
  if (auto it = sb.find("output_check"); it != sb.end() && it->is_object()) {
    OutputCheck c;
    c.requested_tokens = static_cast<std::int64_t>(number_or(*it, "requested_tokens", 0));
    c.delivered_tokens = static_cast<std::int64_t>(number_or(*it, "delivered_tokens", 0));
    c.short_requests = static_cast<int>(number_or(*it, "short_requests", 0));
    c.without_text = static_cast<int>(number_or(*it, "without_text", 0));
    c.shortfall = number_or(*it, "shortfall", 0);
    c.short_of_requested = it->value("short_of_requested", false);
    if (auto r = it->find("finish_reasons"); r != it->end() && r->is_object())
      for (const auto& [name, n] : r->items()) c.finish_reasons[name] = n.is_number() ? n.get<int>() : 0;
    s.output_check = std::move(c);
  }
  if (auto it = sb.find("ttft_from_intended_ms"); it != sb.end() && it->is_object() && it->contains("p99"))
    s.ttft_from_intended_p99_ms = number_or(*it, "p99", 0);
  if (auto it = sb.find("prompt_selection"); it != sb.end() && it->is_string()) s.prompt_selection = it->get<std::string>();
  if (auto it = sb.find("steady_state"); it != sb.end() && it->is_object())
    s.duration_bounded = it->value("duration_bounded", false);
  detail::read_telemetry_keys(sb, s);
}

// servebench.client_limit and client_use (documents before them have neither: a saturated stage
// then reads as limited by the client's CPU, which is what client_saturated meant).
void read_client_keys(const json& sb, Stage& s) {
  const auto limit = sb.find("client_limit");
  const std::string name = limit != sb.end() && limit->is_string() ? limit->get<std::string>() : "";
  s.client_limit = name == "cpu" ? ClientLimit::cpu
                   : name == "concurrency_limit" ? ClientLimit::concurrency_limit
                   : s.client_saturated ? ClientLimit::cpu
                                        : ClientLimit::none;
  if (auto it = sb.find("client_use"); it != sb.end() && it->is_object()) {
    if (it->contains("busiest_thread_busy")) s.client_busy = number_or(*it, "busiest_thread_busy", 0);
    if (auto f = it->find("ceiling_fraction"); f != it->end() && f->is_number()) s.client_ceiling_fraction = f->get<double>();
  }
}

void read_servebench_block(const json& sb, Stage& s) {
  s.load_value = number_or(sb, "load_value", s.load_value);
  s.stage_index = static_cast<int>(number_or(sb, "stage_index", s.stage_index));
  s.client_saturated = sb.value("client_saturated", false);
  read_client_keys(sb, s);
  s.repeat = static_cast<int>(number_or(sb, "repeat", 0));
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
  for (auto [key, field] : {std::pair{"start_unix_s", &s.start_unix_s}, std::pair{"end_unix_s", &s.end_unix_s}}) {
    if (auto it = sb.find(key); it != sb.end() && it->is_number()) *field = it->get<double>();
  }
  read_workload_keys(sb, s);
  detail::read_server_side_keys(sb, s);
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

// The document's load_mode: "concurrency" (also when absent), else a rate sweep.
LoadMode load_mode_of(const json& doc) {
  return string_or(doc, "load_mode", "concurrency") == "concurrency" ? LoadMode::concurrency : LoadMode::request_rate;
}

// analysis.knee.stage_index of a document a run analysed itself.
std::optional<int> knee_stage_index(const json& doc) {
  const auto a = doc.find("analysis");
  if (a == doc.end() || !a->is_object()) return std::nullopt;
  const auto k = a->find("knee");
  if (k == a->end() || !k->is_object()) return std::nullopt;
  const auto i = k->find("stage_index");
  if (i == k->end() || !i->is_number_integer()) return std::nullopt;
  return i->get<int>();
}

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

[[noreturn]] void bad_windows(const std::string& source, const std::string& what) {
  throw UserError(source + ": " + what);
}

double window_number(const json& sb, const char* key, const std::string& source, std::size_t i) {
  const auto it = sb.find(key);
  if (it == sb.end() || !it->is_number())
    bad_windows(source, "stages[" + std::to_string(i) + "].servebench." + key + " missing or not a number");
  return it->get<double>();
}

Stage read_window(const json& stage, const std::string& source, std::size_t i) {
  const auto sb = stage.is_object() ? stage.find("servebench") : stage.end();
  if (!stage.is_object() || sb == stage.end() || !sb->is_object())
    bad_windows(source, "stages[" + std::to_string(i) +
                            "] has no \"servebench\" object (not a servebench sweep document?)");
  Stage s;
  s.stage_index = sb->value("stage_index", static_cast<int>(i));
  const auto lv = sb->find("load_value");
  if (lv != sb->end() && lv->is_string() && lv->get<std::string>() == "inf")
    s.load_value = std::numeric_limits<double>::infinity();
  else
    s.load_value = window_number(*sb, "load_value", source, i);
  s.start_unix_s = window_number(*sb, "start_unix_s", source, i);
  s.end_unix_s = window_number(*sb, "end_unix_s", source, i);
  return s;
}

}  // namespace

std::string redact_config(std::string_view json_text) {
  json j = parse_json(json_text, "config");
  detail::redact(j, false);
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
  run.load_mode = load_mode_of(doc);
  run.aborted = doc.value("aborted", false);
  const json cfg = doc.value("config", json::object());
  json redacted = cfg;
  detail::redact(redacted, false);
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
    Stage s = detail::read_vllm_keys(stages[i], where);
    s.stage_index = static_cast<int>(i);
    s.load_value = run.load_mode == LoadMode::concurrency ? s.max_concurrency.value_or(0) : s.request_rate;
    if (auto it = stages[i].find("servebench"); it != stages[i].end() && it->is_object())
      read_servebench_block(*it, s);
    run.stages.push_back(std::move(s));
  }
  run.knee_stage_index = knee_stage_index(doc);
  run.clocks_at_start = detail::read_clocks_at_start(doc);
  detail::read_time_scale(doc, run.server_time_scale, run.time_factor);
  load_requests_file(run, doc, path);
  sort_stages(run);
  return run;
}

Run parse_sweep_windows(std::string_view text, const std::string& source) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const std::string expected = " (expected a sweep document from 'servebench run --output-json')";
  if (doc.is_discarded() || !doc.is_object()) bad_windows(source, "not a JSON object" + expected);
  const auto st = doc.find("stages");
  if (st == doc.end() || !st->is_array()) bad_windows(source, "no \"stages\" array" + expected);
  Run run;
  run.source = source;
  run.format = "servebench.sweep";
  run.load_mode = load_mode_of(doc);
  for (std::size_t i = 0; i < st->size(); ++i) run.stages.push_back(read_window((*st)[i], source, i));
  if (run.stages.empty()) bad_windows(source, "the sweep has no stages");
  run.knee_stage_index = knee_stage_index(doc);
  run.clocks_at_start = detail::read_clocks_at_start(doc);
  return run;
}

std::vector<Run> split_repeats(Run run) {
  int passes = 1;
  for (const Stage& s : run.stages) passes = std::max(passes, s.repeat + 1);
  if (passes == 1) return {std::move(run)};
  std::vector<Run> out;
  for (int k = 0; k < passes; ++k) {
    Run pass = run;
    pass.stages.clear();
    for (const Stage& s : run.stages)
      if (s.repeat == k) pass.stages.push_back(s);
    if (pass.stages.empty()) continue;
    pass.label = run.label + " repeat " + std::to_string(k + 1);
    // The JSONL's stage numbers do not say the pass: no sample can be given to the right one.
    if (!pass.requests.empty())
      pass.notes.push_back("per-request samples not used: the requests file does not say which repeat each belongs to");
    pass.requests.clear();
    if (k > 0) pass.knee_stage_index.reset();  // the document's analysis is the first pass's
    out.push_back(std::move(pass));
  }
  return out;
}

std::vector<Run> read_runs(const std::vector<std::string>& paths) {
  std::vector<Run> runs;
  std::vector<std::pair<std::string, std::string>> vllm_files;
  for (const std::string& p : expand_folders(paths)) {
    std::string text = read_file(p);
    if (text.find("\"servebench.sweep\"") != std::string::npos) {
      for (Run& r : split_repeats(parse_sweep(text, p))) runs.push_back(std::move(r));
    } else {
      vllm_files.emplace_back(p, std::move(text));
    }
  }
  for (Run& r : group_vllm(vllm_files)) runs.push_back(std::move(r));
  return runs;
}

}  // namespace sb::results
