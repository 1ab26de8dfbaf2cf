#include "results/model.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace sb::results {
namespace {

constexpr std::array<std::string_view, kAllMetrics.size()> kMetricNames{
    "ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue"};

std::optional<double> parse_percentile(std::string_view digits) {
  double p = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
  if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size()) return std::nullopt;
  return p;
}

// "<stat>_<metric>_ms" -> the statistic of that metric.
std::optional<double> latency_value(const Stage& s, std::string_view key) {
  if (!key.ends_with("_ms")) return std::nullopt;
  key.remove_suffix(3);
  const auto us = key.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  const std::string_view stat = key.substr(0, us);
  const auto metric = metric_from_name(key.substr(us + 1));
  if (!metric || !s.stats(*metric)) return std::nullopt;
  const MetricStats& m = *s.stats(*metric);
  if (stat == "mean") return m.mean;
  if (stat == "median") return m.median;
  if (stat == "std") return m.std;
  if (stat.size() < 2 || stat[0] != 'p') return std::nullopt;
  const auto p = parse_percentile(stat.substr(1));
  return p ? m.percentile(*p) : std::nullopt;
}

}  // namespace

std::string_view metric_name(Metric m) noexcept { return kMetricNames[static_cast<std::size_t>(m)]; }

std::optional<Metric> metric_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kMetricNames.size(); ++i)
    if (kMetricNames[i] == name) return kAllMetrics[i];
  return std::nullopt;
}

std::optional<double> MetricStats::percentile(double p) const noexcept {
  for (const auto& [pp, v] : percentiles)
    if (pp == p) return v;
  if (p == 50) return median;
  return std::nullopt;
}

std::optional<double> Stage::percentile(Metric m, double p) const noexcept {
  const auto& st = stats(m);
  return st ? st->percentile(p) : std::nullopt;
}

std::optional<double> metric_by_name(const Stage& s, std::string_view name) {
  if (name == "request_throughput") return s.request_throughput;
  if (name == "output_throughput") return s.output_throughput;
  if (name == "total_token_throughput") return s.total_token_throughput;
  if (name == "request_goodput") return s.request_goodput;
  std::string key(name);
  // Alias "ttft_p99" / "ttft_p99_ms" -> "p99_ttft_ms"; "ttft_median" -> "median_ttft_ms".
  if (!key.starts_with("p") && !key.starts_with("mean_") && !key.starts_with("median_") &&
      !key.starts_with("std_")) {
    if (key.ends_with("_ms")) key.resize(key.size() - 3);
    const auto us = key.rfind('_');
    if (us == std::string::npos) return std::nullopt;
    key = key.substr(us + 1) + "_" + key.substr(0, us) + "_ms";
  }
  if (!key.ends_with("_ms")) key += "_ms";
  return latency_value(s, key);
}

int Run::find_stage(double load_value) const {
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const double v = stages[i].load_value;
    if (v == load_value || (std::isfinite(v) && std::abs(v - load_value) <= 1e-9 * std::max(1.0, std::abs(v))))
      return static_cast<int>(i);
  }
  return -1;
}

void sort_stages(Run& run) {
  std::stable_sort(run.stages.begin(), run.stages.end(),
                   [](const Stage& a, const Stage& b) { return a.load_value < b.load_value; });
  std::map<int, int> position;
  for (std::size_t i = 0; i < run.stages.size(); ++i) position[run.stages[i].stage_index] = static_cast<int>(i);
  std::erase_if(run.requests, [&](const Request& r) { return !position.contains(r.stage); });
  for (Request& r : run.requests) r.stage = position[r.stage];
}

}  // namespace sb::results
