#include "cli/run_console.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/py_json.hpp"
#include "report/vllm_result.hpp"

namespace sb::cli {

namespace {

// Python's "{:{c}^{n}}": the odd extra fill character goes to the right.
std::string centred(const std::string& title, char fill) {
  const std::size_t width = 50;
  if (title.size() >= width) return title;
  const std::size_t pad = width - title.size(), left = pad / 2;
  return std::string(left, fill) + title + std::string(pad - left, fill);
}

void row(std::string& out, const std::string& label, const std::string& value) {
  out += fmt::format("{:<40} {:<10}\n", label, value);
}

std::string f2(double v) { return fmt::format("{:.2f}", v); }

struct MetricText {
  const char* key;
  const char* name;
  const char* header;
};

constexpr MetricText kMetricText[] = {
    {"ttft", "TTFT", "Time to First Token"},
    {"tpot", "TPOT", "Time per Output Token (excl. 1st token)"},
    {"itl", "ITL", "Inter-token Latency"},
    {"e2el", "E2EL", "End-to-end Latency"},
    {"client_queue_time", "Client Queue Time", "Client-side Queueing"},
    {"e2el_including_client_queue", "E2EL incl. Client Queue", "Queue-inclusive End-to-end Latency"},
};

const MetricStats& stats_of(const StageSummary& s, const std::string& key) {
  if (key == "ttft") return s.ttft;
  if (key == "tpot") return s.tpot;
  if (key == "itl") return s.itl;
  if (key == "e2el") return s.e2el;
  if (key == "client_queue_time") return s.client_queue_time;
  return s.e2el_including_client_queue;
}

void metric_rows(std::string& out, const RunContext& ctx, const StageSummary& s) {
  for (const std::string& key : vllm_selected_metrics(ctx.percentile_metrics, s.load)) {
    for (const MetricText& m : kMetricText) {
      if (key != m.key) continue;
      const MetricStats& st = stats_of(s, key);
      out += centred(m.header, '-') + "\n";
      row(out, fmt::format("Mean {} (ms):", m.name), f2(st.mean_ms));
      row(out, fmt::format("Median {} (ms):", m.name), f2(st.median_ms));
      for (double p : ctx.metric_percentiles)
        row(out, fmt::format("P{} {} (ms):", percentile_word(p), m.name), f2(st.percentile_ms(p)));
    }
  }
}

}  // namespace

std::string stage_header_text(const StageLoad& load) {
  std::string out = "Traffic request rate: ";
  out += std::isinf(load.request_rate) ? "inf" : py_float_repr(load.request_rate);
  out += "\nBurstiness factor: ";
  out += std::isinf(load.burstiness) ? "inf" : py_float_repr(load.burstiness);
  out += load.burstiness == 1.0 ? " (Poisson process)\n" : " (Gamma distribution)\n";
  out += "Maximum request concurrency: ";
  out += load.max_concurrency ? std::to_string(*load.max_concurrency) : "None";
  return out + "\n";
}

std::string stage_summary_text(const RunContext& ctx, const StageSummary& s) {
  std::string out = centred(" Serving Benchmark Result ", '=') + "\n";
  row(out, "Successful requests:", std::to_string(s.completed));
  row(out, "Failed requests:", std::to_string(s.failed));
  if (s.load.max_concurrency) row(out, "Maximum request concurrency:", std::to_string(*s.load.max_concurrency));
  if (std::isfinite(s.load.request_rate)) row(out, "Request rate configured (RPS):", f2(s.load.request_rate));
  row(out, "Benchmark duration (s):", f2(s.duration_s));
  row(out, "Total input tokens:", std::to_string(s.total_input_tokens));
  row(out, "Total generated tokens:", std::to_string(s.total_output_tokens));
  row(out, "Request throughput (req/s):", f2(s.request_throughput));
  if (s.request_goodput) row(out, "Request goodput (req/s):", f2(*s.request_goodput));
  row(out, "Output token throughput (tok/s):", f2(s.output_throughput));
  row(out, "Peak output token throughput (tok/s):", f2(s.max_output_tokens_per_s));
  row(out, "Peak concurrent requests:", f2(s.max_concurrent_requests));
  row(out, "Total token throughput (tok/s):", f2(s.total_token_throughput));
  metric_rows(out, ctx, s);
  out += std::string(50, '=') + "\n";
  return out;
}

std::string failure_note_text(const StageSummary& s) {
  if (s.completed == s.sent && s.sent == s.num_prompts) return "";
  std::string out = fmt::format("note: {} of {} sent requests completed", s.completed, s.sent);
  if (s.sent != s.num_prompts) out += fmt::format(" ({} of {} planned were sent)", s.sent, s.num_prompts);
  out += "\n";
  for (const auto& [category, e] : s.errors) {
    std::string statuses;
    for (const auto& [status, n] : e.http_statuses) statuses += fmt::format("{}{}x{}", statuses.empty() ? " [HTTP " : ", ", n, status);
    if (!statuses.empty()) statuses += "]";
    out += fmt::format("  {:<14} {:>6}{}  e.g. {}\n", category, e.count, statuses, e.sample);
  }
  return out;
}

std::string staircase_table_text(const RunContext& ctx, const std::vector<StageSummary>& stages) {
  const bool conc = ctx.load_mode == LoadMode::concurrency;
  std::string out = fmt::format("{:>11} {:>9} {:>11} {:>11} {:>10} {:>10} {:>10} {:>10} {:>7}\n",
                                conc ? "concurrency" : "rate", "req/s", "out tok/s", "total tok/s", "TTFT p50",
                                "TTFT p99", "TPOT p50", "ITL p99", "failed");
  for (const StageSummary& s : stages) {
    const double value = s.stage_index < ctx.load_values.size() ? ctx.load_values[s.stage_index] : 0;
    const std::string v = std::isinf(value) ? "inf" : fmt::format("{:g}", value);
    out += fmt::format("{:>11} {:>9.2f} {:>11.1f} {:>11.1f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>7}{}\n", v,
                       s.request_throughput, s.output_throughput, s.total_token_throughput,
                       s.ttft.percentile_ms(50), s.ttft.percentile_ms(99), s.tpot.percentile_ms(50),
                       s.itl.percentile_ms(99), s.failed, s.aborted ? "  (aborted)" : "");
  }
  out += "(latencies in ms)\n";
  return out;
}

void print_stage_header(std::FILE* out, const StageLoad& load) {
  std::fputs(stage_header_text(load).c_str(), out);
  std::fflush(out);
}

void print_stage_summary(std::FILE* out, const RunContext& ctx, const StageSummary& s) {
  std::fputs(stage_summary_text(ctx, s).c_str(), out);
  std::fflush(out);
}

void print_failure_note(std::FILE* out, const StageSummary& s) {
  std::fputs(failure_note_text(s).c_str(), out);
}

void print_staircase_table(std::FILE* out, const RunContext& ctx, const std::vector<StageSummary>& stages) {
  if (stages.empty()) return;
  std::fputs(staircase_table_text(ctx, stages).c_str(), out);
  std::fflush(out);
}

}  // namespace sb::cli
