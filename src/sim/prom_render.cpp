#include "sim/prom_render.hpp"

#include <cmath>
#include <string>
#include <fmt/format.h>
#include <iterator>

namespace sb::sim {
namespace {

std::string escape_label(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

class Writer {
 public:
  Writer(std::string& out, const std::string& model_name)
      : out_(out), labels_(fmt::format("engine=\"0\",model_name=\"{}\"", escape_label(model_name))) {}

  void header(const char* name, const char* type, const char* help) {
    fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(const char* name, double value) {
    fmt::format_to(std::back_inserter(out_), "{}{{{}}} {}\n", name, labels_, prom_number(value));
  }
  void gauge(const char* name, double value, const char* help) {
    header(name, "gauge", help);
    sample(name, value);
  }
  // `name` is the family as exposed (vLLM's counters end in _total).
  void counter(const char* name, double value, const char* help) {
    header(name, "counter", help);
    sample(name, value);
  }
  void finished_reasons(const EngineStats& s);
  void histogram(const char* name, const PromHistogram& h, const char* help);

 private:
  std::string& out_;
  std::string labels_;
};

void Writer::finished_reasons(const EngineStats& s) {
  const char* name = "vllm:request_success_total";
  header(name, "counter", "Count of successfully processed requests.");
  const std::pair<const char*, std::uint64_t> rows[] = {
      {"stop", s.finished_stop}, {"length", s.finished_length}, {"abort", s.finished_abort}};
  // Labels stay alphabetical (engine, finished_reason, model_name), as prometheus_client sorts them.
  for (const auto& [reason, count] : rows) {
    fmt::format_to(std::back_inserter(out_), "{}{{engine=\"0\",finished_reason=\"{}\",{}}} {}\n", name, reason,
                   labels_.substr(labels_.find("model_name")), prom_number(static_cast<double>(count)));
  }
}

void Writer::histogram(const char* name, const PromHistogram& h, const char* help) {
  header(name, "histogram", help);
  const std::string model_label = labels_.substr(labels_.find("model_name"));
  std::uint64_t cumulative = 0;
  const auto bounds = h.bounds();
  for (std::size_t i = 0; i <= bounds.size(); ++i) {
    cumulative += h.bucket_count(i);
    const std::string le = i < bounds.size() ? prom_number(bounds[i]) : "+Inf";
    fmt::format_to(std::back_inserter(out_), "{}_bucket{{engine=\"0\",le=\"{}\",{}}} {}\n", name, le, model_label,
                   prom_number(static_cast<double>(cumulative)));
  }
  fmt::format_to(std::back_inserter(out_), "{}_count{{{}}} {}\n{}_sum{{{}}} {}\n", name, labels_,
                 prom_number(static_cast<double>(h.count())), name, labels_, prom_number(h.sum()));
}

void render_config(const Engine& engine, std::string& out) {
  const auto& c = engine.config();
  fmt::format_to(std::back_inserter(out),
                 "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
                 "# TYPE vllm:cache_config_info gauge\n"
                 "vllm:cache_config_info{{block_size=\"{}\",cache_dtype=\"auto\",calculate_kv_scales=\"False\","
                 "cpu_offload_gb=\"0\",enable_prefix_caching=\"{}\",engine=\"0\",gpu_memory_utilization=\"{}\","
                 "is_attention_free=\"False\",num_cpu_blocks=\"None\",num_gpu_blocks=\"{}\","
                 "num_gpu_blocks_override=\"{}\",prefix_caching_hash_algo=\"sha256\",sliding_window=\"None\","
                 "swap_space=\"4\",swap_space_bytes=\"4294967296\"}} 1.0\n",
                 c.block_size, c.scheduler.prefix_caching ? "True" : "False", c.gpu_memory_utilization,
                 engine.kv_cache().total_blocks(),
                 c.num_gpu_blocks_override > 0 ? std::to_string(c.num_gpu_blocks_override) : std::string("None"));
}

}  // namespace

std::string prom_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) return fmt::format("{:.1f}", value);
  return fmt::format("{}", value);
}

void render_engine_metrics(const Engine& engine, const std::string& model_name, std::string& out) {
  const EngineStats& s = engine.stats();
  Writer w(out, model_name);
  w.gauge("vllm:num_requests_running", static_cast<double>(engine.num_running()),
          "Number of requests in model execution batches.");
  w.gauge("vllm:num_requests_waiting", static_cast<double>(engine.num_waiting()),
          "Number of requests waiting to be processed.");
  w.gauge("vllm:kv_cache_usage_perc", engine.kv_cache().usage(), "KV-cache usage. 1 means 100 percent usage.");
  w.counter("vllm:num_preemptions_total", static_cast<double>(s.preemptions),
            "Cumulative number of preemption from the engine.");
  w.counter("vllm:prompt_tokens_total", static_cast<double>(s.prompt_tokens), "Number of prefill tokens processed.");
  w.counter("vllm:generation_tokens_total", static_cast<double>(s.generation_tokens),
            "Number of generation tokens processed.");
  w.finished_reasons(s);
  w.histogram("vllm:request_prompt_tokens", s.request_prompt_tokens, "Number of prefill tokens processed.");
  w.histogram("vllm:request_generation_tokens", s.request_generation_tokens, "Number of generation tokens processed.");
  w.histogram("vllm:iteration_tokens_total", s.iteration_tokens, "Histogram of number of tokens per engine_step.");
  w.histogram("vllm:time_to_first_token_seconds", s.ttft_s, "Histogram of time to first token in seconds.");
  w.histogram("vllm:inter_token_latency_seconds", s.itl_s, "Histogram of inter-token latency in seconds.");
  w.histogram("vllm:request_time_per_output_token_seconds", s.tpot_s,
              "Histogram of time_per_output_token_seconds per request.");
  w.histogram("vllm:e2e_request_latency_seconds", s.e2e_s, "Histogram of e2e request latency in seconds.");
  w.histogram("vllm:request_queue_time_seconds", s.queue_s, "Histogram of time spent in WAITING phase for request.");
  w.histogram("vllm:request_inference_time_seconds", s.inference_s,
              "Histogram of time spent in RUNNING phase for request.");
  w.histogram("vllm:request_prefill_time_seconds", s.prefill_s,
              "Histogram of time spent in PREFILL phase for request.");
  w.histogram("vllm:request_decode_time_seconds", s.decode_s, "Histogram of time spent in DECODE phase for request.");
  render_config(engine, out);
}

}  // namespace sb::sim
