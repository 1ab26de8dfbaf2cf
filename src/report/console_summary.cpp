#include "report/console_summary.hpp"
#include "report/selftest_text.hpp"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "report/py_json.hpp"
#include "report/server_side_text.hpp"
#include "report/vllm_result.hpp"
#include "report/workload_text.hpp"

namespace sb::report {

namespace {

constexpr int kWidth = 50;

struct MetricText {
  const char* key;
  const char* name;    // in row labels
  const char* header;  // section title
};

constexpr MetricText kMetrics[] = {
    {"ttft", "TTFT", "Time to First Token"},
    {"tpot", "TPOT", "Time per Output Token (excl. 1st token)"},
    {"itl", "ITL", "Inter-token Latency"},
    {"e2el", "E2EL", "End-to-end Latency"},
    {"client_queue_time", "Client Queue Time", "Client-side Queueing"},
    {"e2el_including_client_queue", "E2EL incl. Client Queue", "Queue-inclusive End-to-end Latency"},
};

// Python's "{s:{c}^{n}}": the odd pad character goes to the right.
void title(std::string& out, const std::string& text, char fill) {
  const int pad = kWidth - static_cast<int>(text.size());
  const int left = pad > 0 ? pad / 2 : 0;
  const int right = pad > 0 ? pad - left : 0;
  out.append(static_cast<std::size_t>(left), fill).append(text).append(static_cast<std::size_t>(right), fill);
  out += '\n';
}

// Python's "{:<40} {:<10}" / "{:<40} {:<10.2f}".
void row(std::string& out, std::string_view label, long long value) {
  fmt::format_to(std::back_inserter(out), "{:<40} {:<10}\n", label, value);
}
void row(std::string& out, std::string_view label, double value) {
  fmt::format_to(std::back_inserter(out), "{:<40} {:<10.2f}\n", label, value);
}

const MetricStats* stats_for(const StageSummary& s, std::string_view key) {
  if (key == "ttft") return &s.ttft;
  if (key == "tpot") return &s.tpot;
  if (key == "itl") return &s.itl;
  if (key == "e2el") return &s.e2el;
  if (key == "client_queue_time") return &s.client_queue_time;
  return &s.e2el_including_client_queue;
}

void metric_section(std::string& out, const StageSummary& s, const MetricText& m, const ConsoleOptions& opt) {
  const MetricStats& st = *stats_for(s, m.key);
  title(out, m.header, '-');
  row(out, fmt::format("Mean {} (ms):", m.name), st.mean_ms);
  row(out, fmt::format("Median {} (ms):", m.name), st.median_ms);
  for (double p : opt.metric_percentiles)
    row(out, fmt::format("P{} {} (ms):", percentile_word(p), m.name), st.percentile_ms(p));
}

void counters(std::string& out, const StageSummary& s, const ConsoleOptions& opt) {
  row(out, "Successful requests:", static_cast<long long>(s.completed));
  row(out, "Failed requests:", static_cast<long long>(s.failed));
  if (s.load.max_concurrency) row(out, "Maximum request concurrency:", static_cast<long long>(*s.load.max_concurrency));
  if (s.load.open_loop()) row(out, "Request rate configured (RPS):", s.load.request_rate);
  row(out, "Benchmark duration (s):", s.duration_s);
  row(out, "Total input tokens:", static_cast<long long>(s.total_input_tokens));
  if (opt.has_tokenizer) row(out, "Total generated tokens:", static_cast<long long>(s.total_output_tokens));
  row(out, "Request throughput (req/s):", s.request_throughput);
  if (opt.goodput) row(out, "Request goodput (req/s):", s.request_goodput.value_or(0.0));
  if (opt.has_tokenizer) {
    row(out, "Output token throughput (tok/s):", s.output_throughput);
    row(out, "Peak output token throughput (tok/s):", s.max_output_tokens_per_s);
  }
  // vLLM prints this integer with .2f ("16.00").
  row(out, "Peak concurrent requests:", static_cast<double>(s.max_concurrent_requests));
  if (opt.has_tokenizer) row(out, "Total token throughput (tok/s):", s.total_token_throughput);
}

}  // namespace

std::string format_stage_header(const StageLoad& load, const RampHeader* ramp) {
  std::string out;
  auto it = std::back_inserter(out);
  if (ramp) {
    fmt::format_to(it, "Traffic ramp-up strategy: {}.\n", ramp->strategy);
    // vLLM's ramp rates are ints: "from 1 to 20 RPS".
    fmt::format_to(it, "Will increase RPS from {:g} to {:g} RPS over the duration of the benchmark.\n",
                   ramp->start_rps, ramp->end_rps);
  } else {
    out += "Traffic request rate: ";
    out += std::isinf(load.request_rate) ? "inf" : py_float_repr(load.request_rate);
    out += '\n';
  }
  out += "Burstiness factor: ";
  out += std::isinf(load.burstiness) ? "inf" : py_float_repr(load.burstiness);
  out += load.burstiness == 1.0 ? " (Poisson process)\n" : " (Gamma distribution)\n";
  out += "Maximum request concurrency: ";
  out += load.max_concurrency ? std::to_string(*load.max_concurrency) : "None";
  out += '\n';
  return out;
}

std::string format_vllm_console(const StageSummary& s, const ConsoleOptions& opt) {
  std::string out;
  title(out, " Serving Benchmark Result ", '=');
  counters(out, s, opt);
  const std::vector<std::string> selected = vllm_selected_metrics(opt.percentile_metrics, s.load);
  for (const MetricText& m : kMetrics) {
    const bool token_metric = m.key == std::string_view("ttft") || m.key == std::string_view("tpot") ||
                              m.key == std::string_view("itl");
    if (token_metric && !opt.has_tokenizer) continue;
    // Closed loop: "client queue" is the wait for a free slot since t0, not a latency anyone sees;
    // the JSON keeps vLLM's keys (docs/results-format.md), the console does not print them.
    if (m.key == std::string_view("client_queue_time") && !s.load.open_loop()) continue;
    for (const std::string& key : selected)
      if (key == m.key) metric_section(out, s, m, opt);
  }
  out.append(kWidth, '=');
  out += '\n';
  return out;
}

std::string format_console_extras(const StageSummary& s) {
  std::string out = format_intended_latency(s);
  for (const std::string& line : output_check_lines(s.output_check, "", s.tpot.count, s.itl.count)) out += line + '\n';
  if (s.schedule_lag) {
    row(out, "Schedule lag p50 (ms):", s.schedule_lag->p50_ms);
    row(out, "Schedule lag p99 (ms):", s.schedule_lag->p99_ms);
    row(out, "Schedule lag max (ms):", s.schedule_lag->max_ms);
  }
  if (s.ttft_breakdown) out += ttft_breakdown_line(*s.ttft_breakdown) + '\n';
  if (s.prompt_cache)
    for (const std::string& line : prompt_cache_lines(*s.prompt_cache, "")) out += line + '\n';
  if (s.client_saturated && s.client_limit != ClientLimit::cpu)  // a summary that names no cause
    out += "WARNING: the client could not keep the request schedule (schedule lag p99 above the "
           "threshold); latencies from the intended send time are the honest ones for this stage.\n";
  out += format_client_use(s);
  if (s.sent != s.num_prompts)
    fmt::format_to(std::back_inserter(out), "Sent {} of {} planned requests (the rest were cancelled unsent)\n",
                   s.sent, s.num_prompts);
  if (s.completed != s.sent) {
    out += "Errors by category:\n";
    for (const auto& [name, e] : s.errors) {
      fmt::format_to(std::back_inserter(out), "  {}: {}", name, e.count);
      for (const auto& [status, n] : e.http_statuses) fmt::format_to(std::back_inserter(out), " [HTTP {} x{}]", status, n);
      if (!e.sample.empty()) fmt::format_to(std::back_inserter(out), " e.g. {}", e.sample);
      out += '\n';
    }
  }
  return out;
}

std::string format_failed_requests(const std::vector<RequestRecord>& records) {
  constexpr int kMaxShown = 10;
  std::string out;
  int shown = 0;
  for (const RequestRecord& r : records) {
    if (!r.was_sent || (r.ok() && !r.token_ns.empty())) continue;
    if (shown == 0) out += "Failed requests during benchmark run detected (capping to 10):\n";
    fmt::format_to(std::back_inserter(out), "Error {}: {}\n", shown, r.error);
    if (++shown == kMaxShown) break;
  }
  return out;
}

std::string format_console_summary(const StageSummary& s, const ConsoleOptions& opt) {
  return format_vllm_console(s, opt) + format_console_extras(s);
}

}  // namespace sb::report
