#pragma once
// vLLM's "Serving Benchmark Result" block, byte for byte (as vllm/benchmarks/serve.py prints it), so
// scripts that scrape vLLM's stdout read ours; then servebench's own lines (schedule lag, saturation,
// errors by category).
#include <string>
#include <vector>

#include "metrics/request_record.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::report {

// A ramp-up stage (--ramp-up-strategy): vLLM prints the ramp instead of the traffic rate.
struct RampHeader {
  std::string strategy;  // linear | exponential
  double start_rps = 0, end_rps = 0;
};

struct ConsoleOptions {
  std::vector<std::string> percentile_metrics{"ttft", "tpot", "itl"};  // --percentile-metrics
  std::vector<double> metric_percentiles{99};                          // in the order given
  bool goodput = false;        // --goodput given: print the goodput row
  bool has_tokenizer = true;   // vLLM prints token rows only with a tokenizer
};

// vLLM's traffic lines printed before a stage starts ("Traffic request rate: inf", burstiness,
// maximum concurrency); with `ramp`, its two ramp-up lines replace the rate line.
std::string format_stage_header(const StageLoad& load, const RampHeader* ramp = nullptr);

// The vLLM block, every line ending in '\n' (trailing spaces of padded values kept).
std::string format_vllm_console(const StageSummary& s, const ConsoleOptions& opt);

// Our additions, printed after the vLLM block; empty when there is nothing to say.
std::string format_console_extras(const StageSummary& s);

// vLLM's note before the block when requests failed: a header line, then "Error i: <error>" for
// the first 10 failed requests (dataset order). Empty when none failed.
std::string format_failed_requests(const std::vector<RequestRecord>& records);

// Both, as printed after each stage.
std::string format_console_summary(const StageSummary& s, const ConsoleOptions& opt);

}  // namespace sb::report
