// vLLM's result files (`vllm bench serve --save-result`, one per rate or concurrency) grouped into
// runs of the results model; declared in result_reader.hpp.
#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "results/json_fields.hpp"
#include "results/result_reader.hpp"

namespace sb::results {
namespace {

using nlohmann::json;
using detail::number_or;
using detail::string_or;

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

Run new_vllm_run(const std::string& path, const json& j, const std::string& label) {
  Run r;
  r.source = path;
  r.format = "vllm";
  r.label = label;
  r.model = string_or(j, "model_id");
  r.backend = string_or(j, "backend", string_or(j, "endpoint_type"));
  json cfg = {{"backend", r.backend}, {"model", r.model}, {"burstiness", number_or(j, "burstiness", 1)}};
  r.config_json = cfg.dump(2);
  return r;
}

// Several max_concurrency values under an unlimited rate = a concurrency sweep; else a rate sweep.
void settle_load_mode(Run& run) {
  bool concurrency_sweep = std::all_of(run.stages.begin(), run.stages.end(), [](const Stage& s) {
    return s.max_concurrency.has_value() && std::isinf(s.request_rate);
  });
  run.load_mode = concurrency_sweep ? LoadMode::concurrency : LoadMode::request_rate;
  for (Stage& s : run.stages) s.load_value = concurrency_sweep ? *s.max_concurrency : s.request_rate;
  sort_stages(run);
  // vLLM files have no run order (a shell glob sorts "16" before "2"): number them by load.
  for (std::size_t i = 0; i < run.stages.size(); ++i) run.stages[i].stage_index = static_cast<int>(i);
}

}  // namespace

std::vector<Run> group_vllm(const std::vector<std::pair<std::string, std::string>>& path_texts) {
  std::vector<Run> runs;
  std::map<std::string, std::size_t> by_key;
  for (const auto& [path, text] : path_texts) {
    json j = detail::parse_json(text, path);
    if (!j.is_object()) throw UserError(path + ": not a JSON object");
    Stage s = detail::read_vllm_keys(j, path);
    const std::string backend = string_or(j, "backend", string_or(j, "endpoint_type"));
    const std::string model = string_or(j, "model_id");
    const std::string label = string_or(j, "label", backend + " " + model);
    auto [it, fresh] = by_key.emplace(label + "\n" + backend + "\n" + model, runs.size());
    if (fresh) runs.push_back(new_vllm_run(path, j, label));
    Run& run = runs[it->second];
    s.stage_index = static_cast<int>(run.stages.size());
    read_vllm_detail(j, s.stage_index, run.requests);
    run.stages.push_back(std::move(s));
  }
  for (Run& run : runs) settle_load_mode(run);
  return runs;
}

}  // namespace sb::results
