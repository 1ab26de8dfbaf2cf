#pragma once
// `tune`'s report.html: every configuration's curves overlaid (report/html_view's document), the
// configurations table, the best configuration, each comparison with the baseline, kernel rows per
// stage, and the Pareto view as a scatter with the dominated points hollow.
#include "analyze/tune_analysis.hpp"
#include "report/html_report.hpp"

namespace sb::report {

Document tune_html_document(const analyze::TuneInput& in, const analyze::TuneAnalysis& a);

}  // namespace sb::report
