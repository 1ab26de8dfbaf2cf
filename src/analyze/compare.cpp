#include "analyze/compare.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb::analyze {
namespace {

using results::Run;

std::vector<double> samples(const Run& run, std::size_t stage, const std::string& field) {
  std::vector<double> out;
  for (const auto& r : run.requests) {
    if (r.stage != static_cast<int>(stage) || !r.ok) continue;
    const double v = field == "ttft" ? r.ttft_ms : field == "tpot" ? r.tpot_ms : r.e2el_ms;
    if (v >= 0) out.push_back(v);
  }
  return out;
}

// "ttft_p99" / "p99_ttft_ms" -> percentile 99; "median"/"p50" -> 50; "mean" -> mean.
Statistic statistic_of(const std::string& metric) {
  Statistic s;
  if (metric.find("mean") != std::string::npos) {
    s.mean = true;
    return s;
  }
  for (std::size_t pos = metric.find('p'); pos != std::string::npos; pos = metric.find('p', pos + 1)) {
    if (pos + 1 < metric.size() && std::isdigit(static_cast<unsigned char>(metric[pos + 1]))) {
      s.percentile = std::stod(metric.substr(pos + 1));
      return s;
    }
  }
  return s;  // median
}

void judge(const CompareInput& in, const StageComparison& sc, MetricDelta& d) {
  const bool throughput = d.metric.find("throughput") != std::string::npos || d.metric == "request_goodput";
  std::string field = throughput ? "e2el" : request_field_of(d.metric);
  if (in.baseline.requests.empty() || in.tuned.requests.empty()) {
    d.judgement = Judgement::no_request_records;
    return;
  }
  if (field.empty() || field == "itl") {
    d.judgement = Judgement::no_request_values;
    return;
  }
  if (throughput && in.baseline.load_mode != LoadMode::concurrency) {
    d.judgement = Judgement::open_loop_throughput;
    return;
  }
  const auto a = samples(in.baseline, sc.baseline_stage, field);
  const auto b = samples(in.tuned, sc.tuned_stage, field);
  // Closed loop, Little's law: throughput = concurrency / mean latency, so it moved significantly
  // exactly when mean E2EL did.
  const Statistic stat = throughput ? Statistic{0, true} : statistic_of(d.metric);
  d.ci = bootstrap_difference(a, b, stat, in.bootstrap);
  if (!d.ci) {
    d.judgement = Judgement::too_few_samples;
    return;
  }
  d.significance = d.ci->excludes_zero() ? Significance::significant : Significance::not_significant;
  d.judgement = throughput ? Judgement::bootstrap_littles_law : Judgement::bootstrap;
  d.confidence = in.bootstrap.confidence;
}

MetricDelta delta(const CompareInput& in, const StageComparison& sc, const std::string& metric) {
  MetricDelta d;
  d.metric = metric;
  d.higher_is_better = higher_is_better(metric);
  d.baseline = results::metric_by_name(in.baseline.stages[sc.baseline_stage], metric);
  d.tuned = results::metric_by_name(in.tuned.stages[sc.tuned_stage], metric);
  if (!d.baseline || !d.tuned) return d;  // Judgement::not_in_both
  d.abs_change = *d.tuned - *d.baseline;
  if (*d.baseline != 0) d.rel_change = d.abs_change / std::abs(*d.baseline);
  judge(in, sc, d);
  return d;
}

using DiffKind = WorkloadDifference::Kind;

void check_equal(DiffKind kind, const std::string& a, const std::string& b, Comparison& c) {
  if (a != b) c.equivalence.push_back({.kind = kind, .baseline_text = a, .tuned_text = b});
}

// Per-stage workload differences, each with the loads it was seen at (in first-seen order), so a
// difference present at every stage is said once, not once per stage. Lengths count as the same when
// they are the same whole number of tokens (as they are shown).
bool same_difference(const WorkloadDifference& d, DiffKind kind, double a, double b) {
  if (d.kind != kind) return false;
  if (kind == DiffKind::request_count) return d.baseline == a && d.tuned == b;
  return std::nearbyint(d.baseline) == std::nearbyint(a) && std::nearbyint(d.tuned) == std::nearbyint(b);
}

void note_at(std::vector<WorkloadDifference>& notes, DiffKind kind, double a, double b, double load) {
  for (auto& d : notes) {
    if (same_difference(d, kind, a, b)) {
      d.loads.push_back(load);
      return;
    }
  }
  notes.push_back({.kind = kind, .baseline = a, .tuned = b, .loads = {load}});
}

void check_lengths(const CompareInput& in, const StageComparison& sc, std::vector<WorkloadDifference>& notes) {
  const auto& a = in.baseline.stages[sc.baseline_stage];
  const auto& b = in.tuned.stages[sc.tuned_stage];
  // A stage run for --stage-seconds completes what the server managed: its count is a result, not
  // the workload (a tune grid's configurations differ there by design).
  const bool counts_are_results = a.duration_bounded && b.duration_bounded;
  if (a.num_prompts != b.num_prompts && !counts_are_results)
    note_at(notes, DiffKind::request_count, a.num_prompts, b.num_prompts, sc.load_value);
  auto differs = [](std::optional<double> x, std::optional<double> y) {
    return x && y && *x > 0 && std::abs(*y - *x) / *x > 0.10;
  };
  if (differs(a.input_len_mean, b.input_len_mean))
    note_at(notes, DiffKind::input_length, *a.input_len_mean, *b.input_len_mean, sc.load_value);
  if (differs(a.output_len_mean, b.output_len_mean))
    note_at(notes, DiffKind::output_length, *a.output_len_mean, *b.output_len_mean, sc.load_value);
}

const MetricDelta* find(const StageComparison& sc, std::string_view metric) {
  for (const auto& d : sc.deltas)
    if (d.metric == metric && !std::isnan(d.rel_change)) return &d;
  return nullptr;
}

// Hints from the seeds, read at the most loaded matched stage (where tuning matters most).
void add_hints(Comparison& c) {
  if (c.stages.empty()) return;
  const auto& sc = c.stages.back();
  const auto* rps = find(sc, "request_throughput");
  const auto* ttft = find(sc, "ttft_p99");
  const auto* tpot = find(sc, "tpot_p50");
  constexpr double kMove = 0.05;  // changes within 5 % count as flat
  if (rps && ttft && rps->rel_change > kMove && ttft->rel_change > -kMove)
    c.hints.push_back(Hint::throughput_without_queueing);
  if (rps && ttft && ttft->rel_change < -kMove && std::abs(rps->rel_change) <= kMove)
    c.hints.push_back(Hint::scheduling_not_compute);
  if (ttft && tpot && ttft->rel_change <= kMove && tpot->rel_change > kMove) c.hints.push_back(Hint::decode_bound);
}

int matched_stage(const Comparison& c, double load) {
  for (std::size_t i = 0; i < c.stages.size(); ++i)
    if (std::abs(c.stages[i].load_value - load) <= 1e-9) return static_cast<int>(i);
  return -1;
}

[[noreturn]] void no_headline_stage(const Comparison& c, double load) {
  std::string loads;
  for (const auto& sc : c.stages) loads += fmt::format("{}{:g}", loads.empty() ? "" : ", ", sc.load_value);
  throw UserError(fmt::format("--at {:g}: not a stage of both runs (matched loads: {})", load,
                              loads.empty() ? "none" : loads));
}

// Welch's normal-approximation CI of the difference of two means (kernel calls number in the
// thousands, so the normal approximation holds; 1.96 is the 95 % two-sided quantile).
void judge_kernel(const KernelSummary& a, const KernelSummary& b, KernelDelta& k) {
  if (a.calls < 2 || b.calls < 2) return;
  const double se = std::sqrt(a.stddev_ns * a.stddev_ns / static_cast<double>(a.calls) +
                              b.stddev_ns * b.stddev_ns / static_cast<double>(b.calls));
  constexpr double kZ95 = 1.959964;
  const double diff = b.mean_ns - a.mean_ns;
  k.ci = Interval{diff - kZ95 * se, diff + kZ95 * se};
  k.significance = k.ci->excludes_zero() ? Significance::significant : Significance::not_significant;
}

std::vector<KernelDelta> input_kernel_deltas(const CompareInput& in) {
  if (!in.baseline_kernels || !in.tuned_kernels) return {};
  return kernel_deltas(*in.baseline_kernels, *in.tuned_kernels, in.top_kernels);
}

}  // namespace

// The baseline's top kernels by total time, each with its mean in both traces.
std::vector<KernelDelta> kernel_deltas(const std::vector<KernelSummary>& baseline,
                                       const std::vector<KernelSummary>& tuned, std::size_t top) {
  std::vector<KernelDelta> out;
  for (const auto& a : baseline) {
    if (out.size() >= top) break;
    KernelDelta k{.name = a.name, .baseline_mean_ns = a.mean_ns};
    const auto b = std::find_if(tuned.begin(), tuned.end(), [&](const KernelSummary& t) { return t.name == a.name; });
    if (b != tuned.end()) {
      k.tuned_mean_ns = b->mean_ns;
      if (a.mean_ns > 0) k.rel_change = b->mean_ns / a.mean_ns - 1;
      judge_kernel(a, *b, k);
    }
    out.push_back(std::move(k));
  }
  return out;
}

namespace {

// The headline stage: the one named, else the baseline's knee (where the baseline stops scaling,
// so the one a tuning is meant to move), else the tuned knee, else the most loaded matched stage.
std::optional<Headline> choose_headline(const CompareInput& in, const Comparison& c) {
  if (in.headline_load) {
    const int i = matched_stage(c, *in.headline_load);
    if (i < 0) no_headline_stage(c, *in.headline_load);
    return Headline{.stage = static_cast<std::size_t>(i), .basis = HeadlineBasis::named_load};
  }
  if (c.stages.empty()) return std::nullopt;
  if (c.baseline_knee_load) {
    if (const int i = matched_stage(c, *c.baseline_knee_load); i >= 0)
      return Headline{.stage = static_cast<std::size_t>(i), .basis = HeadlineBasis::baseline_knee};
  }
  if (c.tuned_knee_load) {
    if (const int i = matched_stage(c, *c.tuned_knee_load); i >= 0)
      return Headline{.stage = static_cast<std::size_t>(i), .basis = HeadlineBasis::tuned_knee};
  }
  return Headline{.stage = c.stages.size() - 1, .basis = HeadlineBasis::most_loaded};
}

}  // namespace

const std::vector<std::string>& headline_metrics() {
  static const std::vector<std::string> m{"request_throughput", "ttft_p99", "tpot_p50", "e2el_p99"};
  return m;
}

const std::vector<std::string>& default_compare_metrics() {
  static const std::vector<std::string> m{"request_throughput", "output_throughput", "ttft_p50", "ttft_p99",
                                          "tpot_p50", "itl_p99", "e2el_p99"};
  return m;
}

bool higher_is_better(const std::string& metric) {
  return metric.find("throughput") != std::string::npos || metric.find("goodput") != std::string::npos;
}

std::string request_field_of(const std::string& metric) {
  for (const char* f : {"ttft", "tpot", "itl", "e2el"})
    if (metric.find(f) != std::string::npos) return f;
  return "";
}

Comparison compare_runs(const CompareInput& in) {
  Comparison c;
  c.load_mode = in.baseline.load_mode;
  check_equal(DiffKind::load_mode, to_string(in.baseline.load_mode), to_string(in.tuned.load_mode), c);
  check_equal(DiffKind::model, in.baseline.model, in.tuned.model, c);
  check_equal(DiffKind::backend, in.baseline.backend, in.tuned.backend, c);
  check_equal(DiffKind::dataset, in.baseline.dataset, in.tuned.dataset, c);
  std::vector<WorkloadDifference> notes;
  for (std::size_t i = 0; i < in.baseline.stages.size(); ++i) {
    const double load = in.baseline.stages[i].load_value;
    const int j = in.tuned.find_stage(load);
    if (j < 0) {
      c.unmatched_loads.push_back(load);
      continue;
    }
    StageComparison sc{load, i, static_cast<std::size_t>(j), {}};
    for (const auto& m : in.metrics) sc.deltas.push_back(delta(in, sc, m));
    check_lengths(in, sc, notes);
    c.stages.push_back(std::move(sc));
  }
  c.equivalence.insert(c.equivalence.end(), notes.begin(), notes.end());
  for (const auto& s : in.tuned.stages)
    if (in.baseline.find_stage(s.load_value) < 0) c.unmatched_loads.push_back(s.load_value);
  if (in.baseline_curve.knee) c.baseline_knee_load = in.baseline.stages[*in.baseline_curve.knee].load_value;
  if (in.tuned_curve.knee) c.tuned_knee_load = in.tuned.stages[*in.tuned_curve.knee].load_value;
  if (in.baseline_curve.peak) c.baseline_peak_rps = in.baseline.stages[*in.baseline_curve.peak].request_throughput;
  if (in.tuned_curve.peak) c.tuned_peak_rps = in.tuned.stages[*in.tuned_curve.peak].request_throughput;
  add_hints(c);
  c.headline = choose_headline(in, c);
  if (c.headline) {
    const auto& sc = c.stages[c.headline->stage];
    for (const auto& m : headline_metrics()) c.headline->deltas.push_back(delta(in, sc, m));
    c.headline->kernels = input_kernel_deltas(in);
  }
  return c;
}

}  // namespace sb::analyze
