#pragma once
// Reads result files into the results model (model.hpp):
//  - servebench sweep documents (docs/results-format.md §1-2) and their per-request JSONL (§3);
//  - vLLM's own result JSON files, one per rate/concurrency (the files `vllm bench serve
//    --save-result` writes, docs/results-format.md §4), grouped into one run per (label, backend,
//    model) so old results can be brought along.
// Cold path: nlohmann is used for parsing; every malformed input becomes a one-line sb::UserError
// naming the file (and line where the parser knows it).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results/model.hpp"

namespace sb::results {

// Reads every path (sweep documents and/or vLLM files; a folder means the *.json files in it).
// Throws sb::UserError on bad input.
std::vector<Run> read_runs(const std::vector<std::string>& paths);

// A --repeats sweep as one run per pass (stages by their servebench.repeat), labelled
// "LABEL repeat K" (K from 1); any other run unchanged. Per-request samples are dropped from split
// runs (the JSONL does not record the pass), with a note. read_runs applies it to every sweep.
std::vector<Run> split_repeats(Run run);

// Parsers over text, for tests and for read_runs. `path` is only used in messages and to find the
// per-request JSONL next to the document.
Run parse_sweep(std::string_view text, const std::string& path);
std::vector<Run> group_vllm(const std::vector<std::pair<std::string, std::string>>& path_texts);
std::vector<Request> parse_requests_jsonl(std::string_view text, const std::string& path);

// Only the stage windows of a sweep document (kernels --results): per stage the `servebench` object's
// stage_index, load_value, start_unix_s and end_unix_s, plus load_mode and analysis.knee.stage_index.
// Tolerant of documents without vLLM's keys; stages stay in document order. Throws sb::UserError
// "SOURCE: what" when those keys are missing or malformed.
Run parse_sweep_windows(std::string_view text, const std::string& source);

// Replaces values of secret-looking keys (api_key, authorization, password, secret, header values)
// and pretty-prints the result (keys sorted, indent 2).
std::string redact_config(std::string_view json_text);

}  // namespace sb::results
