#include "predict/virtual_client.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

namespace sb::predict {
namespace {

// Every step's start, for the median step period.
class StepStarts final : public sim::StepObserver {
 public:
  void on_step(Nanos start_ns, Nanos, const sim::StepShape&, const sim::StepCost&) override { starts_.push_back(start_ns); }
  double median_period_ms() {
    if (starts_.size() < 2) return 0;
    std::vector<double> gaps;
    for (std::size_t i = 1; i < starts_.size(); ++i) gaps.push_back(static_cast<double>(starts_[i] - starts_[i - 1]) / 1e6);
    const std::size_t mid = gaps.size() / 2;
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(mid), gaps.end());
    const double hi = gaps[mid];
    if (gaps.size() % 2 == 1) return hi;
    return (hi + *std::max_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
  }

 private:
  std::vector<Nanos> starts_;
};

// The records of one stage while it plays: who is in flight, and what each has received.
class StagePlayer {
 public:
  StagePlayer(const sim::EngineConfig& config, const PlayedStage& stage)
      : engine_(config), stage_(stage), cap_(stage.max_concurrency.value_or(INT_MAX)) {
    engine_.set_step_observer(&steps_);
    const std::vector<PlayedRequest>& reqs = stage_.requests;
    out_.records.resize(reqs.size());
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      RequestRecord& r = out_.records[i];
      r.index = static_cast<std::uint32_t>(i);
      r.intended_ns = reqs[i].intended_ns;
      r.dataset_prompt_tokens = reqs[i].prompt_tokens;
      r.prompt_tokens = reqs[i].prompt_tokens;
      r.expected_output_tokens = reqs[i].max_tokens;
      r.was_sent = false;
    }
  }

  PlayedOutput play() {
    const std::size_t n = stage_.requests.size();
    Nanos t = 0;
    while (done_ < n) {
      release_due(t);
      events_.clear();
      const std::optional<Nanos> wake = engine_.advance(t, events_);
      const int finished = apply(t);
      // Slots freed at t go to requests already due at t before time moves on, as the client's
      // semaphore hands them over at once.
      if (finished > 0 && due_with_slot(t)) continue;
      Nanos next = wake.value_or(INT64_MAX);
      if (next_ < n && in_flight_ < cap_) next = std::min(next, stage_.requests[next_].intended_ns);
      if (next == INT64_MAX) break;  // nothing left can happen (a valid engine always finishes)
      t = next;
    }
    out_.end_ns = t;
    for (const RequestRecord& r : out_.records) out_.end_ns = std::max(out_.end_ns, r.done_ns);
    out_.engine_steps = engine_.stats().steps;
    // The engine counts unscaled cost-model seconds; a replay at --time-scale K runs K times faster.
    out_.gpu_busy_s = engine_.stats().busy_s / engine_.config().time_scale;
    out_.step_period_p50_ms = steps_.median_period_ms();
    return std::move(out_);
  }

 private:
  bool due_with_slot(Nanos t) const {
    return next_ < stage_.requests.size() && stage_.requests[next_].intended_ns <= t && in_flight_ < cap_;
  }

  void release_due(Nanos t) {
    while (due_with_slot(t)) {
      const PlayedRequest& q = stage_.requests[next_];
      RequestRecord& r = out_.records[next_];
      r.was_sent = true;
      r.sent_ns = t;
      // Only a full set of slots makes a request late in virtual time: the client has no lag.
      if (t > q.intended_ns) r.slot_free_ns = t;
      engine_.submit({next_, q.prompt_tokens, q.max_tokens, q.ignore_eos, q.seed}, t);
      ++next_;
      ++in_flight_;
    }
  }

  // Token events at `t` into the records; returns how many requests finished.
  int apply(Nanos t) {
    int finished = 0;
    for (const sim::TokenEvent& e : events_) {
      RequestRecord& r = out_.records[e.id];
      const Nanos at = e.at_ns >= 0 ? e.at_ns : t;
      for (int k = 0; k < e.tokens; ++k) r.token_ns.push_back(at);
      if (r.first_byte_ns < 0 && e.tokens > 0) r.first_byte_ns = at;
      r.output_tokens += e.tokens;
      if (!e.finished) continue;
      finish(r, at);
      ++finished;
    }
    done_ += static_cast<std::size_t>(finished);
    in_flight_ -= finished;
    return finished;
  }

  void finish(RequestRecord& r, Nanos at) const {
    r.done_ns = at;
    if (r.token_ns.empty()) {
      // The engine refused it (longer than the context, or than the whole KV cache): vLLM's 400.
      r.outcome = Outcome::http_error;
      r.http_status = 400;
      r.error = "request longer than the simulated model's context or KV cache";
      return;
    }
    r.http_status = 200;
    r.token_source = TokenSource::usage_chunk;
    r.saw_text = true;
    r.finish_reason = r.output_tokens < r.expected_output_tokens ? FinishReason::stop : FinishReason::length;
  }

  StepStarts steps_;  // before engine_: the engine holds a pointer to it
  sim::Engine engine_;
  const PlayedStage& stage_;
  const int cap_;
  PlayedOutput out_;
  std::vector<sim::TokenEvent> events_;
  std::size_t next_ = 0;
  std::size_t done_ = 0;
  int in_flight_ = 0;
};

}  // namespace

PlayedOutput play_stage(const sim::EngineConfig& config, const PlayedStage& stage) {
  return StagePlayer(config, stage).play();
}

}  // namespace sb::predict
