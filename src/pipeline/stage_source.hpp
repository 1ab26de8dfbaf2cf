#pragma once
// The stages of one run, one at a time: the fixed list planned up front (`--concurrency 1 4 16`),
// or, with `--concurrency auto` / `--request-rate auto`, the stage the knee search
// (pipeline/knee_search) chooses from the throughput of the stages run so far.
#include <optional>
#include <string>
#include <vector>

#include "load/load_search.hpp"
#include "load/staircase.hpp"
#include "metrics/stage_summary.hpp"
#include "pipeline/knee_search.hpp"

namespace sb::pipeline {

class StageSource {
 public:
  // `one_request_latency_s`: the test request's latency, if it ran (a rate search starts at its inverse).
  StageSource(const StaircaseParams& load, const Staircase& planned, int num_requests,
              std::optional<double> one_request_latency_s);

  // The next stage, or nullopt: the list is done, or the search located the knee or spent its budget.
  std::optional<StagePlan> next();
  // Search only: why next()'s stage was chosen, one line for the console ("" for a fixed list).
  const std::string& why() const { return why_; }
  // The stage just run (its summary's request throughput feeds the search).
  void done(const StageSummary& s);
  // The run ends early (failures or a stop); the search records it as the reason.
  void stop(SearchStop why);
  // Search only: how the stages were chosen so far.
  const std::optional<LoadSearchRecord>& record() const { return record_; }
  // Stages planned: the list's length, or the search's budget (for the progress line).
  std::size_t planned_count() const;

 private:
  const StaircaseParams& load_;
  const Staircase& planned_;
  int num_requests_;
  std::size_t next_index_ = 0;
  KneeSearchParams search_;
  bool start_from_latency_ = false;
  std::vector<SearchPoint> points_;
  std::optional<StagePlan> current_;
  std::optional<LoadSearchRecord> record_;
  std::string why_;
};

}  // namespace sb::pipeline
