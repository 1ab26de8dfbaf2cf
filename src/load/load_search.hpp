#pragma once
// The vocabulary of the adaptive knee search (`--concurrency auto`, `--request-rate auto`): why a
// stage was added, the bracket the knee is known to lie in, and why the search ended. Numbers and
// enums only; report/ words them, pipeline/knee_search decides them.
#include <optional>

#include "load/staircase.hpp"

namespace sb {

// Why the search asked for a stage.
enum class SearchReason {
  start,     // the first stage
  doubling,  // throughput still grows: twice the highest load so far
  halving,   // the lowest load already saturates (rate mode): half of it
  bisect,    // inside the bracket, between the highest unsaturated and the lowest saturated load
};

// Why the search ended (`none` while it runs).
enum class SearchStop { none, precision, budget, failures, aborted };

// lo: the highest load run that is not saturated; hi: the lowest load run that is. Either may be
// unknown (no unsaturated stage yet, or no plateau within the budget).
struct LoadBracket {
  std::optional<double> lo, hi;
};

struct SearchStep {
  double load = 0;  // concurrency (a whole number) or request rate, req/s
  SearchReason reason = SearchReason::start;
  LoadBracket bracket;  // before this stage runs
};

// How the stages of a run were chosen, as the sweep document records it (`load_search`).
struct LoadSearchRecord {
  LoadMode mode = LoadMode::concurrency;
  double precision = 0.1;          // (hi - lo) / lo to reach
  int max_stages = 12;             // the stage budget
  double plateau_tolerance = 0.05; // throughput within this fraction of the plateau counts as saturated
  double start_load = 1;           // the first stage's load
  LoadBracket bracket;
  int stages_run = 0;
  SearchStop stopped = SearchStop::none;
};

const char* to_string(SearchStop s) noexcept;   // "precision", "budget", ... (the JSON values)
const char* to_string(SearchReason r) noexcept; // "start", "doubling", "halving", "bisect"

}  // namespace sb
