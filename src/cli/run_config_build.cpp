#include "cli/run_config_build.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cli/header_arg.hpp"
#include "cli/shard_options.hpp"
#include "cli/telemetry_options.hpp"
#include "core/error.hpp"

namespace sb::cli {

namespace {

std::pair<std::string, std::string> split_pair(const std::string& s, char sep) {
  auto at = s.find(sep);
  auto strip = [](std::string t) {
    while (!t.empty() && t.back() == ' ') t.pop_back();
    while (!t.empty() && t.front() == ' ') t.erase(0, 1);
    return t;
  };
  if (at == std::string::npos) return {strip(s), ""};
  return {strip(s.substr(0, at)), strip(s.substr(at + 1))};
}

// A key is sent as "Authorization: Bearer KEY": a line break in it would start another header.
bool breaks_header_line(const std::string& key) {
  return key.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos;
}

void read_api_key(const OptionReader& r, const EnvLookup& env, RunConfig& c) {
  // Precedence: --api-key-env (flag) > api_key in the file (or its profile) > default variable OPENAI_API_KEY.
  const bool env_from_flag = r.has("api-key-env") && r.where("api-key-env").rfind("--", 0) == 0;
  const std::string var = r.text("api-key-env").value_or("OPENAI_API_KEY");
  if (!env_from_flag && r.has("api-key")) {
    const std::string key = *r.text("api-key");
    if (breaks_header_line(key)) {
      r.error("api-key", "holds a line break or NUL (the key is not shown)");
      return;
    }
    c.api_key = key;
    c.api_key_source = "config file";
    return;
  }
  if (auto v = env(var)) {
    if (breaks_header_line(*v)) {
      r.error("api-key-env", fmt::format("environment variable {} holds a line break or NUL (the key is not shown)", var));
      return;
    }
    c.api_key = *v;
    c.api_key_source = "env " + var;
  } else if (r.has("api-key-env")) {
    r.error("api-key-env", fmt::format("environment variable {} is not set", var));
  }
}

void read_target(const OptionReader& r, const EnvLookup& env, RunConfig& c) {
  c.backend = r.text("backend").value_or("openai");
  if (c.backend == "openai-chat") c.client.api = Api::chat;
  else if (c.backend != "openai" && c.backend != "vllm")
    r.error("backend", fmt::format("'{}' is not one of vllm, openai, openai-chat", c.backend));
  if (const auto engine = r.text("engine"); engine && *engine != "auto") {
    c.engine = parse_engine(*engine);
    if (!c.engine) r.error("engine", fmt::format("'{}' is not one of auto, vllm, sglang, tgi, llama.cpp, openai", *engine));
  }
  if (auto url = r.text("base-url")) {
    try {
      c.client.endpoint = parse_base_url(*url);
    } catch (const UserError& e) {
      r.error("base-url", e.what());
    }
  } else {
    c.client.endpoint.host = r.text("host").value_or("127.0.0.1");
    const int port = r.integer("port", 1).value_or(8000);
    if (port > 65535) r.error("port", fmt::format("{} is not in 1..65535", port));
    c.client.endpoint.port = static_cast<std::uint16_t>(port > 65535 ? 8000 : port);
  }
  c.client.endpoint.insecure = r.flag("insecure");
  // A base URL ending in /v1 (the OpenAI SDKs' habit) is joined without doubling it (net/endpoint.hpp).
  const std::string default_path = c.client.api == Api::chat ? "/v1/chat/completions" : "/v1/completions";
  c.client.path = join_api_path(c.client.endpoint, r.text("endpoint").value_or(default_path));
  c.base_url = c.client.endpoint.url("");
  c.model = r.text("model");
  c.served_model_name = r.text("served-model-name");
  c.tokenizer = r.text("tokenizer");
  for (const std::string& h : r.items("header")) {
    HeaderArg arg = parse_header_arg(h);  // its messages never show a value: they are credentials
    if (arg.header) c.client.headers.push_back(std::move(*arg.header));
    else r.error("header", arg.error);
  }
  read_api_key(r, env, c);
  constexpr double kAny = std::numeric_limits<double>::lowest();  // ranges: validate(ClientOptions)
  c.client.timeout_s = r.number("timeout-s", kAny, false).value_or(21600);
  c.client.idle_timeout_s = r.number("idle-timeout-s", kAny, false).value_or(300);
  c.client.threads = r.integer("client-threads", std::numeric_limits<int>::min()).value_or(0);
  const std::string arrival = r.text("arrival-time").value_or("kernel");
  if (arrival == "read") c.client.kernel_arrival_times = false;
  else if (arrival != "kernel") r.error("arrival-time", fmt::format("'{}' is not one of kernel, read", arrival));
  if (auto us = r.number("dispatch-spin-us", kAny, false)) {
    if (*us >= 0 && *us <= static_cast<double>(kMaxDispatchSpinNs) / 1e3) c.client.dispatch_spin_ns = static_cast<Nanos>(*us * 1e3);
    else r.error("dispatch-spin-us", fmt::format("must be between 0 and {} µs, got {}", kMaxDispatchSpinNs / 1000, *us));
  }
}

void read_range_ratio(const OptionReader& r, DatasetConfig& d) {
  auto s = r.text("random-range-ratio");
  if (!s) return;
  if (auto v = parse_number(*s, false)) {  // the range is validate(DatasetConfig)'s
    d.random_range_ratio_input = d.random_range_ratio_output = *v;
    return;
  }
  // {"input": r1, "output": r2}: two known keys, so a tiny parser is enough.
  std::string body = *s;
  if (body.size() < 2 || body.front() != '{' || body.back() != '}') {
    r.error("random-range-ratio", fmt::format("'{}' is neither a number nor {{\"input\": r, \"output\": r}}", *s));
    return;
  }
  std::string inner = body.substr(1, body.size() - 2);
  for (std::size_t start = 0; start <= inner.size();) {
    std::size_t comma = inner.find(',', start);
    if (comma == std::string::npos) comma = inner.size();
    auto [key, val] = split_pair(inner.substr(start, comma - start), ':');
    auto v = parse_number(val, false);
    if ((key == "\"input\"" || key == "\"output\"") && v) {
      (key == "\"input\"" ? d.random_range_ratio_input : d.random_range_ratio_output) = *v;
    } else {
      r.error("random-range-ratio", fmt::format("cannot read '{}' in '{}'", inner.substr(start, comma - start), *s));
    }
    start = comma + 1;
  }
}

// Values only: their rules are validate(DatasetConfig)'s, reported by parse_run_options.
void read_dataset(const OptionReader& r, RunConfig& c) {
  DatasetConfig& d = c.dataset;
  d.name = r.text("dataset-name").value_or("random");
  d.path = r.text("dataset-path").value_or("");
  d.num_prompts = r.integer("num-prompts", std::numeric_limits<int>::min()).value_or(1000);
  d.seed = static_cast<std::uint64_t>(r.integer("seed", 0).value_or(0));
  const auto output_len = r.integer("output-len", 1);
  d.random_input_len = r.integer("random-input-len", 1).value_or(r.integer("input-len", 1).value_or(1024));
  d.random_output_len = r.integer("random-output-len", 1).value_or(output_len.value_or(128));
  d.random_prefix_len = r.integer("random-prefix-len", 0).value_or(0);
  read_range_ratio(r, d);
  d.sharegpt_output_len = r.integer("sharegpt-output-len", 1);
  if (!d.sharegpt_output_len) d.sharegpt_output_len = output_len;
  d.custom_output_len = r.integer("custom-output-len", -1).value_or(output_len.value_or(256));
  d.disable_shuffle = r.flag("disable-shuffle");
  d.no_oversample = r.flag("no-oversample");
  d.reuse_prompts = r.flag("reuse-prompts");
  d.request_id_prefix = r.text("request-id-prefix").value_or(pipeline::random_request_id_prefix());
}

// vLLM's checks of the flags themselves: a strategy needs both (integer) rates, a rate needs the
// strategy. The values' rules are validate(RampUp)'s and validate(StaircaseParams)'s.
void read_ramp(const OptionReader& r, RampUp& ramp) {
  const auto start = r.integer("ramp-up-start-rps", 0), end = r.integer("ramp-up-end-rps", 0);
  const auto strategy = r.text("ramp-up-strategy");
  if (!strategy) {
    for (const char* flag : {"ramp-up-start-rps", "ramp-up-end-rps"})
      if (r.has(flag)) r.error(flag, "needs --ramp-up-strategy");
    return;
  }
  RampKind kind = RampKind::none;
  if (*strategy == "linear") kind = RampKind::linear;
  else if (*strategy == "exponential") kind = RampKind::exponential;
  else r.error("ramp-up-strategy", fmt::format("'{}' is not one of linear, exponential", *strategy));
  if (!r.has("ramp-up-start-rps") || !r.has("ramp-up-end-rps")) {
    r.error("ramp-up-strategy", "needs both --ramp-up-start-rps and --ramp-up-end-rps");
    return;
  }
  if (start && end && kind != RampKind::none)
    ramp = RampUp{kind, static_cast<double>(*start), static_cast<double>(*end)};
}

// `--concurrency auto` / `--request-rate auto`: true when `flag`'s values name the search; "auto"
// among numbers is an error here (it would otherwise read as a bad number).
bool reads_auto(const OptionReader& r, const char* flag) {
  const std::vector<std::string> items = r.items(flag);
  const bool any = std::find(items.begin(), items.end(), "auto") != items.end();
  if (any && items.size() > 1) r.error(flag, "auto stands alone: give either auto or the values");
  return any;
}

// --knee-precision 10% or 0.1; the range is validate(StaircaseParams)'s.
std::optional<double> read_knee_precision(const OptionReader& r) {
  std::optional<std::string> text = r.text("knee-precision");
  if (!text) return std::nullopt;
  const bool percent = !text->empty() && text->back() == '%';
  const std::optional<double> v = parse_number(percent ? text->substr(0, text->size() - 1) : *text, false);
  if (!v) {
    r.error("knee-precision", fmt::format("'{}' is not a fraction or percentage, e.g. 10% or 0.1", *text));
    return std::nullopt;
  }
  return percent ? *v / 100 : *v;
}

void read_load_search(const OptionReader& r, StaircaseParams& load) {
  const bool conc_auto = reads_auto(r, "concurrency"), rate_auto = reads_auto(r, "request-rate");
  if (conc_auto && rate_auto) r.error("concurrency", "auto with --request-rate auto: search one of them");
  if (conc_auto) load.search = LoadMode::concurrency;
  else if (rate_auto) load.search = LoadMode::request_rate;
  if (!load.search) {
    for (const char* flag : {"knee-precision", "max-stages"})
      if (r.has(flag)) r.error(flag, "needs --concurrency auto or --request-rate auto");
  }
  if (auto v = read_knee_precision(r)) load.knee_precision = *v;
  if (auto v = r.integer("max-stages", std::numeric_limits<int>::min())) load.max_stages = *v;
}

void read_load(const OptionReader& r, RunConfig& c) {
  StaircaseParams& load = c.load;
  read_load_search(r, load);
  if (load.search != LoadMode::concurrency) load.concurrency = r.integers("concurrency", 1);
  if (load.search == LoadMode::request_rate) load.request_rates.clear();
  else if (r.has("request-rate")) load.request_rates = r.numbers("request-rate", 0, true);
  load.max_concurrency = r.integer("max-concurrency", 1);
  load.burstiness = r.number("burstiness", 0, true).value_or(1.0);
  read_ramp(r, load.ramp);
  c.num_warmups = r.integer("num-warmups", 0).value_or(0);
  c.stage_seconds = r.number("stage-seconds", 0, false);
  // With only --stage-seconds the duration bounds the stage and prompts are reused cyclically.
  c.prompts_bound_stages = !c.stage_seconds || r.has("num-prompts");
  c.repeats = r.integer("repeats", 1).value_or(1);
  c.preflight_request = !r.flag("no-preflight-request");
  c.selftest = !r.flag("no-selftest");
}

// Sampling flags are sent only when set (as vLLM benchmarks/serve.py); numbers keep the user's
// spelling when valid.
void read_content(const OptionReader& r, RunConfig& c) {
  c.request.ignore_eos = r.flag("ignore-eos") || c.dataset.name == "random";  // vLLM forces it for random
  c.request.logprobs = r.integer("logprobs", 0);
  static constexpr std::pair<const char*, const char*> kSampling[] = {
      {"temperature", "temperature"}, {"top-p", "top_p"}, {"top-k", "top_k"}, {"min-p", "min_p"},
      {"frequency-penalty", "frequency_penalty"}, {"presence-penalty", "presence_penalty"},
      {"repetition-penalty", "repetition_penalty"}};
  std::string json;
  for (auto [flag, key] : kSampling) {
    auto v = r.number(flag, std::numeric_limits<double>::lowest(), false);
    if (!v) continue;
    // The parsed value, not the flag text: ".5", "1." or "020" are numbers here but not JSON.
    json += fmt::format("{}\"{}\":{}", json.empty() ? "{" : ",", key, *v);
  }
  if (!json.empty()) c.request.sampling_json = json + "}";
  c.request.extra_body_json = r.text("extra-body").value_or("");
}

void read_metric_choice(const OptionReader& r, RunConfig& c) {
  if (r.has("percentile-metrics")) c.percentile_metrics = r.items("percentile-metrics");
  if (r.has("metric-percentiles")) c.metric_percentiles = r.numbers("metric-percentiles", 0, false);
  for (const std::string& g : r.items("goodput")) {
    auto [key, val] = split_pair(g, ':');
    auto ms = parse_number(val, false);
    if (key != "ttft" && key != "tpot" && key != "e2el") r.error("goodput", fmt::format("'{}': key must be ttft, tpot or e2el", g));
    else if (!ms || *ms < 0) r.error("goodput", fmt::format("'{}': value must be milliseconds >= 0", g));
    else c.goodput_slo_ms[key] = *ms;
  }
}

void read_outputs(const OptionReader& r, RunConfig& c) {
  read_metric_choice(r, c);
  c.save_result = r.flag("save-result");
  c.save_detailed = r.flag("save-detailed");
  c.disable_tqdm = r.flag("disable-tqdm");
  c.wall_clock_times = r.flag("wall-clock-times");
  c.result_dir = r.text("result-dir").value_or("");
  c.result_filename = r.text("result-filename");
  for (const std::string& m : r.items("metadata")) {
    auto [k, v] = split_pair(m, '=');
    if (k.empty() || m.find('=') == std::string::npos) r.error("metadata", fmt::format("'{}' is not KEY=VALUE", m));
    else c.metadata.emplace_back(k, v);
  }
  c.label = r.text("label");
  c.output_json = r.text("output-json").value_or("");
  c.requests_jsonl = r.text("requests-jsonl").value_or(pipeline::default_requests_path(c));
  c.csv = r.text("csv").value_or("");
  c.max_failure_ratio = r.number("max-failure-ratio", 0, false).value_or(0.5);
}

}  // namespace

RunConfig build_run_config(const OptionReader& r, const EnvLookup& env) {
  RunConfig c;
  read_target(r, env, c);
  read_dataset(r, c);
  read_load(r, c);
  read_content(r, c);
  read_outputs(r, c);
  read_telemetry(r, c);
  read_shard(r, env, c);
  return c;
}

}  // namespace sb::cli
