#pragma once
// Reads result files into plain structs for the analyzer and the HTML writer:
//  - servebench sweep documents (docs/results-format.md §1-2) and their per-request JSONL (§3);
//  - vLLM's own result JSON files, one per rate/concurrency (vllm-bench-spec §6.1), grouped into
//    one run per (label, backend, model) so old results can be brought along.
// Cold path: nlohmann is used for parsing; every malformed input becomes a one-line sb::UserError
// naming the file (and line where the parser knows it).
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::results {

struct Stage {
  int stage_index = 0;
  double load_value = 0;               // concurrency or rate of this stage (may be +inf)
  double request_rate = 0;             // +inf when all requests were released at t0
  std::optional<int> max_concurrency;
  int num_prompts = 0, completed = 0, failed = 0;
  double duration_s = 0;
  double request_throughput = 0, output_throughput = 0, total_token_throughput = 0;
  std::optional<double> request_goodput;
  std::map<std::string, double> latency_ms;  // every vLLM "*_ms" key as written, e.g. "p99_ttft_ms"
  bool client_saturated = false;
  std::optional<double> schedule_lag_p99_ms;
  std::optional<double> input_len_mean, output_len_mean;  // delivered tokens per request
  std::map<std::string, int> errors;   // outcome category -> count

  // Metric by name: throughput keys, vLLM latency keys, and the aliases `ttft_p99`, `ttft_p99_ms`,
  // `p50_X_ms` (falls back to `median_X_ms`). nullopt when the file does not have it.
  std::optional<double> value(std::string_view name) const;
};

// One request of the per-request data (JSONL, or vLLM's --save-detailed arrays).
struct Request {
  int stage = 0;
  bool ok = false;
  double ttft_ms = -1, tpot_ms = -1, e2el_ms = -1;  // -1: not measured for this request
  int output_tokens = 0;
};

struct Run {
  std::string source;                  // file path (first file for grouped vLLM results)
  std::string format;                  // "servebench.sweep" or "vllm"
  std::string label;                   // --label, else backend/model
  std::string load_mode = "concurrency";  // "concurrency" or "request_rate"
  std::string model, backend, dataset;
  std::string config_json;             // configuration, secrets redacted, pretty-printed
  bool aborted = false;
  std::vector<Stage> stages;           // sorted by load_value
  std::vector<Request> requests;       // empty when no per-request data was found
  std::vector<std::string> notes;      // what was missing while reading (e.g. JSONL not found)

  // Stage index (into `stages`) for a load value, or -1.
  int find_stage(double load_value) const;
};

// Reads every path (sweep documents and/or vLLM files; a folder means the *.json files in it).
// Throws sb::UserError on bad input.
std::vector<Run> read_runs(const std::vector<std::string>& paths);

// Parsers over text, for tests and for read_runs. `path` is only used in messages and to find the
// per-request JSONL next to the document.
Run parse_sweep(std::string_view text, const std::string& path);
std::vector<Run> group_vllm(const std::vector<std::pair<std::string, std::string>>& path_texts);
std::vector<Request> parse_requests_jsonl(std::string_view text, const std::string& path);

// Replaces values of secret-looking keys (api_key, authorization, password, secret, header values).
std::string redact_config(std::string_view json_text);

}  // namespace sb::results
