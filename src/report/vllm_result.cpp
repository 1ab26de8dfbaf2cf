#include "report/steady_json.hpp"
#include "report/vllm_result.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/atomic_file.hpp"
#include "report/py_json.hpp"

namespace sb::report {

namespace {

using nlohmann::ordered_json;

constexpr const char* kMetricOrder[] = {"ttft", "tpot", "itl", "e2el", "client_queue_time",
                                        "e2el_including_client_queue"};

const MetricStats* metric_by_name(const StageSummary& s, const std::string& name) {
  if (name == "ttft") return &s.ttft;
  if (name == "tpot") return &s.tpot;
  if (name == "itl") return &s.itl;
  if (name == "e2el") return &s.e2el;
  if (name == "client_queue_time") return &s.client_queue_time;
  if (name == "e2el_including_client_queue") return &s.e2el_including_client_queue;
  return nullptr;
}

// "<stat>_<metric>_ms". Built by appending: `"p" + std::string` trips a GCC 12 -Wrestrict false
// positive (GCC bug 105651).
std::string metric_key(std::string_view stat, const std::string& metric) {
  std::string key(stat);
  key.append("_").append(metric).append("_ms");
  return key;
}

ordered_json rate_json(double rate) {
  return rate == std::numeric_limits<double>::infinity() ? ordered_json("inf") : ordered_json(rate);
}

// Per-request arrays in seconds, the way vLLM's RequestFuncOutput lists hold them.
void append_arrays(ordered_json& out, const std::vector<RequestRecord>& records, bool detailed) {
  ordered_json input_lens = ordered_json::array(), output_lens = ordered_json::array();
  ordered_json ttfts = ordered_json::array(), itls = ordered_json::array();
  ordered_json latencies = ordered_json::array(), start_times = ordered_json::array();
  ordered_json queue_times = ordered_json::array(), texts = ordered_json::array();
  ordered_json errors = ordered_json::array();
  for (const RequestRecord& r : records) {
    if (!r.was_sent) continue;
    const bool ok = r.ok() && !r.token_ns.empty();
    input_lens.push_back(r.prompt_tokens >= 0 ? r.prompt_tokens : std::max(r.dataset_prompt_tokens, 0));
    output_lens.push_back(ok ? r.output_tokens : 0);
    ttfts.push_back(ns_to_s(r.ttft_ns()));
    ordered_json itl = ordered_json::array();
    for (std::size_t i = 1; i < r.token_ns.size(); ++i) itl.push_back(ns_to_s(r.token_ns[i] - r.token_ns[i - 1]));
    itls.push_back(std::move(itl));
    latencies.push_back(ns_to_s(r.latency_ns()));
    start_times.push_back(ns_to_s(r.sent_ns));
    queue_times.push_back(ns_to_s(r.queue_ns()));
    texts.push_back(r.generated_text);
    errors.push_back(r.error);
  }
  if (detailed) {
    out["input_lens"] = std::move(input_lens);
    out["output_lens"] = std::move(output_lens);
    out["ttfts"] = std::move(ttfts);
    out["itls"] = std::move(itls);
  }
  out["latencies"] = std::move(latencies);
  if (detailed) out["start_times"] = std::move(start_times);
  out["queue_times"] = std::move(queue_times);
  if (detailed) {
    out["generated_texts"] = std::move(texts);
    out["errors"] = std::move(errors);
  }
}

}  // namespace

std::vector<std::string> vllm_selected_metrics(const std::vector<std::string>& requested,
                                               const StageLoad& load) {
  std::vector<std::string> out;
  for (const char* name : kMetricOrder) {
    const std::string n = name;
    bool wanted = std::find(requested.begin(), requested.end(), n) != requested.end();
    if (n == "client_queue_time") wanted = wanted || load.max_concurrency.has_value();
    if (n == "e2el_including_client_queue")
      wanted = (wanted || load.max_concurrency.has_value()) && load.open_loop();
    if (wanted) out.push_back(n);
  }
  return out;
}

void append_metric_keys(ordered_json& out, const StageSummary& s, const std::vector<std::string>& metrics,
                        const std::vector<double>& percentiles) {
  for (const std::string& name : metrics) {
    const MetricStats* m = metric_by_name(s, name);
    if (m == nullptr) continue;
    out[metric_key("mean", name)] = m->mean_ms;
    out[metric_key("median", name)] = m->median_ms;
    out[metric_key("std", name)] = m->std_ms;
    for (double p : percentiles) {
      std::string stat = "p";
      stat += percentile_word(p);
      out[metric_key(stat, name)] = m->percentile_ms(p);
    }
  }
}

ordered_json vllm_stage_json(const RunContext& ctx, const StageSummary& s, const VllmStageOptions& opt) {
  ordered_json j;
  j["date"] = opt.date;
  j["endpoint_type"] = ctx.backend;
  j["backend"] = ctx.backend;
  j["label"] = ctx.label ? ordered_json(*ctx.label) : ordered_json(nullptr);
  j["model_id"] = ctx.model_id;
  j["tokenizer_id"] = ctx.tokenizer_id.empty() ? ordered_json(nullptr) : ordered_json(ctx.tokenizer_id);
  j["num_prompts"] = s.num_prompts;
  for (const auto& [key, value] : ctx.metadata) j[key] = value;
  j["request_rate"] = rate_json(s.load.request_rate);
  j["burstiness"] = s.load.burstiness;
  j["max_concurrency"] = s.load.max_concurrency ? ordered_json(*s.load.max_concurrency) : ordered_json(nullptr);
  if (!ctx.ramp_up_strategy.empty()) {  // vLLM writes these only with a ramp-up, as ints
    j["ramp_up_strategy"] = ctx.ramp_up_strategy;
    j["ramp_up_start_rps"] = static_cast<long long>(ctx.ramp_up_start_rps);
    j["ramp_up_end_rps"] = static_cast<long long>(ctx.ramp_up_end_rps);
  }
  j["duration"] = s.duration_s;
  j["completed"] = s.completed;
  j["failed"] = s.failed;
  j["total_input_tokens"] = s.total_input_tokens;
  j["total_output_tokens"] = s.total_output_tokens;
  j["request_throughput"] = s.request_throughput;
  j["request_goodput"] = s.request_goodput ? ordered_json(*s.request_goodput) : ordered_json(nullptr);
  j["output_throughput"] = s.output_throughput;
  j["total_token_throughput"] = s.total_token_throughput;
  if (opt.records != nullptr) append_arrays(j, *opt.records, opt.save_detailed);
  j["max_output_tokens_per_s"] = s.max_output_tokens_per_s;
  j["max_concurrent_requests"] = s.max_concurrent_requests;
  if (opt.include_rtfx) j["rtfx"] = 0.0;
  append_metric_keys(j, s, opt.metrics, opt.percentiles);
  append_steady_keys(j, s);  // ours, after vLLM's keys (docs/results-format.md "Steady state")
  return j;
}

std::string vllm_date(std::int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm local{};
  localtime_r(&t, &local);
  char buf[32];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &local);
  return {buf, n};
}

std::string vllm_result_filename(const RunContext& ctx, const StageLoad& load, const std::string& date) {
  const std::string prefix = ctx.label.value_or(ctx.backend);
  // With a ramp-up vLLM names the ramp instead of the rate: "-ramp-up-linear-1qps-20qps".
  const std::string rate =
      !ctx.ramp_up_strategy.empty()
          ? fmt::format("ramp-up-{}-{}qps-{}", ctx.ramp_up_strategy, static_cast<long long>(ctx.ramp_up_start_rps),
                        static_cast<long long>(ctx.ramp_up_end_rps))
          : (load.open_loop() ? py_float_repr(load.request_rate) : "inf");
  std::string conc;
  if (load.max_concurrency) conc.append("-concurrency").append(std::to_string(*load.max_concurrency));
  const std::size_t slash = ctx.model_id.rfind('/');
  const std::string model = slash == std::string::npos ? ctx.model_id : ctx.model_id.substr(slash + 1);
  return prefix + "-" + rate + "qps" + conc + "-" + model + "-" + date + ".json";
}

void write_vllm_result(const std::string& path, const ordered_json& doc, bool append) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) throw UserError("cannot create result folder " + parent.string() + ": " + ec.message());
  std::string text;
  if (append) {  // the old content and the new document, replaced in one rename
    std::ifstream old(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(old), std::istreambuf_iterator<char>());
    if (!text.empty()) text += '\n';
  }
  text += py_json_dump(doc);
  write_file_atomic(path, text);
}

}  // namespace sb::report
