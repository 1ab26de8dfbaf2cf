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

// A gain as a whole percentage; + 0.0 turns -0 into 0 (a flat stage says "0%", never "-0%").
std::string gain_text(double efficiency) {
  return fmt::format("gains {:.0f}% of linear", std::round(100 * efficiency) + 0.0);
}

// The text after "stage N: " (the whole text for a warning about the run).
std::string warning_body(const analyze::Warning& w) {
  using analyze::WarningKind;
  switch (w.kind) {
    case WarningKind::aborted:
      return "run was aborted: later stages are missing";
    case WarningKind::note:
      return w.note;
    case WarningKind::client_saturated:
      return fmt::format("client could not keep the schedule (lag p99 {:.1f} ms): latencies are understated",
                         w.lag_p99_ms);
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
  switch (c.knee_reason) {
    case KneeReason::no_stages:
      return "no stages";
    case KneeReason::no_throughput:
      return "no stage with throughput: no knee can be judged";
    case KneeReason::later_gains_below_slope:
      return fmt::format(
          "every later stage gains less than {:.0f}% of the linear slope ({:.3g} req/s per unit of load)",
          100 * c.min_efficiency, c.linear_slope);
    case KneeReason::later_stages_overloaded:
      return fmt::format("the next stages achieve less than {:.0f}% of the linear extrapolation (overloaded), later "
                         "ones gain less than {:.0f}% of its slope ({:.3g} req/s per unit of load)",
                         100 * c.min_share_of_linear, 100 * c.min_efficiency, c.linear_slope);
    case KneeReason::none_in_range:
      return fmt::format("no knee within the tested range: throughput still gains at least {:.0f}% of linear at the "
                         "highest stage",
                         100 * c.min_efficiency);
  }
  return "";
}

std::string region_reason_text(const analyze::StageRegion& r) {
  switch (r.reason) {
    case RegionReason::scaling:
      return gain_text(r.efficiency) + ": room to scale";
    case RegionReason::before_knee:
      return "before the knee: room to scale";
    case RegionReason::knee:
      return "knee: last stage with near-linear gain";
    case RegionReason::operating_zone:
      return fmt::format("throughput {:.0f}% of peak, {}: best operating zone",
                         r.peak_throughput > 0 ? 100 * r.throughput / r.peak_throughput : 0.0,
                         std::isnan(r.efficiency) ? std::string("past the knee") : gain_text(r.efficiency));
    case RegionReason::overload:
      return fmt::format("throughput {:.0f}% below peak: overload, avoid",
                         100 * (1 - r.throughput / r.peak_throughput));
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
