#pragma once
// What `servebench run` prints: vLLM's summary block after each stage (byte for byte as vLLM [N]
// prints it, so scrapers of vLLM's output keep working, vllm-bench-spec §7), a note when requests
// failed, and the staircase table at the end. Formatting only; numbers come from StageSummary.
#include <cstdio>
#include <string>
#include <vector>

#include "metrics/stage_summary.hpp"
#include "report/run_context.hpp"

namespace sb::cli {

// vLLM's traffic lines printed before a stage starts ("Traffic request rate: inf", ...).
std::string stage_header_text(const StageLoad& load);
std::string stage_summary_text(const RunContext& ctx, const StageSummary& s);
// "" when every sent request completed and every planned request was sent.
std::string failure_note_text(const StageSummary& s);
std::string staircase_table_text(const RunContext& ctx, const std::vector<StageSummary>& stages);

void print_stage_header(std::FILE* out, const StageLoad& load);
void print_stage_summary(std::FILE* out, const RunContext& ctx, const StageSummary& s);
void print_failure_note(std::FILE* out, const StageSummary& s);
void print_staircase_table(std::FILE* out, const RunContext& ctx, const std::vector<StageSummary>& stages);

}  // namespace sb::cli
