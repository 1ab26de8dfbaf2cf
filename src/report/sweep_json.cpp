#include "report/server_side_json.hpp"
#include "report/steady_json.hpp"
#include "report/sweep_json.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>

#include "core/error.hpp"
#include "report/load_search.hpp"
#include "report/atomic_file.hpp"
#include "report/client_use_json.hpp"
#include "report/py_json.hpp"
#include "report/telemetry_json.hpp"
#include "report/vllm_result.hpp"

namespace sb::report {

namespace {

using nlohmann::ordered_json;

constexpr int kSchemaVersion = 1;

ordered_json number_or_inf(double v) {
  return v == std::numeric_limits<double>::infinity() ? ordered_json("inf") : ordered_json(v);
}

ordered_json stats_json(const MetricStats& m) {
  ordered_json j;
  j["mean"] = m.mean_ms;
  j["median"] = m.median_ms;
  j["std"] = m.std_ms;
  for (const auto& [p, v] : m.percentiles_ms) {
    std::string key = "p";
    key += percentile_word(p);
    j[key] = v;
  }
  return j;
}

ordered_json optional_stats(const std::optional<MetricStats>& m) {
  return m ? stats_json(*m) : ordered_json(nullptr);
}

ordered_json length_json(const LengthStats& l) {
  return ordered_json{{"mean", l.mean}, {"p50", l.p50}, {"p99", l.p99}};
}

ordered_json errors_json(const std::map<std::string, ErrorCategory>& errors) {
  ordered_json j = ordered_json::object();
  for (const auto& [name, e] : errors) {
    if (e.count <= 0) continue;
    ordered_json statuses = ordered_json::object();
    for (const auto& [status, n] : e.http_statuses) statuses[std::to_string(status)] = n;
    j[name] = ordered_json{{"count", e.count}, {"sample", e.sample}, {"http_statuses", std::move(statuses)}};
  }
  return j;
}

ordered_json output_check_json(const OutputCheck& c) {
  ordered_json reasons = ordered_json::object();
  for (const auto& [name, n] : c.finish_reasons) reasons[name] = n;
  return ordered_json{{"requested_tokens", c.requested_tokens}, {"delivered_tokens", c.delivered_tokens},
                      {"shortfall", c.shortfall}, {"short_of_requested", c.short_of_requested},
                      {"short_requests", c.short_requests}, {"finish_reasons", std::move(reasons)},
                      {"without_text", c.without_text}};
}

double load_value(const RunContext& ctx, const StageSummary& s) {
  if (ctx.load_mode == LoadMode::concurrency && s.load.max_concurrency) return *s.load.max_concurrency;
  return s.load.request_rate;
}

ordered_json servebench_block(const RunContext& ctx, const StageSummary& s) {
  ordered_json j;
  j["stage_index"] = s.stage_index;
  j["load_value"] = number_or_inf(load_value(ctx, s));
  j["open_loop"] = s.load.open_loop();
  j["start_unix_s"] = s.start_unix_s;
  j["end_unix_s"] = s.end_unix_s;
  j["sent"] = s.sent;
  j["resent"] = s.resent;
  j["aborted"] = s.aborted;
  j["errors"] = errors_json(s.errors);
  j["token_count_source"] = s.token_count_source;
  j["schedule_lag_ms"] = s.schedule_lag ? ordered_json{{"p50", s.schedule_lag->p50_ms},
                                                       {"p99", s.schedule_lag->p99_ms},
                                                       {"max", s.schedule_lag->max_ms}}
                                        : ordered_json(nullptr);
  j["client_saturated"] = s.client_saturated;
  j["client_limit"] = s.client_limit == ClientLimit::none ? ordered_json(nullptr) : ordered_json(to_string(s.client_limit));
  j["dispatch_lag_ms"] = s.dispatch_lag ? ordered_json{{"p50", s.dispatch_lag->p50_ms}, {"p99", s.dispatch_lag->p99_ms},
                                                       {"max", s.dispatch_lag->max_ms}}
                                        : ordered_json(nullptr);
  j["client_use"] = s.client_use ? client_use_json(*s.client_use) : ordered_json(nullptr);
  j["ttft_from_intended_ms"] = optional_stats(s.ttft_from_intended);
  j["e2el_from_intended_ms"] = optional_stats(s.e2el_from_intended);
  j["client_queue_ms"] = stats_json(s.client_queue_time);
  j["in_flight"] = ordered_json{{"mean", s.in_flight_mean}, {"max", s.in_flight_max}};
  j["input_len"] = ordered_json{{"requested", length_json(s.input_requested)},
                                {"delivered", length_json(s.input_delivered)}};
  j["output_len"] = ordered_json{{"requested", length_json(s.output_requested)},
                                 {"delivered", length_json(s.output_delivered)}};
  if (s.steady) {  // stages summarised by a run (documents from older versions have neither)
    j["repeat"] = s.repeat;
    j["steady_state"] = steady_state_json(s);
  }
  j["output_check"] = output_check_json(s.output_check);
  // Samples behind vLLM's TPOT/ITL: 0 means their 0.0 is no measurement (streams without text).
  j["latency_samples"] = ordered_json{{"ttft", s.ttft.count}, {"tpot", s.tpot.count}, {"itl", s.itl.count},
                                      {"e2el", s.e2el.count}};
  j["prompt_selection"] = s.prompt_selection.empty() ? ordered_json(nullptr) : ordered_json(s.prompt_selection);
  // Only when the server reported them (most engines do not).
  if (s.ttft_breakdown) j["ttft_breakdown_ms"] = ttft_breakdown_json(*s.ttft_breakdown);
  if (s.prompt_cache) j["prompt_cache"] = prompt_cache_json(*s.prompt_cache);
  if (s.server) j["server_metrics"] = server_metrics_json(*s.server);  // --scrape-metrics only
  if (s.gpu) j["gpu_telemetry"] = gpu_telemetry_json(*s.gpu);          // --gpu-telemetry only
  return j;
}

// The run's selection: one word when every stage used it, else "mixed" (each stage says its own).
ordered_json run_prompt_selection(const std::vector<StageSummary>& stages) {
  std::string all;
  for (const StageSummary& s : stages) {
    if (s.prompt_selection.empty()) continue;
    if (all.empty()) all = s.prompt_selection;
    else if (all != s.prompt_selection) return "mixed";
  }
  return all.empty() ? ordered_json(nullptr) : ordered_json(all);
}

ordered_json environment_json(const RunContext& ctx) {
  ordered_json j;
  j["hostname"] = ctx.hostname;
  j["os"] = ctx.os;
  j["cpu_count"] = ctx.cpu_count;
  j["client_threads"] = ctx.client_threads;
  j["client_ceiling"] = ctx.client_ceiling ? ceiling_json(*ctx.client_ceiling) : ordered_json(nullptr);
  if (ctx.server_time_scale != 1) {  // servebench sim --time-scale K (docs/results-format.md "environment")
    j["server_time_scale"] = ctx.server_time_scale;
    j["time_factor"] = ctx.time_factor;
  }
  j["clock_anchor"] = ordered_json{{"steady_ns", ctx.clock_anchor.steady_ns}, {"unix_ns", ctx.clock_anchor.unix_ns}};
  const HostClocks& c = ctx.clocks_at_start;
  if (c.realtime_ns != 0)  // a context a run filled (report/compare build theirs without)
    j["clocks_at_start"] = ordered_json{{"steady_ns", c.steady_ns}, {"realtime_ns", c.realtime_ns},
                                        {"monotonic_ns", c.monotonic_ns}, {"monotonic_raw_ns", c.monotonic_raw_ns},
                                        {"boottime_ns", c.boottime_ns}};
  return j;
}

ordered_json config_json(const std::string& text) {
  if (text.empty()) return ordered_json::object();
  ordered_json j = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  // The text comes from cli/run; keep it visible rather than drop it if it is ever malformed.
  if (j.is_discarded()) return ordered_json{{"unparsed", text}};
  return j;
}

}  // namespace

ordered_json sweep_stage_json(const RunContext& ctx, const StageSummary& s) {
  VllmStageOptions opt;
  opt.metrics = vllm_selected_metrics({"ttft", "tpot", "itl", "e2el"}, s.load);
  for (const auto& pv : s.ttft.percentiles_ms) opt.percentiles.push_back(pv.first);
  opt.date = vllm_date(static_cast<std::int64_t>(s.end_unix_s));
  opt.include_rtfx = false;
  ordered_json j = vllm_stage_json(ctx, s, opt);
  j["servebench"] = servebench_block(ctx, s);
  return j;
}

ordered_json sweep_json(const RunContext& ctx, const std::vector<StageSummary>& stages, const SweepMeta& meta) {
  ordered_json j;
  j["schema_version"] = kSchemaVersion;
  j["kind"] = "servebench.sweep";
  j["tool"] = ordered_json{{"name", "servebench"}, {"version", SB_VERSION}};
  j["created"] = iso8601_utc(meta.created_unix_s);
  j["label"] = ctx.label ? ordered_json(*ctx.label) : ordered_json(nullptr);
  j["aborted"] = meta.aborted;
  j["config"] = config_json(ctx.config_json);
  j["environment"] = environment_json(ctx);
  // Which engine's dialect the run spoke (docs/engines.md): detected at preflight, or --engine.
  j["engine"] = ordered_json{{"name", ctx.engine}, {"known_from", ctx.engine_clue},
                             {"version", ctx.engine_version.empty() ? ordered_json(nullptr)
                                                                    : ordered_json(ctx.engine_version)}};
  // Ours (docs/results-format.md): numbers from `servebench predict`, not measured.
  if (!ctx.prediction_json.empty()) {
    j["predicted"] = true;
    j["prediction"] = config_json(ctx.prediction_json);
  }
  j["load_mode"] = ctx.load_mode == LoadMode::concurrency ? "concurrency" : "request_rate";
  if (meta.load_search) j["load_search"] = load_search_json(*meta.load_search);  // only searched runs
  j["requests_file"] = meta.requests_file ? ordered_json(*meta.requests_file) : ordered_json(nullptr);
  j["prompt_selection"] = run_prompt_selection(stages);
  ordered_json arr = ordered_json::array();
  for (const StageSummary& s : stages) arr.push_back(sweep_stage_json(ctx, s));
  j["stages"] = std::move(arr);
  j["analysis"] = meta.analysis;
  if (!meta.repeats.is_null()) j["repeats"] = meta.repeats;
  return j;
}

void write_sweep_json(const std::string& path, const ordered_json& doc) {
  std::string text = py_json_dump(doc, {.indent = 2, .nan_as_null = true});
  text += '\n';
  write_file_atomic(path, text);
}

std::string iso8601_utc(std::int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[32];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {buf, n};
}

}  // namespace sb::report
