#pragma once
// The words of the analysis: analyze/ returns reasons as enums and numbers, and these functions
// turn them into the sentences the console, the JSON (`reason` fields) and the HTML report show.
#include <string>
#include <vector>

#include "analyze/capacity.hpp"
#include "analyze/compare.hpp"
#include "analyze/gate.hpp"
#include "analyze/knee.hpp"
#include "analyze/warnings.hpp"

namespace sb::report {

// Why the knee is where it is (or why there is none), with the evidence, e.g. "capacity ends between 8
// and 16 (estimate 12 by Little's law: plateau 145 req/s x 55.3 ms E2EL at 8): elasticity 0.58 into 16,
// at most 0.03 after it (saturated below 0.20)".
std::string knee_reason_text(const analyze::CurveAnalysis& c);

// Why a stage is in its region, e.g. "throughput flat at 99% of peak (554 of 557 req/s), elasticity 0.00,
// while latency grows past the knee (TTFT 5.5 -> 335 ms (x61), ...): queueing, not a better operating point".
std::string region_reason_text(const analyze::StageRegion& r);

// One warning, e.g. "stage 3: p99 from 48 completed requests (needs >= 100)".
std::string warning_text(const analyze::Warning& w);

// The warnings for a reader: consecutive stages with the same warning text ("stage 3: p99 from 48
// completed requests ...") are folded into one line ("stages 0-6: p99 from 48 ..."), since a short
// sweep would otherwise repeat it once per stage. Scripts get every warning from the JSON.
std::vector<std::string> warning_lines(const std::vector<analyze::Warning>& warnings);

// Where the SLO goodput comes from, or why there is none, e.g. "per-request records".
std::string goodput_source_text(const analyze::SloAnswer& a);

// "significant", "not significant", "cannot judge" (JSON values and table cells).
const char* significance_text(analyze::Significance s) noexcept;

// How a compared metric was judged, e.g. "95% bootstrap CI of the ttft_p99 difference: [-41, -12] ms".
std::string judgement_text(const analyze::MetricDelta& d);

// Why the runs may not be comparable, e.g. "loads 1, 4: delivered input length differs (512 vs 1024 tokens)".
std::string difference_text(const analyze::WorkloadDifference& d);
std::vector<std::string> difference_texts(const std::vector<analyze::WorkloadDifference>& ds);

// What a comparison suggests, e.g. "TTFT fine but TPOT higher: decode-bound".
std::string hint_text(analyze::Hint h);
std::vector<std::string> hint_texts(const std::vector<analyze::Hint>& hs);

// A violated --fail-if rule, e.g. "ttft_p99 at load 32: +33.0% (limit +10.0%)".
std::string violation_text(const analyze::GateViolation& v);

}  // namespace sb::report
