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
  if (s.completed < needed)
    out.push_back({"few_samples", static_cast<int>(i),
                   fmt::format("stage {}: p{} from {} completed requests (needs >= {:.0f})", i, worst,
                               s.completed, needed)});
}

std::string config_key(const results::Run& r) {
  std::string k = r.label + "|" + r.model + "|" + r.backend + "|" + r.load_mode + "|" + r.config_json;
  for (const auto& s : r.stages) k += fmt::format("|{}", s.load_value);
  return k;
}

// The text after "stage N: ", or empty when the message is not about one stage.
std::string stage_text(const Warning& w) {
  const std::string prefix = fmt::format("stage {}: ", w.stage);
  if (w.stage < 0 || w.message.rfind(prefix, 0) != 0) return {};
  return w.message.substr(prefix.size());
}

}  // namespace

std::vector<std::string> warning_lines(const std::vector<Warning>& warnings) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < warnings.size();) {
    const std::string text = stage_text(warnings[i]);
    std::size_t j = i + 1;  // extend over the same text at the following stages
    while (!text.empty() && j < warnings.size() && warnings[j].kind == warnings[i].kind &&
           warnings[j].stage == warnings[j - 1].stage + 1 && stage_text(warnings[j]) == text)
      ++j;
    if (j - i == 1)
      lines.push_back(warnings[i].message);
    else
      lines.push_back(fmt::format("stages {}-{}: {}", warnings[i].stage, warnings[j - 1].stage, text));
    i = j;
  }
  return lines;
}

std::vector<Warning> run_warnings(const results::Run& run) {
  std::vector<Warning> out;
  if (run.aborted) out.push_back({"aborted", -1, "run was aborted: later stages are missing"});
  for (const auto& note : run.notes) out.push_back({"note", -1, note});
  for (std::size_t i = 0; i < run.stages.size(); ++i) {
    const auto& s = run.stages[i];
    if (s.client_saturated)
      out.push_back({"client_saturated", static_cast<int>(i),
                     fmt::format("stage {}: client could not keep the schedule (lag p99 {:.1f} ms): "
                                 "latencies are understated",
                                 i, s.schedule_lag_p99_ms.value_or(0))});
    if (s.failed > 0) {
      std::string cats;
      for (const auto& [cat, n] : s.errors) cats += fmt::format("{}{} {}", cats.empty() ? "" : ", ", n, cat);
      out.push_back({"failures", static_cast<int>(i),
                     fmt::format("stage {}: {} of {} requests failed{}", i, s.failed, s.failed + s.completed,
                                 cats.empty() ? "" : " (" + cats + ")")});
    }
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
        for (std::size_t r : members)
          out[r].push_back({"variance", static_cast<int>(st),
                            fmt::format("stage {}: {} varies {:.0f}% (CV) across {} repeated runs", st, m.name,
                                        100 * cv, n)});
      }
    }
  }
  return out;
}

}  // namespace sb::analyze
