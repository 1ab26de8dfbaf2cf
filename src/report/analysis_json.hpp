#pragma once
// The analysis as JSON for scripts (`report --format json`, `compare --format json`). Formatting only.
#include <vector>

#include <nlohmann/json.hpp>

#include "analyze/analysis.hpp"
#include "analyze/compare.hpp"
#include "analyze/gate.hpp"

namespace sb::report {

nlohmann::ordered_json run_analysis_json(const results::Run& run, const analyze::RunAnalysis& a);
nlohmann::ordered_json report_json(const std::vector<results::Run>& runs, const std::vector<analyze::RunAnalysis>& as);

struct GateResult {
  std::vector<analyze::GateRule> rules;
  std::vector<analyze::GateViolation> violations;
  std::vector<analyze::GateVerdict> verdicts{};  // every rule at every stage (compare_gate_text.hpp)
};

// Implemented in report/compare_json.cpp (with the headline and the gate verdicts, docs/compare.md).
nlohmann::ordered_json compare_json(const results::Run& baseline, const results::Run& tuned,
                                    const analyze::Comparison& c, const GateResult& gate);

}  // namespace sb::report
