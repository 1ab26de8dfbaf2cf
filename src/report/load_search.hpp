#pragma once
// The words and the JSON block of the adaptive knee search (`--concurrency auto`): one console line
// per stage it adds and why, one when it ends, and the sweep document's `load_search` object
// (docs/results-format.md).
#include <string>

#include <nlohmann/json.hpp>

#include "load/load_search.hpp"

namespace sb::report {

// "knee search: c=12 (bracket 8-16)", "knee search: c=16 (doubling: throughput still growing at c=8)",
// "knee search: rate 27 req/s (start: one over the test request's latency)". No newline.
std::string format_search_step(LoadMode mode, const SearchStep& step, bool start_from_latency);

// "knee search: knee between c=11 and c=12, located to 10 % in 9 stages", or why it ended sooner.
std::string format_search_end(const LoadSearchRecord& r);

// {"mode": "auto", "load_mode", "precision", "max_stages", "plateau_tolerance", "start", "bracket":
// [lo, hi] (null where unknown), "knee": hi, "stages_run", "stopped"}
nlohmann::ordered_json load_search_json(const LoadSearchRecord& r);

}  // namespace sb::report
