#pragma once
// The words of the analysis: analyze/ returns reasons as enums and numbers, and these functions
// turn them into the sentences the console, the JSON (`reason` fields) and the HTML report show.
#include <string>

#include "analyze/knee.hpp"

namespace sb::report {

// Why the knee is where it is (or why there is none), e.g. "every later stage gains less than 50% of
// the linear slope (2 req/s per unit of load)".
std::string knee_reason_text(const analyze::CurveAnalysis& c);

// Why a stage is in its region, e.g. "throughput 95% of peak, gains 50% of linear: best operating zone".
std::string region_reason_text(const analyze::StageRegion& r);

}  // namespace sb::report
