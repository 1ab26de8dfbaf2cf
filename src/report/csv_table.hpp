#pragma once
// `--csv FILE`: one CSV row per stage, header first, for spreadsheets and pandas.
// format_csv_table() only formats; write_csv_file() puts the text in place atomically.
//
// Columns: stage_index, load_mode, load_value, request_rate, max_concurrency, completed, failed,
// duration_s, request_throughput, output_throughput, total_token_throughput, then for each of ttft,
// tpot, itl, e2el: mean_<m>_ms, median_<m>_ms, p50_<m>_ms, p90_<m>_ms, p95_<m>_ms, p99_<m>_ms
// (vLLM's key names), then schedule_lag_p99_ms, in_flight_mean.
//
// Cells: numbers in their shortest round-trip form ("7.84", "inf" for an unlimited rate, which
// Python's float() and pandas read back); an empty cell when a value does not apply
// (max_concurrency without a limit, schedule lag of a closed-loop stage). Fields are quoted as
// RFC 4180 says, and records end in CRLF as it prescribes (Python's csv module writes the same).
//
// Example:
//   std::string text = sb::format_csv_table(LoadMode::concurrency, stages);
#include <string>
#include <string_view>
#include <vector>

#include "load/staircase.hpp"
#include "metrics/stage_summary.hpp"

namespace sb::report {

std::string format_csv_table(LoadMode mode, const std::vector<StageSummary>& stages);

// Appends one field: as is, or in double quotes with inner quotes doubled when it holds a comma,
// a double quote, CR or LF (RFC 4180 §2.6-2.7).
void append_csv_field(std::string& out, std::string_view field);

// Writes `text` to `path` with report/atomic_file (temp + fsync + rename), so the file can be
// rewritten after every stage and readers never see half of it. Throws sb::UserError
// (write_failed) "--csv: cannot write PATH: why".
void write_csv_file(const std::string& path, std::string_view text);

}  // namespace sb::report
