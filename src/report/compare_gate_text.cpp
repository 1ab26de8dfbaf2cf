#include "report/compare_gate_text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "report/analysis_text.hpp"

namespace sb::report {
namespace {

using analyze::GateOutcome;

const char* unit_text(analyze::MetricUnit u) {
  switch (u) {
    case analyze::MetricUnit::ms: return " ms";
    case analyze::MetricUnit::requests_per_s: return " req/s";
    case analyze::MetricUnit::tokens_per_s: return " tok/s";
    case analyze::MetricUnit::unknown: return "";
  }
  return "";
}

// How significance was judged, in judgement_text's words (shared with the compare detail).
std::string evidence_text(const analyze::GateVerdict& v) {
  analyze::MetricDelta d;
  d.metric = v.metric;
  d.ci = v.ci;
  d.judgement = v.judgement;
  d.confidence = v.confidence;
  return judgement_text(d);
}

std::string outcome_text(const analyze::GateVerdict& v) {
  switch (v.outcome) {
    case GateOutcome::within_limit: return fmt::format("within the limit ({:+.1f}%)", 100 * v.limit_rel);
    case GateOutcome::under_floor:
      return fmt::format("over the limit but under the floor ({:.4g}{})", v.floor_abs.value_or(0),
                         unit_text(analyze::unit_of(v.metric)));
    case GateOutcome::not_significant: return "over the limit but not significant (" + evidence_text(v) + ")";
    case GateOutcome::tripped: return "TRIPPED: significant (" + evidence_text(v) + ")";
    case GateOutcome::tripped_not_judged: return "TRIPPED: significance " + evidence_text(v);
  }
  return "";
}

}  // namespace

std::string stage_load_name(LoadMode mode, double load_value) {
  const std::string v = std::isinf(load_value) ? "inf" : fmt::format("{:g}", load_value);
  return mode == LoadMode::concurrency ? "c=" + v : "rate " + v;
}

const char* gate_outcome_key(GateOutcome o) noexcept {
  switch (o) {
    case GateOutcome::within_limit: return "within_limit";
    case GateOutcome::under_floor: return "under_floor";
    case GateOutcome::not_significant: return "over_limit_not_significant";
    case GateOutcome::tripped: return "tripped";
    case GateOutcome::tripped_not_judged: return "tripped_not_judged";
  }
  return "?";
}

std::string gate_verdict_text(const analyze::GateVerdict& v) {
  return fmt::format("{:+.1f}% ({:+.4g}{}): {}", 100 * v.rel_change, v.abs_change,
                     unit_text(analyze::unit_of(v.metric)), outcome_text(v));
}

std::string gate_block(LoadMode mode, const GateResult& gate) {
  if (gate.rules.empty()) return "";
  std::string out = "gate (--fail-if trips only on a significant change past the limit and the floor):\n";
  std::size_t failed = 0;
  for (const auto& rule : gate.rules) {
    out += "  " + rule.text + "\n";
    for (const auto& v : gate.verdicts) {
      if (v.rule != rule.text) continue;
      failed += v.failed() ? 1 : 0;
      out += fmt::format("    {:>9}  {}\n", stage_load_name(mode, v.load_value), gate_verdict_text(v));
    }
  }
  out += failed == 0 ? "gate: passed\n" : fmt::format("gate: FAILED at {} of {} rule-stages\n", failed, gate.verdicts.size());
  return out;
}

}  // namespace sb::report
