#pragma once
// vLLM-V1-style continuous-batching scheduler (no I/O, no clock): each step first serves the
// running sequences in FCFS order (decodes and unfinished prefill chunks), then admits waiting
// ones while the token budget (max_num_batched_tokens) and sequence budget (max_num_seqs) allow.
// When KV blocks run out, the newest running sequence is preempted (recompute: its blocks are
// freed and it re-enters the front of the queue), as vLLM's RECOMPUTE policy does; with prefix
// caching it recomputes only what was evicted from its blocks meanwhile.
// Two vLLM V0 (0.6.x) behaviours are options: prefill-only steps (without chunked prefill V0 never
// mixes prompts and decodes in one step) and multi-step decode blocks (--num-scheduler-steps).
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "core/clock.hpp"
#include "sim/cost_model.hpp"
#include "sim/kv_cache.hpp"

namespace sb::sim {

struct SchedulerConfig {
  int max_num_seqs = 256;
  int max_num_batched_tokens = 8192;
  bool chunked_prefill = true;
  // vLLM V0: a step that admits prompts runs only prompts, and every running decode waits for it
  // (V1 and chunked prefill put both in one step). Prompts are tried first, as V0 does.
  bool prefill_only_steps = false;
  // vLLM V0's --num-scheduler-steps: a step of decodes alone becomes a block of this many steps
  // over the same sequences, with no admissions until it ends (KV for the whole block is taken up
  // front, as V0's lookahead slots are). 1: one step at a time.
  int num_scheduler_steps = 1;
  // vLLM V1's prefix caching (its default; V0's default was off): a preempted sequence's computed
  // full blocks stay cached after it is freed, and when it is scheduled again the ones not yet
  // evicted are reused instead of recomputed (sim/kv_cache.hpp).
  bool prefix_caching = true;
};

struct Sequence {
  std::uint64_t id = 0;
  int prompt_tokens = 0;
  int max_tokens = 0;
  int target_output_tokens = 0;  // EOS position drawn at submit (== max_tokens with ignore_eos)
  int generated = 0;
  std::int64_t computed = 0;  // tokens whose KV entries exist
  std::int64_t blocks = 0;
  bool cancelled = false;  // cancelled while its step was in flight; dropped at step end
  Nanos arrival_ns = 0;
  Nanos first_scheduled_ns = -1;
  Nanos first_token_ns = -1;
  Nanos last_token_ns = -1;

  std::int64_t num_tokens() const { return prompt_tokens + generated; }
};

struct ScheduledChunk {
  int slot = 0;
  int tokens = 0;
  bool samples = false;  // the chunk reaches the end of the sequence: a token is sampled
};

struct StepPlan {
  std::vector<ScheduledChunk> chunks;
  StepShape shape;  // of the first step when the plan is a block
  int preempted = 0;
  // Steps the plan runs: > 1 only for a multi-step block of decodes, where every chunk is one
  // token per step and step k (from 0) reads k more cached tokens per sequence than `shape`.
  int steps = 1;

  void clear() {
    chunks.clear();
    shape = {};
    preempted = 0;
    steps = 1;
  }
};

class Scheduler {
 public:
  Scheduler(const SchedulerConfig& config, KvCache& kv);

  // Takes ownership of a new sequence (queued at the back); returns its slot.
  int add(const Sequence& seq);
  // Removes a sequence that is not part of an in-flight step; false if unknown.
  bool remove(std::uint64_t id);
  int find(std::uint64_t id) const;  // slot or -1
  // Fills `plan` for one step starting at `now_ns` (stamps first_scheduled_ns); allocation-free
  // once the vectors have grown to the batch size.
  void schedule(StepPlan& plan, Nanos now_ns);
  // Frees a finished or cancelled running sequence.
  void retire(int slot);

  Sequence& seq(int slot) { return seqs_[static_cast<std::size_t>(slot)]; }
  const Sequence& seq(int slot) const { return seqs_[static_cast<std::size_t>(slot)]; }
  std::size_t num_running() const { return running_.size(); }
  std::size_t num_waiting() const { return waiting_.size(); }
  bool has_work() const { return !running_.empty() || !waiting_.empty(); }
  std::uint64_t preemptions() const { return preemptions_; }
  const SchedulerConfig& config() const { return config_; }

 private:
  void schedule_running(StepPlan& plan, int& budget, int lookahead_tokens);
  void schedule_waiting(StepPlan& plan, int& budget, Nanos now_ns);
  void add_chunk(StepPlan& plan, int slot, int tokens);
  void preempt_newest();
  void free_slot(int slot);

  SchedulerConfig config_;
  KvCache& kv_;
  std::vector<Sequence> seqs_;
  std::vector<int> free_slots_;
  std::unordered_map<std::uint64_t, int> slot_of_;
  std::vector<int> running_;  // admission order: back() is the newest
  std::deque<int> waiting_;
  std::uint64_t preemptions_ = 0;
};

}  // namespace sb::sim
