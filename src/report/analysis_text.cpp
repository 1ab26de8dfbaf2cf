#include "report/analysis_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace sb::report {

const char* significance_text(analyze::Significance s) noexcept {
  switch (s) {
    case analyze::Significance::significant: return "significant";
    case analyze::Significance::not_significant: return "not significant";
    case analyze::Significance::cannot_judge: return "cannot judge";
  }
  return "?";
}
namespace {

using analyze::KneeReason;
using analyze::RegionReason;

// An elasticity as printed: two decimals, + 0.0 turns -0 into 0 (a flat stage says "0.00", never "-0.00").
std::string elasticity_text(double e) { return fmt::format("{:.2f}", std::round(100 * e) / 100 + 0.0); }

// "97% of peak (540 of 557 req/s)"
std::string share_of_peak_text(const analyze::StageRegion& r) {
  const double share = r.peak_throughput > 0 ? 100 * r.throughput / r.peak_throughput : 0.0;
  return fmt::format("{:.0f}% of peak ({:.4g} of {:.4g} req/s)", share, r.throughput, r.peak_throughput);
}

// "TTFT 5.5 -> 335 ms (x61), E2EL 28.3 -> 187 ms (x6.6)": the latency growth past the knee stage.
std::string latency_growth_text(const analyze::StageRegion& r) {
  std::string out;
  auto add = [&](const char* name, double knee_ms, double ms) {
    if (!(knee_ms > 0) || !(ms > 0)) return;
    out += fmt::format("{}{} {:.3g} -> {:.3g} ms (x{:.2g})", out.empty() ? "" : ", ", name, knee_ms, ms,
                       ms / knee_ms);
  };
  add("TTFT", r.knee_ttft_ms, r.ttft_ms);
  add("E2EL", r.knee_e2el_ms, r.e2el_ms);
  return out;
}

// The text after "stage N: " (the whole text for a warning about the run).
std::string warning_body(const analyze::Warning& w) {
  using analyze::WarningKind;
  switch (w.kind) {
    case WarningKind::aborted:
      return "run was aborted: later stages are missing";
    case WarningKind::note:
      return w.note;
    case WarningKind::client_saturated: {
      if (!w.client_busy && !w.ceiling_fraction)  // documents without client_use
        return fmt::format("client could not keep the schedule (lag p99 {:.1f} ms): latencies are understated",
                           w.lag_p99_ms);
      std::string use;
      if (w.client_busy) use = fmt::format("busiest thread {:.0f}% busy", 100 * *w.client_busy);
      if (w.ceiling_fraction) use += fmt::format("{}{:.0f}% of its ceiling", use.empty() ? "" : ", ", 100 * *w.ceiling_fraction);
      return fmt::format("limited by the client CPU ({}; lag p99 {:.1f} ms): the numbers may measure the client, "
                         "not the server", use, w.lag_p99_ms);
    }
    case WarningKind::client_concurrency_limit:
      return fmt::format("limited by the client concurrency limit: requests waited for a --max-concurrency slot "
                         "(lag p99 {:.1f} ms), the offered rate was not sent", w.lag_p99_ms);
    case WarningKind::failures: {
      std::string cats;
      for (const auto& [cat, n] : w.failed_by_category)
        cats += fmt::format("{}{} {}", cats.empty() ? "" : ", ", n, cat);
      return fmt::format("{} of {} requests failed{}", w.failed, w.requests, cats.empty() ? "" : " (" + cats + ")");
    }
    case WarningKind::few_samples:
      return fmt::format("p{} from {} completed requests (needs >= {:.0f})", w.percentile, w.completed, w.needed);
    case WarningKind::variance:
      return fmt::format("{} varies {:.0f}% (CV) across {} repeated runs", w.metric, 100 * w.cv, w.runs);
  }
  return "";
}

}  // namespace

std::string warning_text(const analyze::Warning& w) {
  if (w.stage < 0) return warning_body(w);
  return fmt::format("stage {}: {}", w.stage, warning_body(w));
}

std::vector<std::string> warning_lines(const std::vector<analyze::Warning>& warnings) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < warnings.size();) {
    const std::string text = warnings[i].stage < 0 ? std::string() : warning_body(warnings[i]);
    std::size_t j = i + 1;  // extend over the same text at the following stages
    while (!text.empty() && j < warnings.size() && warnings[j].kind == warnings[i].kind &&
           warnings[j].stage == warnings[j - 1].stage + 1 && warning_body(warnings[j]) == text)
      ++j;
    if (j - i == 1)
      lines.push_back(warning_text(warnings[i]));
    else
      lines.push_back(fmt::format("stages {}-{}: {}", warnings[i].stage, warnings[j - 1].stage, text));
    i = j;
  }
  return lines;
}

std::string knee_reason_text(const analyze::CurveAnalysis& c) {
  const analyze::KneeParams& p = c.params;
  // "at most 0.03 after it"; nothing when no later stage has a finite load.
  const std::string later =
      std::isnan(c.later_elasticity) ? std::string()
                                     : fmt::format(", at most {} after it", elasticity_text(c.later_elasticity));
  const std::string plateau = fmt::format("plateau {:.4g} req/s", c.plateau_throughput);
  switch (c.knee_reason) {
    case KneeReason::no_stages:
      return "no stages";
    case KneeReason::no_throughput:
      return "no stage with throughput: no knee can be judged";
    case KneeReason::too_few_usable:
      return fmt::format("fewer than 2 stages with at most {:.0f}% failed requests: no knee can be judged",
                         100 * p.max_failure_ratio);
    case KneeReason::at_stage:
      return fmt::format("throughput reaches the plateau here ({}, within {:.0f}%): elasticity {} into it{} "
                         "(saturated below {})",
                         plateau, 100 * p.plateau_tolerance, elasticity_text(c.entering_elasticity), later,
                         elasticity_text(p.saturation_elasticity));
    case KneeReason::inside_segment: {
      std::string how;
      switch (c.estimate_method) {
        case analyze::KneeEstimate::plateau_rate:
          how = fmt::format("the achieved {}", plateau);
          break;
        case analyze::KneeEstimate::interpolated:
          how = fmt::format("extending X ~ load^{} from {:g} to the {}", elasticity_text(c.lower_elasticity),
                            *c.knee_lo, plateau);
          break;
        case analyze::KneeEstimate::none:
        case analyze::KneeEstimate::knee_stage:
          how = plateau;
          break;
      }
      return fmt::format("capacity ends between {:g} and {:g} (estimate {:.3g} by {}): elasticity {} into {:g}{} "
                         "(saturated below {})",
                         *c.knee_lo, *c.knee_hi, c.knee_estimate.value_or(NAN), how,
                         elasticity_text(c.entering_elasticity), *c.knee_hi, later,
                         elasticity_text(p.saturation_elasticity));
    }
    case KneeReason::at_or_below_lowest:
      return fmt::format("the lowest stage is already on the plateau ({}): capacity is at or below {:g}{}", plateau,
                         *c.knee_hi,
                         c.knee_estimate ? fmt::format(" (estimate {:.3g} req/s)", *c.knee_estimate) : std::string());
    case KneeReason::none_in_range:
      return std::isnan(c.entering_elasticity)
                 ? std::string("no knee within the tested range: throughput still grows at the highest stage")
                 : fmt::format("no knee within the tested range: throughput still grows at the highest stage "
                               "(elasticity {} into it, saturated below {})",
                               elasticity_text(c.entering_elasticity), elasticity_text(p.saturation_elasticity));
  }
  return "";
}

std::string region_reason_text(const analyze::StageRegion& r) {
  switch (r.reason) {
    case RegionReason::scaling:
      return fmt::format("throughput still scales with load: elasticity {} from the previous stage",
                         elasticity_text(r.elasticity));
    case RegionReason::dip:
      return fmt::format("throughput did not grow into this stage (elasticity {}) but does after it: below the knee, "
                         "a dip (noise or a transient)",
                         elasticity_text(r.elasticity));
    case RegionReason::first_stage:
      return "lowest stage: room to scale";
    case RegionReason::unlimited_rate:
      return "unlimited rate: no finite load to judge it against";
    case RegionReason::knee:
      return fmt::format("throughput {}{}: best operating point (highest throughput before queueing)",
                         share_of_peak_text(r),
                         std::isnan(r.elasticity) ? std::string()
                                                  : ", elasticity " + elasticity_text(r.elasticity) + " into it");
    case RegionReason::knee_zone:
      return fmt::format("throughput {}{}: knee zone, capacity ends inside the step into this stage",
                         share_of_peak_text(r),
                         std::isnan(r.elasticity) ? std::string()
                                                  : ", elasticity " + elasticity_text(r.elasticity) + " into it");
    case RegionReason::queueing:
      return fmt::format("throughput flat at {}, elasticity {}, while latency grows past the knee ({}): queueing, "
                         "not a better operating point",
                         share_of_peak_text(r), std::isnan(r.elasticity) ? "-" : elasticity_text(r.elasticity),
                         latency_growth_text(r));
    case RegionReason::flat:
      return fmt::format("throughput flat at {}{}: saturated", share_of_peak_text(r),
                         std::isnan(r.elasticity) ? std::string() : ", elasticity " + elasticity_text(r.elasticity));
    case RegionReason::throughput_drop:
      return fmt::format("throughput {:.0f}% below peak ({:.4g} of {:.4g} req/s): overload, avoid",
                         r.peak_throughput > 0 ? 100 * (1 - r.throughput / r.peak_throughput) + 0.0 : 0.0,
                         r.throughput, r.peak_throughput);
    case RegionReason::failures:
      return fmt::format("{:.0f}% of requests failed: overload, avoid", 100 * r.failure_ratio);
    case RegionReason::mostly_failed:
      return fmt::format("{:.0f}% of requests failed: overload, not used for the knee", 100 * r.failure_ratio);
  }
  return "";
}

std::string goodput_source_text(const analyze::SloAnswer& a) {
  using analyze::GoodputSource;
  switch (a.goodput_source) {
    case GoodputSource::missing_metrics: {
      std::string names;
      for (const auto& m : a.missing) names += (names.empty() ? "" : ", ") + m;
      return "SLO metric not in the results: " + names;
    }
    case GoodputSource::no_stage_meets: return "no tested stage meets every SLO";
    case GoodputSource::per_request_records: return "per-request records";
    case GoodputSource::request_goodput: return "request_goodput (the run's --goodput SLOs)";
    case GoodputSource::not_measurable: return "not measurable: no per-request data";
  }
  return "";
}

std::string judgement_text(const analyze::MetricDelta& d) {
  using analyze::Judgement;
  switch (d.judgement) {
    case Judgement::not_in_both: return "not in both results";
    case Judgement::no_request_records: return "cannot be judged: per-request records missing";
    case Judgement::no_request_values: return "cannot be judged: no per-request values for this metric";
    case Judgement::open_loop_throughput: return "cannot be judged: open-loop throughput is set by the offered rate";
    case Judgement::too_few_samples: return "cannot be judged: fewer than 2 successful requests";
    case Judgement::bootstrap:
    case Judgement::bootstrap_littles_law: {
      const bool littles = d.judgement == Judgement::bootstrap_littles_law;
      const double low = d.ci ? d.ci->low : NAN, high = d.ci ? d.ci->high : NAN;
      return fmt::format("{:.0f}% bootstrap CI of the {} difference: [{:.4g}, {:.4g}] ms{}", 100 * d.confidence,
                         littles ? "mean e2el" : d.metric, low, high, littles ? " (Little's law)" : "");
    }
  }
  return "";
}

std::string difference_text(const analyze::WorkloadDifference& d) {
  using Kind = analyze::WorkloadDifference::Kind;
  auto differs = [&](const char* what) {
    return fmt::format("{} differs: baseline \"{}\", tuned \"{}\"", what, d.baseline_text, d.tuned_text);
  };
  std::string text;
  switch (d.kind) {
    case Kind::load_mode: return "load modes differ: " + d.baseline_text + " vs " + d.tuned_text;
    case Kind::model: return differs("model");
    case Kind::backend: return differs("backend");
    case Kind::dataset: return differs("dataset");
    case Kind::request_count: text = fmt::format("request count differs ({} vs {})", d.baseline, d.tuned); break;
    case Kind::input_length:
      text = fmt::format("delivered input length differs ({:.0f} vs {:.0f} tokens)", d.baseline, d.tuned);
      break;
    case Kind::output_length:
      text = fmt::format("delivered output length differs ({:.0f} vs {:.0f} tokens)", d.baseline, d.tuned);
      break;
  }
  std::string where = d.loads.size() == 1 ? "load " : "loads ";
  for (std::size_t i = 0; i < d.loads.size(); ++i) where += fmt::format("{}{}", i ? ", " : "", d.loads[i]);
  return where + ": " + text;
}

std::vector<std::string> difference_texts(const std::vector<analyze::WorkloadDifference>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(difference_text(d));
  return out;
}

std::string hint_text(analyze::Hint h) {
  switch (h) {
    case analyze::Hint::throughput_without_queueing:
      return "RPS up but TTFT not down: throughput improved but queueing did not; consider chunked prefill";
    case analyze::Hint::scheduling_not_compute:
      return "TTFT down but RPS flat: scheduling improved, compute is still the limit; consider more GPUs or lower "
             "precision";
    case analyze::Hint::decode_bound:
      return "TTFT fine but TPOT higher: decode-bound";
  }
  return "";
}

std::vector<std::string> hint_texts(const std::vector<analyze::Hint>& hs) {
  std::vector<std::string> out;
  for (analyze::Hint h : hs) out.push_back(hint_text(h));
  return out;
}

std::string violation_text(const analyze::GateViolation& v) {
  return fmt::format("{} at load {}: {:+.1f}% (limit {:+.1f}%)", v.metric, v.load_value, 100 * v.rel_change,
                     100 * v.limit_rel);
}

}  // namespace sb::report
