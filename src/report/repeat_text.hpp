#pragma once
// The words of --repeats: the note before each pass and the spread table after the run
// (analyze/repeat_spread.hpp), with a warning per stage whose repeats differ beyond the limit.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyze/repeat_spread.hpp"

namespace sb::report {

// "Repeat 2 of 3: the whole staircase again"
std::string format_repeat_header(int repeat, int repeats);

// A table (load, repeats, throughput min/max/CV, TTFT p99 min/max/CV) and the warnings.
std::string format_repeat_spread(const std::vector<analyze::RepeatSpread>& spreads);

// The sweep document's `repeats` block (docs/results-format.md "Repeats").
nlohmann::ordered_json repeat_spread_json(const std::vector<analyze::RepeatSpread>& spreads, int repeats);

}  // namespace sb::report
