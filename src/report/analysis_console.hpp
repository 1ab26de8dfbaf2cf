#pragma once
// Terminal output of report: staircase table, knee and regions, small text charts (compare's is in
// report/compare_table.hpp). Formatting only: everything shown is computed in analysis/compare/gate.
#include <string>
#include <vector>

#include "analyze/analysis.hpp"
#include "report/analysis_json.hpp"
#include "analyze/compare.hpp"

namespace sb::report {

std::string console_report(const results::Run& run, const analyze::RunAnalysis& a);

// One horizontal-bar chart: one row per stage, bars scaled to the largest value.
std::string text_chart(const std::string& title, const std::vector<std::string>& row_labels,
                       const std::vector<double>& values, int marked_row, int width = 40);

}  // namespace sb::report
