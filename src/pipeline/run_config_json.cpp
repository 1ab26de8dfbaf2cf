#include "pipeline/run_config_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace sb::pipeline {

namespace {

using Json = nlohmann::ordered_json;

// vLLM writes an infinite rate as the string "inf".
Json rate_json(double v) { return std::isinf(v) ? Json("inf") : Json(v); }

template <class T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json dataset_json(const DatasetConfig& d) {
  Json j;
  j["name"] = d.name;
  j["path"] = d.path.empty() ? Json(nullptr) : Json(d.path);
  j["num_prompts"] = d.num_prompts;
  j["seed"] = d.seed;
  j["random_input_len"] = d.random_input_len;
  j["random_output_len"] = d.random_output_len;
  j["random_range_ratio"] = {{"input", d.random_range_ratio_input}, {"output", d.random_range_ratio_output}};
  j["random_prefix_len"] = d.random_prefix_len;
  j["sharegpt_output_len"] = optional_json(d.sharegpt_output_len);
  j["custom_output_len"] = d.custom_output_len;
  j["reuse_prompts"] = d.reuse_prompts;
  return j;
}

Json load_json(const StaircaseParams& c) {
  Json j;
  const bool concurrency_mode = c.search ? *c.search == LoadMode::concurrency
                                         : !c.concurrency.empty() && c.request_rates.size() <= 1;  // as plan_staircase
  j["mode"] = concurrency_mode ? "concurrency" : "request_rate";
  Json values = Json::array();
  if (concurrency_mode) {
    for (int v : c.concurrency) values.push_back(v);
  } else {
    for (double v : c.request_rates) values.push_back(rate_json(v));
  }
  j["values"] = values;
  j["request_rate"] = c.request_rates.size() == 1 ? rate_json(c.request_rates.front()) : Json(nullptr);
  j["burstiness"] = rate_json(c.burstiness);
  j["max_concurrency"] = optional_json(c.max_concurrency);
  if (c.search) {  // values is then empty: the stages are the search's (the sweep's load_search)
    j["search"] = "auto";
    j["knee_precision"] = c.knee_precision;
    j["max_stages"] = c.max_stages;
  }
  if (c.ramp.kind != RampKind::none) {  // vLLM's key names, present only with a ramp-up
    j["ramp_up_strategy"] = c.ramp.kind == RampKind::linear ? "linear" : "exponential";
    j["ramp_up_start_rps"] = c.ramp.start_rps;
    j["ramp_up_end_rps"] = c.ramp.end_rps;
  }
  return j;
}

Json object_or_null(const std::string& text) {
  if (text.empty()) return nullptr;
  return Json::parse(text, nullptr, false);  // validated at parse time; discarded value -> null
}

}  // namespace

std::string redacted_config_json(const RunConfig& c, const std::string& model_id) {
  Json j;
  j["backend"] = c.backend;
  j["base_url"] = c.base_url;
  j["endpoint"] = c.client.path;
  j["model"] = model_id;
  j["served_model_name"] = c.served_model_name.value_or(model_id);
  j["tokenizer"] = optional_json(c.tokenizer);
  j["dataset"] = dataset_json(c.dataset);
  j["load"] = load_json(c.load);
  j["ignore_eos"] = c.request.ignore_eos;
  j["sampling"] = c.request.sampling_json.empty() ? Json::object() : object_or_null(c.request.sampling_json);
  j["extra_body"] = object_or_null(c.request.extra_body_json);
  Json headers = Json::object();
  for (const auto& [name, value] : c.client.headers) headers[name] = "<redacted>";
  if (!c.api_key.empty()) headers["Authorization"] = "<redacted>";
  j["headers"] = headers;
  j["api_key_source"] = c.api_key_source.empty() ? Json(nullptr) : Json(c.api_key_source);
  j["timeout_s"] = c.client.timeout_s;
  j["idle_timeout_s"] = c.client.idle_timeout_s;
  // What the run asked for; over TLS reads are stamped when read whatever it says.
  j["arrival_time"] = c.client.kernel_arrival_times && !c.client.endpoint.tls ? "kernel" : "read";
  j["dispatch_spin_us"] = static_cast<double>(c.client.dispatch_spin_ns) / 1e3;
  j["num_warmups"] = c.num_warmups;
  j["percentile_metrics"] = c.percentile_metrics;
  j["metric_percentiles"] = c.metric_percentiles;
  Json goodput = Json::object();
  for (const char* key : {"ttft", "tpot", "e2el"}) {
    auto it = c.goodput_slo_ms.find(key);
    goodput[key] = it == c.goodput_slo_ms.end() ? Json(nullptr) : Json(it->second);
  }
  j["goodput"] = goodput;
  Json metadata = Json::object();
  for (const auto& [k, v] : c.metadata) metadata[k] = v;
  j["metadata"] = metadata;
  j["max_failure_ratio"] = optional_json(c.max_failure_ratio);
  j["stage_seconds"] = optional_json(c.stage_seconds);
  j["repeats"] = c.repeats;
  j["insecure"] = c.client.endpoint.insecure;  // --insecure: TLS certificates were not verified
  // Only when asked for, so documents of runs without them keep their keys.
  if (c.scrape_metrics) j["scrape_metrics"] = c.scrape_metrics->endpoint.url(c.scrape_metrics->path);
  if (c.gpu_telemetry != telemetry::GpuTool::off)
    j["gpu_telemetry"] = c.gpu_telemetry == telemetry::GpuTool::automatic
                             ? "auto"
                             : std::string(telemetry::gpu_tool_name(c.gpu_telemetry));
  return j.dump();
}

}  // namespace sb::pipeline
