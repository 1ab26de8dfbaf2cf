#pragma once
// The typed configuration of one run (a staircase against one target): what `servebench run` builds
// from flags, a config file and the environment, and what `demo` (and later `tune`) fill directly.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/problem.hpp"
#include "dataset/dataset.hpp"
#include "exec/runner.hpp"
#include "load/shard.hpp"
#include "load/staircase.hpp"
#include "protocol/request_builder.hpp"
#include "target/engine.hpp"
#include "telemetry/gpu_readings.hpp"
#include "telemetry/metrics_scraper.hpp"

namespace sb::pipeline {

struct RunConfig {
  // Target
  std::string backend = "openai";           // vllm | openai | openai-chat, as typed
  ClientOptions client;                     // endpoint, path, api, --header pairs, timeouts, threads;
                                            // the run puts the API key in front of the headers
  std::string base_url;                     // normalised, for messages and results
  std::optional<std::string> model;         // nullopt: first id of /v1/models
  std::optional<std::string> served_model_name;
  std::string api_key;                      // secret: never printed, never in results
  std::string api_key_source;               // "env OPENAI_API_KEY", "config file", "" (none)
  std::optional<std::string> tokenizer;
  std::optional<Engine> engine;             // --engine; nullopt: detected at preflight (docs/engines.md)

  // Dataset and load: the layers' own parameters (num_prompts, the requests per stage, is the dataset's)
  DatasetConfig dataset;
  StaircaseParams load;                     // --concurrency / --request-rate lists, limit, burstiness, ramp-up
  int num_warmups = 0;
  bool preflight_request = true;
  // The client's ceiling on this machine (pipeline/selftest.hpp), measured or cached by the caller
  // before the run (cli: unless --no-selftest); each stage's client use is compared with it.
  bool selftest = true;
  std::optional<ClientCeiling> client_ceiling;
  // Steady state (docs/run.md "Steady-state stages"): each stage issues for stage_seconds (and, when
  // prompts_bound_stages, at most num_prompts requests: whichever ends first), then drains; without
  // the prompt bound the dataset's prompts are reused cyclically. The whole staircase runs `repeats` times.
  std::optional<double> stage_seconds;
  bool prompts_bound_stages = true;
  int repeats = 1;            // one real request (the first one's body) before the load

  // Request content: ignore_eos, logprobs, sampling flags, --extra-body; the run fills in `api` (the
  // client's) and `model` (the served name preflight found)
  RequestOptions request;

  // Reporting and outputs
  std::vector<std::string> percentile_metrics{"ttft", "tpot", "itl"};
  std::vector<double> metric_percentiles{99};
  std::map<std::string, double> goodput_slo_ms;
  bool save_result = false, save_detailed = false, disable_tqdm = false;
  // --wall-clock-times: report the wall clock even when the server (servebench sim --time-scale K)
  // runs K times faster than the GPU it models; by default such a run reports modelled times.
  bool wall_clock_times = false;
  std::string result_dir;                   // "" = current directory
  std::optional<std::string> result_filename;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::optional<std::string> label;
  std::string output_json;                  // sweep document, "" = none
  std::string requests_jsonl;               // per-request records, "" = none
  std::string csv;                          // --csv: one row per stage, "" = none
  // A stage whose failed/sent exceeds it stops the sweep there (later stages not run), exit 4;
  // 1 never stops (nullopt neither, for library callers).
  std::optional<double> max_failure_ratio = 0.5;
  std::optional<std::string> config_path;   // the config file that was read, if any

  // During the stages, off the hot path (src/telemetry/, docs/run.md "Server metrics and GPU telemetry")
  std::optional<telemetry::ScrapeTarget> scrape_metrics;  // --scrape-metrics; the run adds its headers
  telemetry::GpuTool gpu_telemetry = telemetry::GpuTool::off;  // --gpu-telemetry

  // Sharded runs (docs/distributed.md): this process sends its slice of the plan (load/shard.hpp).
  ShardSpec shard;                              // --shard I/N, or JOB_COMPLETION_INDEX + SERVEBENCH_SHARDS
  std::optional<std::int64_t> start_at_unix_ns; // --start-at: the first stage starts at this instant
  std::string barrier_dir;                      // --barrier-dir: shared folder; "" = the --output-json folder
  double barrier_timeout_s = 600;               // --barrier-timeout-s: wait for the other shards at most this
};

// Every problem with the configuration, by field path ("dataset.num_prompts", "load.ramp.end_rps",
// "max_failure_ratio"): the layers' validate() for their parts, plus the run's own fields.
Problems validate(const RunConfig& c);

// "bench-<8 hex>-": vLLM's default x-request-id prefix, random per run.
std::string random_request_id_prefix();

// <dir>/<stem>.requests.jsonl next to the sweep document, else next to the vLLM files, else "".
std::string default_requests_path(const RunConfig& c);

}  // namespace sb::pipeline
