#include "analyze/warnings.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

namespace sb::analyze {
namespace {

using results::Metric;

// The metrics whose run-to-run variation is flagged, with the key they are named by.
struct VarianceMetric {
  const char* name;
  std::optional<double> (*value)(const results::Stage&);
};

std::optional<double> median_of(const results::Stage& s, Metric m) {
  return s.stats(m) ? s.stats(m)->median : std::nullopt;
}

constexpr VarianceMetric kVarianceMetrics[] = {
    {"request_throughput", [](const results::Stage& s) -> std::optional<double> { return s.request_throughput; }},
    {"output_throughput", [](const results::Stage& s) -> std::optional<double> { return s.output_throughput; }},
    {"p99_ttft_ms", [](const results::Stage& s) { return s.percentile(Metric::ttft, 99); }},
    {"median_ttft_ms", [](const results::Stage& s) { return median_of(s, Metric::ttft); }},
    {"median_tpot_ms", [](const results::Stage& s) { return median_of(s, Metric::tpot); }},
    {"p99_itl_ms", [](const results::Stage& s) { return s.percentile(Metric::itl, 99); }},
};

void few_samples(const results::Run& run, std::size_t i, std::vector<Warning>& out) {
  const auto& s = run.stages[i];
  double worst = 0;
  for (const auto& stats : s.latency)
    if (stats)
      for (const auto& pv : stats->percentiles) worst = std::max(worst, pv.first);
  if (worst <= 0 || worst >= 100) return;
  const double needed = std::ceil(1.0 / (1.0 - worst / 100.0) - 1e-9);
  if (s.completed < needed) {
    Warning w{.kind = WarningKind::few_samples, .stage = static_cast<int>(i)};
    w.percentile = worst;
    w.completed = s.completed;
    w.needed = needed;
    out.push_back(std::move(w));
  }
}

std::string config_key(const results::Run& r) {
  std::string k = r.label + "|" + r.model + "|" + r.backend + "|" + to_string(r.load_mode) + "|" + r.config_json;
  for (const auto& s : r.stages) k += fmt::format("|{}", s.load_value);
  return k;
}

}  // namespace

const char* to_string(WarningKind k) noexcept {
  switch (k) {
    case WarningKind::aborted: return "aborted";
    case WarningKind::note: return "note";
    case WarningKind::client_saturated: return "client_saturated";
    case WarningKind::client_concurrency_limit: return "client_concurrency_limit";
    case WarningKind::failures: return "failures";
    case WarningKind::few_samples: return "few_samples";
    case WarningKind::variance: return "variance";
  }
  return "?";
}

std::vector<Warning> run_warnings(const results::Run& run) {
  std::vector<Warning> out;
  if (run.aborted) out.push_back({.kind = WarningKind::aborted});
  for (const auto& note : run.notes) out.push_back({.kind = WarningKind::note, .note = note});
  for (std::size_t i = 0; i < run.stages.size(); ++i) {
    const auto& s = run.stages[i];
    if (s.client_saturated || s.client_limit == ClientLimit::cpu)
      out.push_back({.kind = WarningKind::client_saturated, .stage = static_cast<int>(i),
                     .lag_p99_ms = s.schedule_lag_p99_ms.value_or(0), .client_busy = s.client_busy,
                     .ceiling_fraction = s.client_ceiling_fraction});
    else if (s.client_limit == ClientLimit::concurrency_limit)
      out.push_back({.kind = WarningKind::client_concurrency_limit, .stage = static_cast<int>(i),
                     .lag_p99_ms = s.schedule_lag_p99_ms.value_or(0)});
    if (s.failed > 0)
      out.push_back({.kind = WarningKind::failures, .stage = static_cast<int>(i), .failed = s.failed,
                     .requests = s.failed + s.completed, .failed_by_category = s.errors});
    few_samples(run, i, out);
  }
  return out;
}

std::vector<std::vector<Warning>> variance_warnings(const std::vector<results::Run>& runs, double cv_limit) {
  std::vector<std::vector<Warning>> out(runs.size());
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < runs.size(); ++i) groups[config_key(runs[i])].push_back(i);
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    for (std::size_t st = 0; st < runs[members[0]].stages.size(); ++st) {
      for (const VarianceMetric& m : kVarianceMetrics) {
        double sum = 0, sq = 0;
        int n = 0;
        for (std::size_t r : members) {
          if (auto v = m.value(runs[r].stages[st])) sum += *v, sq += *v * *v, ++n;
        }
        if (n < 2 || sum == 0) continue;
        const double mean = sum / n, cv = std::sqrt(std::max(0.0, sq / n - mean * mean)) / std::abs(mean);
        if (cv <= cv_limit) continue;
        for (std::size_t r : members) {
          Warning w{.kind = WarningKind::variance, .stage = static_cast<int>(st)};
          w.metric = m.name;
          w.cv = cv;
          w.runs = n;
          out[r].push_back(std::move(w));
        }
      }
    }
  }
  return out;
}

}  // namespace sb::analyze
