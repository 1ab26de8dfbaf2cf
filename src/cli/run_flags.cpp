#include "cli/run_flags.hpp"

#include <array>

namespace sb::cli {

namespace {

using K = FlagKind;

constexpr std::array kFlags{
    // Target
    FlagSpec{"config", K::value,
             "TOML file with base_url, api_key, model, timeout_s and any flag, or one [table] per gateway "
             "(default ./servebench.toml)"},
    FlagSpec{"profile", K::value, "table of the config file to read, e.g. [gateway] (default: the only table)"},
    FlagSpec{"backend", K::value, "vllm | openai (completions API) | openai-chat (chat API); default openai",
             "backend"},
    FlagSpec{"engine", K::value,
             "auto | vllm | sglang | tgi | llama.cpp | openai: the server's dialect (/tokenize shape; default "
             "auto: detected at preflight, docs/engines.md)"},
    FlagSpec{"base-url", K::value,
             "server URL, e.g. http://localhost:8000 or https://gateway/api (else --host/--port)"},
    FlagSpec{"host", K::value, "server host when no --base-url (default 127.0.0.1)"},
    FlagSpec{"port", K::value, "server port when no --base-url (default 8000)"},
    FlagSpec{"endpoint", K::value, "API path (default /v1/completions, or /v1/chat/completions for openai-chat)",
             "client.path"},
    FlagSpec{"model", K::value, "model id (default: first id of GET /v1/models)"},
    FlagSpec{"served-model-name", K::value, "name sent in the `model` field (default: --model)"},
    FlagSpec{"tokenizer", K::value, "tokenizer.json file or model folder for exact prompt lengths"},
    FlagSpec{"header", K::list, "extra HTTP header KEY=VALUE (repeatable; overrides Authorization)"},
    FlagSpec{"insecure", K::flag, "skip TLS certificate verification"},
    FlagSpec{"api-key-env", K::value, "environment variable holding the API key (default OPENAI_API_KEY)"},
    FlagSpec{"timeout-s", K::value, "whole-request timeout in seconds (default 21600, as vLLM)", "client.timeout_s"},
    FlagSpec{"idle-timeout-s", K::value, "max seconds of silence within one response (default 300)",
             "client.idle_timeout_s"},
    FlagSpec{"client-threads", K::value, "client worker threads, at most 1024 (default: the CPUs this process may use, taskset and cpusets included)", "client.threads"},
    FlagSpec{"arrival-time", K::value,
             "kernel | read: stamp response bytes when they reached this machine (the kernel's receive time, "
             "plain HTTP; default) or when the client read them (vLLM's way; always so over TLS)",
             "client.kernel_arrival_times"},
    FlagSpec{"dispatch-spin-us", K::value,
             "request-rate runs: wake this many microseconds before each request is due and spin until it "
             "is, so a late timer is not dispatch lag (default 0; costs up to that much CPU per request)",
             "client.dispatch_spin_ns"},
    // Dataset
    FlagSpec{"dataset-name", K::value, "random | sharegpt | custom (default random)", "dataset.name"},
    FlagSpec{"dataset-path", K::value, "dataset file (sharegpt JSON, custom JSONL)", "dataset.path"},
    FlagSpec{"num-prompts", K::value, "requests per stage (default 1000; custom: 0 = every row)",
             "dataset.num_prompts"},
    FlagSpec{"seed", K::value, "random seed (default 0)", "dataset.seed"},
    FlagSpec{"input-len", K::value, "generic input length (= --random-input-len)", "dataset.random_input_len"},
    FlagSpec{"output-len", K::value, "generic output length (random/sharegpt/custom)",
             "dataset.random_output_len dataset.sharegpt_output_len dataset.custom_output_len"},
    FlagSpec{"random-input-len", K::value, "random: input tokens (default 1024)", "dataset.random_input_len"},
    FlagSpec{"random-output-len", K::value, "random: output tokens (default 128)", "dataset.random_output_len"},
    FlagSpec{"random-range-ratio", K::value, "random: length range ratio in [0,1), or {\"input\":r,\"output\":r}",
             "dataset.random_range_ratio_input dataset.random_range_ratio_output"},
    FlagSpec{"random-prefix-len", K::value, "random: shared prefix tokens (default 0)", "dataset.random_prefix_len"},
    FlagSpec{"sharegpt-output-len", K::value, "sharegpt: fixed output length", "dataset.sharegpt_output_len"},
    FlagSpec{"custom-output-len", K::value, "custom: output length, -1 = per-row output_tokens (default 256)",
             "dataset.custom_output_len"},
    FlagSpec{"disable-shuffle", K::flag, "keep dataset file order"},
    FlagSpec{"no-oversample", K::flag, "do not repeat requests when the dataset has fewer than --num-prompts"},
    FlagSpec{"reuse-prompts", K::flag,
             "send the same prompts in every stage, as vLLM (default: each stage its own, so a prefix cache "
             "cannot serve one stage from the last)", "dataset.reuse_prompts"},
    FlagSpec{"request-id-prefix", K::value, "x-request-id prefix (default bench-<8 hex>-)"},
    // Load
    FlagSpec{"request-rate", K::list,
             "requests/s, one stage per value (default inf); auto: search the knee, starting from the test "
             "request's 1/latency and doubling",
             "load.request_rates"},
    FlagSpec{"concurrency", K::list,
             "max in-flight requests, one stage per value (e.g. 1 4 8 16); auto: search the knee (1 2 4 ... "
             "until throughput stops growing, then inside the bracket)",
             "load.concurrency"},
    FlagSpec{"knee-precision", K::value, "auto: stop when the knee's bracket (hi-lo)/lo is within this (default 10%)",
             "load.knee_precision"},
    FlagSpec{"max-stages", K::value, "auto: at most this many stages (default 12, at least 3)", "load.max_stages"},
    FlagSpec{"max-concurrency", K::value, "in-flight limit for every rate stage", "load.max_concurrency"},
    FlagSpec{"burstiness", K::value, "gamma shape of inter-arrival gaps, 1 = Poisson (default 1.0)", "load.burstiness"},
    FlagSpec{"ramp-up-strategy", K::value,
             "linear | exponential: ramp the rate within each stage (needs --request-rate inf)", "load.ramp.kind"},
    FlagSpec{"ramp-up-start-rps", K::value, "ramp-up: request rate at the first request (integer)",
             "load.ramp.start_rps"},
    FlagSpec{"ramp-up-end-rps", K::value, "ramp-up: request rate at the last request (integer)", "load.ramp.end_rps"},
    FlagSpec{"no-preflight-request", K::flag, "skip the test request sent (like the first request) before the load"},
    FlagSpec{"no-selftest", K::flag, "skip the client's ceiling probe before the run (cached a day; servebench selftest)"},
    FlagSpec{"num-warmups", K::value, "warm-up requests before the first stage (default 0)", "num_warmups"},
    FlagSpec{"stage-seconds", K::value,
             "issue each stage's load for S seconds, then drain (with --num-prompts: whichever ends first; "
             "without it prompts are reused)",
             "stage_seconds"},
    FlagSpec{"repeats", K::value, "run the whole staircase K times and report the spread per stage (default 1)",
             "repeats"},
    // Request content
    FlagSpec{"ignore-eos", K::flag, "send ignore_eos (always on for the random dataset, as vLLM)"},
    FlagSpec{"logprobs", K::value, "logprobs per token (completions)"},
    FlagSpec{"temperature", K::value, "sampling: temperature (sent only when set)", "request.sampling_json"},
    FlagSpec{"top-p", K::value, "sampling: top_p"},
    FlagSpec{"top-k", K::value, "sampling: top_k"},
    FlagSpec{"min-p", K::value, "sampling: min_p"},
    FlagSpec{"frequency-penalty", K::value, "sampling: frequency_penalty"},
    FlagSpec{"presence-penalty", K::value, "sampling: presence_penalty"},
    FlagSpec{"repetition-penalty", K::value, "sampling: repetition_penalty"},
    FlagSpec{"extra-body", K::value, "JSON object merged into every request body last", "request.extra_body_json"},
    // Reporting
    FlagSpec{"percentile-metrics", K::value,
             "comma list of ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue", "percentile_metrics"},
    FlagSpec{"metric-percentiles", K::value, "comma list of percentiles (default 99)", "metric_percentiles"},
    FlagSpec{"goodput", K::list, "SLO KEY:MS for ttft, tpot, e2el (repeatable)", "goodput_slo_ms"},
    FlagSpec{"output-json", K::value, "write the sweep document (all stages) to FILE", "output_json"},
    FlagSpec{"csv", K::value, "write one CSV row per stage to FILE (rewritten after every stage)", "csv"},
    FlagSpec{"requests-jsonl", K::value, "per-request records (default <output-json stem>.requests.jsonl)",
             "requests_jsonl"},
    FlagSpec{"save-result", K::flag, "write one vLLM-format JSON per stage"},
    FlagSpec{"save-detailed", K::flag, "include per-request arrays in the vLLM files"},
    FlagSpec{"result-dir", K::value, "folder for --save-result files (default .)", "result_dir"},
    FlagSpec{"result-filename", K::value, "file name for --save-result (stage index added when several)",
             "result_filename"},
    FlagSpec{"metadata", K::list, "KEY=VALUE added to the results (repeatable)"},
    FlagSpec{"label", K::value, "label of the run (results and file names)"},
    FlagSpec{"disable-tqdm", K::flag, "no live progress line"},
    FlagSpec{"wall-clock-times", K::flag,
             "against servebench sim --time-scale K: report wall-clock times and rates, not the modelled GPU's"},
    // Server metrics and GPU telemetry (src/telemetry/)
    FlagSpec{"scrape-metrics", K::optional_value,
             "poll the server's Prometheus metrics every 250 ms (default URL: base URL + /metrics) and report "
             "queue, batch, KV cache and server-side latencies per stage", "scrape_metrics"},
    FlagSpec{"gpu-telemetry", K::value,
             "auto | nvidia-smi | rocm-smi | amd-smi | off: sample GPU utilisation, memory, power and clocks every "
             "500 ms, per stage (default off)", "gpu_telemetry"},
    // Sharded runs (docs/distributed.md)
    FlagSpec{"shard", K::value, "I/N: send shard I's slice of the plan (of N client processes; merge with servebench merge)",
             "shard.index shard.count"},
    FlagSpec{"shards", K::value, "N shards, the index from JOB_COMPLETION_INDEX (Kubernetes Indexed Job; or SERVEBENCH_SHARDS)",
             "shard.count"},
    FlagSpec{"start-at", K::value, "Unix time (s) at which every shard starts the first stage", "start_at_unix_ns"},
    FlagSpec{"barrier-dir", K::value, "folder all shards share for the stage barrier (default: the --output-json folder)",
             "barrier_dir"},
    FlagSpec{"barrier-timeout-s", K::value, "seconds to wait for the other shards at a stage boundary (default 600)",
             "barrier_timeout_s"},
    FlagSpec{"max-failure-ratio", K::value, "stop the sweep and exit 4 when failed/sent of a stage exceeds this ratio (default 0.5; 1 = never)",
             "max_failure_ratio"},
};

}  // namespace

std::span<const FlagSpec> run_flags() { return kFlags; }

std::vector<const FlagSpec*> flags_for_field(std::string_view field) {
  std::vector<const FlagSpec*> out;
  for (const FlagSpec& f : kFlags) {
    for (std::string_view rest = f.fields; !rest.empty();) {
      const std::size_t space = rest.find(' ');
      if (rest.substr(0, space) == field) {
        out.push_back(&f);
        break;
      }
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
  }
  return out;
}

const FlagSpec* find_run_flag(std::string_view canonical_name) {
  for (const FlagSpec& f : kFlags)
    if (f.name == canonical_name) return &f;
  return nullptr;
}

}  // namespace sb::cli
