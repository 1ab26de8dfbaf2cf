#pragma once
// What the reporters need to know about a run besides the per-stage numbers. Plain data, filled by
// cli/run from RunConfig; secrets are never put here (headers carry names only).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/host_clocks.hpp"
#include "load/staircase.hpp"
#include "metrics/client_use.hpp"

namespace sb::report {

struct RunContext {
  std::string backend = "openai";         // --backend as typed (vllm, openai, openai-chat)
  std::optional<std::string> label;
  std::string model_id;                   // --model or first /v1/models id
  std::string served_model_name;          // model field sent
  // The engine behind the URL (target/engine.hpp names): "openai" (generic), "vllm", "sglang",
  // "tgi", "llama.cpp"; how it was known ("given" = --engine, "props", ...); its version, "" if unknown.
  std::string engine = "openai";
  std::string engine_clue = "none";
  std::string engine_version;
  std::string tokenizer_id;               // "" if none
  std::string base_url, endpoint;
  int num_prompts = 0;
  LoadMode load_mode = LoadMode::request_rate;
  std::vector<double> load_values;
  std::vector<double> metric_percentiles{99};
  std::vector<std::string> percentile_metrics{"ttft", "tpot", "itl"};
  std::map<std::string, double> goodput_slo_ms;      // ttft/tpot/e2el -> ms
  // --ramp-up-strategy (as in vllm/benchmarks/serve.py): "" = none, else linear | exponential; rates are integers.
  std::string ramp_up_strategy;
  double ramp_up_start_rps = 0, ramp_up_end_rps = 0;
  std::vector<std::pair<std::string, std::string>> metadata;  // --metadata K=V, in order
  std::string config_json;                // resolved config as a JSON object text, secrets redacted
  // servebench predict: what the prediction was made from (a JSON object text: presets, engine
  // config file, engine numbers); "" for a measured run. Non-empty marks the sweep "predicted".
  std::string prediction_json;
  ClockAnchor clock_anchor;
  HostClocks clocks_at_start;             // every host clock, read with clock_anchor (profiler alignment)
  int client_threads = 0;                 // worker threads the run used (the default resolved)
  // The server runs this many times faster than the GPU it models (servebench sim --time-scale K,
  // advertised in /v1/models); 1 for a real server. time_factor is what the run applied to go from
  // wall-clock to modelled time: K, or 1 with --wall-clock-times (docs/run.md "Simulated time").
  double server_time_scale = 1;
  double time_factor = 1;
  std::optional<ClientCeiling> client_ceiling;  // servebench selftest's numbers; nullopt: --no-selftest
  // Machine the client ran on (sweep document `environment`); fill_environment() sets them.
  std::string hostname, os;
  int cpu_count = 0;
};

// Fills hostname, os ("<sysname> <release>") and cpu_count from the running machine.
void fill_environment(RunContext& ctx);

}  // namespace sb::report
