#pragma once
// Console lines for what the server said about a stage's requests: the TTFT split into server
// queue, server prefill and the rest (metrics/ttft_breakdown.hpp), and the prompt-cache share with
// its warning (metrics/prompt_cache.hpp). Empty when the server reported nothing.
#include <string>
#include <string_view>
#include <vector>

#include "metrics/prompt_cache.hpp"
#include "metrics/ttft_breakdown.hpp"

namespace sb::report {

// One line, e.g. "TTFT split, mean ms (per-request server timings, 20 of the stage's requests):
// server queue n/a + server prefill 50.20 + rest (network + client + slot wait) 0.31 (median 0.28)
// = client TTFT 50.51".
std::string ttft_breakdown_line(const TtftBreakdown& b);

// "Prompt cache: 82.0% of 4000 prompt tokens served from the server's cache (4 requests)", then a
// WARNING line when mostly cached; `stage_label` names the stage ("" on the console, under the
// stage's block; "c=4" in HTML), as output_check_lines does.
std::vector<std::string> prompt_cache_lines(const PromptCacheShare& c, std::string_view stage_label);

}  // namespace sb::report
