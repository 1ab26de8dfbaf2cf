#pragma once
// The words of the analysis: analyze/ returns reasons as enums and numbers, and these functions
// turn them into the sentences the console, the JSON (`reason` fields) and the HTML report show.
#include <string>
#include <vector>

#include "analyze/knee.hpp"
#include "analyze/warnings.hpp"

namespace sb::report {

// Why the knee is where it is (or why there is none), e.g. "every later stage gains less than 50% of
// the linear slope (2 req/s per unit of load)".
std::string knee_reason_text(const analyze::CurveAnalysis& c);

// Why a stage is in its region, e.g. "throughput 95% of peak, gains 50% of linear: best operating zone".
std::string region_reason_text(const analyze::StageRegion& r);

// One warning, e.g. "stage 3: p99 from 48 completed requests (needs >= 100)".
std::string warning_text(const analyze::Warning& w);

// The warnings for a reader: consecutive stages with the same warning text ("stage 3: p99 from 48
// completed requests ...") are folded into one line ("stages 0-6: p99 from 48 ..."), since a short
// sweep would otherwise repeat it once per stage. Scripts get every warning from the JSON.
std::vector<std::string> warning_lines(const std::vector<analyze::Warning>& warnings);

}  // namespace sb::report
