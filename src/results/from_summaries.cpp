#include "results/from_summaries.hpp"

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "results/json_fields.hpp"

namespace sb::results {
namespace {

std::optional<double> finite(double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; }
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

std::optional<MetricStats> convert(const sb::MetricStats& m, const std::vector<double>& percentiles) {
  MetricStats out;
  out.mean = finite(m.mean_ms);
  out.median = finite(m.median_ms);
  out.std = finite(m.std_ms);
  for (double p : percentiles)
    if (const auto v = finite(m.percentile_ms(p))) out.percentiles.emplace_back(p, *v);
  if (out.empty()) return std::nullopt;
  return out;
}

void apply_config(const std::string& text, Run& run) {
  nlohmann::json cfg = nlohmann::json::object();
  if (!text.empty()) {
    cfg = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (cfg.is_discarded()) cfg = nlohmann::json{{"unparsed", text}};  // kept visible, as the writer does
  }
  nlohmann::json redacted = cfg;
  detail::redact(redacted, false);
  run.config_json = redacted.dump(2);
  run.model = detail::string_or(cfg, "model");
  run.backend = detail::string_or(cfg, "backend");
  if (auto it = cfg.find("dataset"); it != cfg.end() && it->is_object()) run.dataset = detail::string_or(*it, "name");
}

}  // namespace

Stage stage_from_summary(const StageSummary& s, LoadMode mode) {
  Stage st;
  st.stage_index = static_cast<int>(s.stage_index);
  st.request_rate = s.load.request_rate;
  st.max_concurrency = s.load.max_concurrency;
  const bool by_concurrency = mode == LoadMode::concurrency && s.load.max_concurrency;
  st.load_value = by_concurrency ? *s.load.max_concurrency : s.load.request_rate;
  st.num_prompts = s.num_prompts;
  st.completed = s.completed;
  st.failed = s.failed;
  st.duration_s = finite_or_zero(s.duration_s);
  st.request_throughput = finite_or_zero(s.request_throughput);
  st.output_throughput = finite_or_zero(s.output_throughput);
  st.total_token_throughput = finite_or_zero(s.total_token_throughput);
  if (s.request_goodput) st.request_goodput = finite(*s.request_goodput);
  std::vector<double> percentiles;
  for (const auto& pv : s.ttft.percentiles_ms) percentiles.push_back(pv.first);
  st.stats(Metric::ttft) = convert(s.ttft, percentiles);
  st.stats(Metric::tpot) = convert(s.tpot, percentiles);
  st.stats(Metric::itl) = convert(s.itl, percentiles);
  st.stats(Metric::e2el) = convert(s.e2el, percentiles);
  if (s.load.max_concurrency) {
    st.stats(Metric::client_queue_time) = convert(s.client_queue_time, percentiles);
    if (s.load.open_loop())
      st.stats(Metric::e2el_including_client_queue) = convert(s.e2el_including_client_queue, percentiles);
  }
  st.client_saturated = s.client_saturated;
  st.client_limit = s.client_limit;
  if (s.client_use) {
    st.client_busy = s.client_use->busiest_thread_busy;
    st.client_ceiling_fraction = s.client_use->ceiling_fraction;
  }
  if (s.schedule_lag) st.schedule_lag_p99_ms = finite_or_zero(s.schedule_lag->p99_ms);
  for (const auto& [name, e] : s.errors)
    if (e.count > 0) st.errors[name] = e.count;
  st.input_len_mean = finite_or_zero(s.input_delivered.mean);
  st.output_len_mean = finite_or_zero(s.output_delivered.mean);
  st.start_unix_s = s.start_unix_s;
  st.end_unix_s = s.end_unix_s;
  st.output_check = s.output_check;
  if (s.ttft_from_intended) st.ttft_from_intended_p99_ms = finite_or_zero(s.ttft_from_intended->percentile_ms(99));
  st.prompt_selection = s.prompt_selection;
  st.ttft_breakdown = s.ttft_breakdown;
  st.prompt_cache = s.prompt_cache;
  st.server = s.server;
  st.gpu = s.gpu;
  return st;
}

Run from_summaries(const RunInfo& info, const std::vector<StageSummary>& stages) {
  Run run;
  run.source = info.source;
  run.format = "servebench.sweep";
  run.load_mode = info.load_mode;
  run.aborted = info.aborted;
  run.server_time_scale = info.server_time_scale;
  run.time_factor = info.time_factor;
  apply_config(info.config_json, run);
  run.label = info.label.value_or(std::filesystem::path(info.source).stem().string());
  for (const StageSummary& s : stages) run.stages.push_back(stage_from_summary(s, info.load_mode));
  sort_stages(run);
  return run;
}

}  // namespace sb::results
