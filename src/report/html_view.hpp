#pragma once
// Turns runs and their analysis (and optionally a comparison) into the plain document the HTML
// writer (report/html_report.hpp) formats.
#include <vector>

#include "analyze/analysis.hpp"
#include "report/analysis_json.hpp"
#include "analyze/compare.hpp"
#include "report/html_report.hpp"

namespace sb::report {

// The charts of every report (titles, axis labels with units, which series each overlays).
std::vector<ChartSpec> chart_specs();

Document html_document(const std::vector<results::Run>& runs, const std::vector<analyze::RunAnalysis>& analyses);

// Metrics by load, "baseline -> tuned (change)" per cell (compare's and tune's HTML).
Table compare_pivot(const analyze::Comparison& c);

// The report of both runs overlaid, with the before/after table on top.
Document html_compare_document(const std::vector<results::Run>& runs, const std::vector<analyze::RunAnalysis>& analyses,
                                     const analyze::Comparison& c, const GateResult& gate);

}  // namespace sb::report
