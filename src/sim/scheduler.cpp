#include "sim/scheduler.hpp"

#include <algorithm>

namespace sb::sim {

Scheduler::Scheduler(const SchedulerConfig& config, KvCache& kv) : config_(config), kv_(kv) {
  running_.reserve(static_cast<std::size_t>(config_.max_num_seqs));
}

int Scheduler::add(const Sequence& seq) {
  int slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    seqs_[static_cast<std::size_t>(slot)] = seq;
  } else {
    slot = static_cast<int>(seqs_.size());
    seqs_.push_back(seq);
  }
  slot_of_[seq.id] = slot;
  waiting_.push_back(slot);
  return slot;
}

int Scheduler::find(std::uint64_t id) const {
  const auto it = slot_of_.find(id);
  return it == slot_of_.end() ? -1 : it->second;
}

bool Scheduler::remove(std::uint64_t id) {
  const int slot = find(id);
  if (slot < 0) return false;
  if (const auto w = std::find(waiting_.begin(), waiting_.end(), slot); w != waiting_.end()) {
    waiting_.erase(w);
  }
  if (const auto r = std::find(running_.begin(), running_.end(), slot); r != running_.end()) {
    running_.erase(r);
  }
  free_slot(slot);
  return true;
}

void Scheduler::retire(int slot) {
  if (const auto r = std::find(running_.begin(), running_.end(), slot); r != running_.end()) {
    running_.erase(r);
  }
  free_slot(slot);
}

void Scheduler::free_slot(int slot) {
  Sequence& s = seq(slot);
  kv_.release(s.blocks);
  kv_.forget(s.id);  // cancelled while preempted: nobody will look for its cached blocks
  slot_of_.erase(s.id);
  free_slots_.push_back(slot);
}

void Scheduler::schedule(StepPlan& plan, Nanos now_ns) {
  plan.clear();
  int budget = config_.max_num_batched_tokens;
  if (config_.prefill_only_steps) {
    // V0 schedules prompts first; a step that took any runs nothing else (decodes stall).
    schedule_waiting(plan, budget, now_ns);
    if (!plan.chunks.empty()) return;
  }
  const int block = std::max(1, config_.num_scheduler_steps);
  // A block is only formed from decodes; a sequence still in its prompt runs one step.
  const bool all_decode = std::all_of(running_.begin(), running_.end(), [this](int slot) {
    const Sequence& s = seq(slot);
    return s.generated > 0 && s.computed == s.num_tokens() - 1;
  });
  const int lookahead = block > 1 && all_decode ? block - 1 : 0;
  schedule_running(plan, budget, lookahead);
  const std::size_t decodes = plan.chunks.size();
  // Like vLLM V1: no new admissions in a step that had to preempt (memory is tight).
  if (plan.preempted == 0 && !config_.prefill_only_steps) schedule_waiting(plan, budget, now_ns);
  // Admissions happen only here, between blocks: a step that took a prompt runs once, and one of
  // decodes alone runs the whole block (the KV for it is already reserved).
  if (lookahead > 0 && plan.preempted == 0 && decodes > 0 && plan.chunks.size() == decodes) plan.steps = block;
}

void Scheduler::schedule_running(StepPlan& plan, int& budget, int lookahead_tokens) {
  for (std::size_t i = 0; i < running_.size() && budget > 0;) {
    const int slot = running_[i];
    Sequence& s = seq(slot);
    const auto need = s.num_tokens() - s.computed;
    const int n = static_cast<int>(std::min<std::int64_t>(need, budget));
    const std::int64_t reserve = s.computed + n + lookahead_tokens;
    bool self_preempted = false;
    while (!kv_.can_grow(s.blocks, reserve)) {
      const bool victim_is_self = running_.back() == slot;
      preempt_newest();
      ++plan.preempted;
      if (victim_is_self) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) break;
    kv_.grow(s.blocks, reserve);
    add_chunk(plan, slot, n);
    budget -= n;
    ++i;
  }
}

void Scheduler::schedule_waiting(StepPlan& plan, int& budget, Nanos now_ns) {
  while (!waiting_.empty() && budget > 0 && running_.size() < static_cast<std::size_t>(config_.max_num_seqs)) {
    const int slot = waiting_.front();
    Sequence& s = seq(slot);
    // V1 looks for cached blocks of a sequence with nothing computed (get_computed_blocks): a
    // preempted one finds its own leading blocks that were not evicted since, up to the last token,
    // which is always computed again for its logits.
    const std::int64_t hit_blocks =
        s.computed == 0 ? std::min(kv_.cached_blocks(s.id), (s.num_tokens() - 1) / kv_.block_size()) : 0;
    const std::int64_t start = s.computed + hit_blocks * kv_.block_size();
    const auto need = s.num_tokens() - start;
    int n = static_cast<int>(std::min<std::int64_t>(need, budget));
    // Without chunked prefill a prompt is scheduled whole or waits (FCFS: nobody overtakes it).
    if (n < need && !config_.chunked_prefill) break;
    // V0 admits a prompt only if 1 % of the cache stays free after it (its watermark), so the
    // decodes that run next are not preempted at once by the prompt that just took their blocks.
    // With nothing running nothing would free blocks, so an admissible prompt is never held.
    if (config_.prefill_only_steps && !running_.empty() &&
        kv_.free_blocks() - (kv_.blocks_for_tokens(start + n) - s.blocks) < kv_.total_blocks() / 100) {
      break;
    }
    // The cached blocks are free blocks until taken back, so they count toward what is free, as
    // in V1's allocate_slots.
    if (!kv_.can_grow(s.blocks, start + n)) break;
    if (hit_blocks > 0) {
      kv_.reclaim(s.id, s.blocks, hit_blocks);
      s.computed = start;
    }
    kv_.grow(s.blocks, start + n);
    waiting_.pop_front();
    running_.push_back(slot);
    if (s.first_scheduled_ns < 0) s.first_scheduled_ns = now_ns;
    add_chunk(plan, slot, n);
    budget -= n;
  }
}

void Scheduler::add_chunk(StepPlan& plan, int slot, int tokens) {
  const Sequence& s = seq(slot);
  const bool samples = s.computed + tokens == s.num_tokens();
  plan.chunks.push_back({slot, tokens, samples});
  StepShape& sh = plan.shape;
  const bool decode = tokens == 1 && s.generated > 0 && s.computed == s.num_tokens() - 1;
  (decode ? sh.decode_tokens : sh.prefill_tokens) += tokens;
  if (samples) ++sh.sampled_tokens;
  ++sh.num_seqs;
  const double n = tokens;
  // Token i of the chunk attends to the cached context plus the chunk's tokens up to itself.
  sh.attention_pairs += n * static_cast<double>(s.computed) + n * (n + 1) / 2;
  sh.kv_tokens_read += s.computed;
}

void Scheduler::preempt_newest() {
  const int slot = running_.back();
  running_.pop_back();
  Sequence& s = seq(slot);
  if (config_.prefix_caching) {
    // Only full blocks are hashed, so only those can be found again.
    kv_.release_cached(s.id, s.blocks, s.computed / kv_.block_size());
  } else {
    kv_.release(s.blocks);
  }
  s.computed = 0;
  waiting_.push_front(slot);
  ++preemptions_;
}

}  // namespace sb::sim
