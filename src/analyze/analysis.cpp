#include "analyze/analysis.hpp"

#include <cmath>

namespace sb::analyze {

std::vector<double> ttft_series(const results::Run& run) {
  std::vector<double> out;
  for (const auto& s : run.stages) {
    const auto& ttft = s.stats(results::Metric::ttft);
    out.push_back(s.percentile(results::Metric::ttft, 99).value_or(ttft ? ttft->median.value_or(0) : 0));
  }
  return out;
}

RunAnalysis analyze_run(const results::Run& run, const AnalyzeOptions& opt) {
  RunAnalysis a;
  std::vector<double> load, rps, e2el, failure;
  for (const auto& s : run.stages) {
    load.push_back(s.load_value);
    rps.push_back(s.request_throughput);
    const auto& e = s.stats(results::Metric::e2el);
    e2el.push_back(e && e->mean ? *e->mean : NAN);
    // A stage with no finished request at all tells nothing about capacity: as if all failed.
    const int finished = s.completed + s.failed;
    failure.push_back(finished > 0 ? static_cast<double>(s.failed) / finished : 1.0);
  }
  const std::vector<double> ttft = ttft_series(run);
  KneeParams knee = opt.knee;
  knee.open_loop = run.load_mode == LoadMode::request_rate;
  a.curve = analyze_curve({load, rps, ttft, e2el, failure}, knee);
  a.warnings = run_warnings(run);
  if (opt.target_qps) a.replicas = plan_replicas(*opt.target_qps, run, a.curve);
  if (!opt.slos.empty()) a.slo = highest_meeting_slo(run, opt.slos);
  return a;
}

std::vector<RunAnalysis> analyze_runs(const std::vector<results::Run>& runs, const AnalyzeOptions& opt) {
  std::vector<RunAnalysis> out;
  for (const auto& r : runs) out.push_back(analyze_run(r, opt));
  auto variance = variance_warnings(runs, opt.cv_limit);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i].warnings.insert(out[i].warnings.end(), variance[i].begin(), variance[i].end());
  return out;
}

}  // namespace sb::analyze
