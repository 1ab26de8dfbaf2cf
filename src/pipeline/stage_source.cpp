#include "pipeline/stage_source.hpp"

#include "report/load_search.hpp"

namespace sb::pipeline {

StageSource::StageSource(const StaircaseParams& load, const Staircase& planned, int num_requests,
                         std::optional<double> one_request_latency_s)
    : load_(load), planned_(planned), num_requests_(num_requests) {
  if (!load.search) return;
  search_.mode = *load.search;
  search_.precision = load.knee_precision;
  search_.max_stages = load.max_stages;
  // A rate search from the c=1 throughput, so its first stages neither crawl (1 req/s for a
  // 1000-prompt stage is 17 minutes) nor start deep in overload.
  start_from_latency_ = search_.mode == LoadMode::request_rate && one_request_latency_s.has_value();
  if (search_.mode == LoadMode::request_rate) search_.start_load = start_rate_from_latency(one_request_latency_s.value_or(0));
  LoadSearchRecord r;
  r.mode = search_.mode;
  r.precision = search_.precision;
  r.max_stages = search_.max_stages;
  r.plateau_tolerance = search_.plateau_tolerance;
  r.start_load = search_.start_load;
  record_ = r;
}

std::optional<StagePlan> StageSource::next() {
  current_.reset();
  if (!record_) {
    if (next_index_ >= planned_.stages.size()) return std::nullopt;
    current_ = planned_.stages[next_index_++];
    return current_;
  }
  if (record_->stopped != SearchStop::none) return std::nullopt;
  const SearchDecision d = next_search_step(search_, points_);
  record_->bracket = d.bracket;
  if (!d.next) {
    record_->stopped = d.stopped;
    why_.clear();
    return std::nullopt;
  }
  why_ = report::format_search_step(search_.mode, *d.next, start_from_latency_);
  current_ = plan_stage(load_, num_requests_, d.next->load, next_index_++);
  return current_;
}

void StageSource::done(const StageSummary& s) {
  if (!record_ || !current_) return;
  points_.push_back({current_->load_value, s.request_throughput});
  record_->stages_run = static_cast<int>(points_.size());
}

void StageSource::stop(SearchStop why) {
  if (!record_ || record_->stopped != SearchStop::none) return;
  record_->stopped = why;
  record_->bracket = next_search_step(search_, points_).bracket;  // with the stage that ended it
}

std::size_t StageSource::planned_count() const {
  return record_ ? static_cast<std::size_t>(search_.max_stages) : planned_.stages.size();
}

}  // namespace sb::pipeline
