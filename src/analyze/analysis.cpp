#include "analyze/analysis.hpp"

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
  std::vector<double> load, rps;
  for (const auto& s : run.stages) {
    load.push_back(s.load_value);
    rps.push_back(s.request_throughput);
  }
  const std::vector<double> ttft = ttft_series(run);
  KneeParams knee = opt.knee;
  if (run.load_mode == LoadMode::request_rate && knee.min_share_of_linear == 0) knee.min_share_of_linear = 0.8;
  a.curve = analyze_curve({load, rps, ttft}, knee);
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
