#include "analyze/tune_analysis.hpp"

namespace sb::analyze {
namespace {

// Kernel rows at every stage both runs share, when both traces align with their stages.
std::vector<StageKernelDeltas> shared_stage_kernels(const ConfigKernels& base, const ConfigKernels& tuned,
                                                    const Comparison& c, std::size_t top) {
  std::vector<StageKernelDeltas> out;
  if (!base.per_stage() || !tuned.per_stage()) return out;
  for (const auto& sc : c.stages)
    out.push_back({sc.load_value, kernel_deltas(kernels_at(base, sc.load_value), kernels_at(tuned, sc.load_value), top)});
  return out;
}

void compare_with_baseline(const TuneInput& in, std::size_t i, TuneAnalysis& a) {
  const TuneConfigInput& base = in.configs[0];
  const TuneConfigInput& cfg = in.configs[i];
  TunedResult& r = a.results[i];
  BootstrapParams bootstrap;
  bootstrap.resamples = in.bootstrap_resamples;
  CompareInput ci{*base.run, *cfg.run, a.results[0].analysis->curve, r.analysis->curve, default_compare_metrics(),
                  bootstrap};
  r.vs_baseline = compare_runs(ci);
  const ConfigKernels& bk = a.results[0].kernels;
  r.stage_kernels = shared_stage_kernels(bk, r.kernels, *r.vs_baseline, in.top_kernels);
  if (!r.vs_baseline->headline) return;
  // The headline's kernel rows at its own stage when the traces say which kernels ran there.
  const double load = r.vs_baseline->stages[r.vs_baseline->headline->stage].load_value;
  r.headline_kernels_per_stage = !r.stage_kernels.empty();
  if (bk.whole.empty() || r.kernels.whole.empty()) return;
  r.vs_baseline->headline->kernels =
      kernel_deltas(r.headline_kernels_per_stage ? kernels_at(bk, load) : bk.whole,
                    r.headline_kernels_per_stage ? kernels_at(r.kernels, load) : r.kernels.whole, in.top_kernels);
}

}  // namespace

TuneAnalysis analyze_tune(const TuneInput& in) {
  TuneAnalysis a;
  AnalyzeOptions opt;
  opt.slos = in.slos;
  RankInput rank;
  rank.slos = in.slos;
  for (const auto& cfg : in.configs) {
    TunedResult r;
    if (cfg.run) {
      r.analysis = analyze_run(*cfg.run, opt);
      r.kernels = config_kernels(cfg.traces, *cfg.run);
    }
    a.results.push_back(std::move(r));
    rank.runs.push_back(cfg.run ? &*cfg.run : nullptr);
    rank.gpus.push_back(in.gpus_per_config);
  }
  for (std::size_t i = 1; i < in.configs.size(); ++i)
    if (in.configs[0].run && in.configs[i].run) compare_with_baseline(in, i, a);
  a.ranking = rank_configs(rank);
  a.pareto = pareto_points(rank.runs, rank.gpus);
  return a;
}

}  // namespace sb::analyze
