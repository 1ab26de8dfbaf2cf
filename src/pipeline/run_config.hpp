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
#include "load/staircase.hpp"
#include "net/endpoint.hpp"
#include "net/http_call.hpp"
#include "protocol/api.hpp"

namespace sb::pipeline {

struct RunConfig {
  // Target
  std::string backend = "openai";           // vllm | openai | openai-chat, as typed
  Api api = Api::completions;
  Endpoint endpoint;                        // from --base-url or --host/--port
  std::string base_url;                     // normalised, for messages and results
  std::string endpoint_path = "/v1/completions";
  std::optional<std::string> model;         // nullopt: first id of /v1/models
  std::optional<std::string> served_model_name;
  HeaderList headers;                       // --header K=V, in order (values may be secret)
  std::string api_key;                      // secret: never printed, never in results
  std::string api_key_source;               // "env OPENAI_API_KEY", "config file", "" (none)
  std::optional<std::string> tokenizer;
  double timeout_s = 21600;                 // whole request (vLLM: 6 h)
  double idle_timeout_s = 300;              // silence between two reads of one response
  int client_threads = 0;                   // 0 = hardware concurrency

  // Dataset and load: the layers' own parameters (num_prompts, the requests per stage, is the dataset's)
  DatasetConfig dataset;
  StaircaseParams load;                     // --concurrency / --request-rate lists, limit, burstiness, ramp-up
  int num_warmups = 0;

  // Request content
  bool ignore_eos = false;
  std::optional<int> logprobs;
  std::string sampling_json;                // set sampling flags as a JSON object, "" if none
  std::string extra_body_json;              // --extra-body, "" if none

  // Reporting and outputs
  std::vector<std::string> percentile_metrics{"ttft", "tpot", "itl"};
  std::vector<double> metric_percentiles{99};
  std::map<std::string, double> goodput_slo_ms;
  bool save_result = false, save_detailed = false, disable_tqdm = false;
  std::string result_dir;                   // "" = current directory
  std::optional<std::string> result_filename;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::optional<std::string> label;
  std::string output_json;                  // sweep document, "" = none
  std::string requests_jsonl;               // per-request records, "" = none
  std::string csv;                          // --csv: one row per stage, "" = none
  std::optional<double> max_failure_ratio;  // exit 4 when a stage's failed/sent exceeds it
  std::optional<std::string> config_path;   // the config file that was read, if any
};

// Every problem with the configuration, by field path ("dataset.num_prompts", "load.ramp.end_rps",
// "max_failure_ratio"): the layers' validate() for their parts, plus the run's own fields.
Problems validate(const RunConfig& c);

// "bench-<8 hex>-": vLLM's default x-request-id prefix, random per run.
std::string random_request_id_prefix();

// <dir>/<stem>.requests.jsonl next to the sweep document, else next to the vLLM files, else "".
std::string default_requests_path(const RunConfig& c);

}  // namespace sb::pipeline
