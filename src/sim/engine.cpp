#include "sim/engine.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/error.hpp"
#include "sim/activation_reserve.hpp"

namespace sb::sim {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Output length when EOS is allowed: exponential with the configured mean (a geometric stop
// probability per token), clamped to [1, max_tokens]; deterministic per request seed.
int draw_output_tokens(const SimRequest& r, double mean_tokens) {
  if (r.ignore_eos || mean_tokens <= 0) return r.max_tokens;
  const double u = (static_cast<double>(splitmix64(r.seed ^ r.id) >> 11) + 0.5) * 0x1.0p-53;
  const double drawn = std::ceil(-mean_tokens * std::log(u));
  return static_cast<int>(std::clamp(drawn, 1.0, static_cast<double>(r.max_tokens)));
}

double seconds(Nanos ns) { return static_cast<double>(ns) / 1e9; }

// The KV cache vLLM would allocate: the blocks that fit beside the weights and the reserve its
// start-up profiling keeps for this model and these limits, or the reserve the configuration sets.
std::int64_t derived_gpu_blocks(const EngineConfig& c, const CostModel& cost) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const std::optional<double>& fixed_gib = c.hardware.cost.activation_reserve_gib;
  const ProfileRunShape shape{c.scheduler.max_num_batched_tokens, c.scheduler.max_num_seqs, c.hardware.tensor_parallel};
  const double reserve_bytes =
      fixed_gib ? *fixed_gib * kGiB : derive_activation_reserve(c.hardware.model, shape).total_bytes();
  return cost.num_gpu_blocks(c.block_size, c.gpu_memory_utilization, reserve_bytes);
}

}  // namespace

Engine::Engine(const EngineConfig& config)
    : config_(config),
      cost_(config.hardware),
      kv_(config.num_gpu_blocks_override > 0 ? config.num_gpu_blocks_override : derived_gpu_blocks(config, cost_),
          config.block_size),
      scheduler_(config.scheduler, kv_),
      max_model_len_(config.max_model_len > 0 ? config.max_model_len : config.hardware.model.max_model_len) {
  validate();
  stats_.request_prompt_tokens = PromHistogram(buckets::tokens_up_to(max_model_len_));
  stats_.request_generation_tokens = PromHistogram(buckets::tokens_up_to(max_model_len_));
  plan_.chunks.reserve(static_cast<std::size_t>(config_.scheduler.max_num_seqs));
}

void Engine::validate() const {
  const auto& sc = config_.scheduler;
  if (sc.max_num_seqs < 1) throw UserError("--max-num-seqs: must be at least 1");
  if (sc.max_num_batched_tokens < 1) throw UserError("--max-num-batched-tokens: must be at least 1");
  if (config_.block_size < 1) throw UserError("--block-size: must be at least 1");
  if (config_.time_scale <= 0) throw UserError("--time-scale: must be positive");
  if (sc.num_scheduler_steps < 1) throw UserError("sim engine: num_scheduler_steps must be at least 1");
  if (kv_.total_blocks() < 1) {
    throw UserError(
        fmt::format("sim engine: model {} ({:.1f} GiB of weights per GPU with tensor parallel {}) leaves no KV-cache "
                    "memory on {} at --gpu-memory-utilization {}; raise the TP size or pick a larger GPU",
                    config_.hardware.model.name, cost_.weight_bytes_per_gpu() / (1024.0 * 1024 * 1024),
                    config_.hardware.tensor_parallel, config_.hardware.gpu.name, config_.gpu_memory_utilization));
  }
  // vLLM's rule: without chunked prefill one step must hold the longest possible sequence, or a
  // preempted sequence could never be recomputed.
  if (!sc.chunked_prefill && sc.max_num_batched_tokens < max_model_len_) {
    throw UserError(
        fmt::format("--max-num-batched-tokens {} is smaller than max_model_len {}: enable chunked prefill or raise it",
                    sc.max_num_batched_tokens, max_model_len_));
  }
}

bool Engine::admissible(const SimRequest& r) const {
  const std::int64_t len = static_cast<std::int64_t>(r.prompt_tokens) + r.max_tokens;
  return r.prompt_tokens >= 1 && r.max_tokens >= 1 && len <= max_model_len_ &&
         kv_.blocks_for_tokens(len) <= kv_.total_blocks();
}

void Engine::submit(const SimRequest& r, Nanos now) {
  if (!admissible(r)) {
    // vLLM answers 400 for these; the backend contract has no error, so the request finishes
    // at once with no tokens and is counted as an abort.
    rejected_.push_back(r.id);
    ++stats_.finished_abort;
    return;
  }
  Sequence s;
  s.id = r.id;
  s.prompt_tokens = r.prompt_tokens;
  s.max_tokens = r.max_tokens;
  s.target_output_tokens = draw_output_tokens(r, config_.eos_mean_output_tokens);
  s.arrival_ns = now;
  scheduler_.add(s);
  if (!busy_) idle_submit_ns_ = std::max(idle_submit_ns_, now);
}

void Engine::cancel(std::uint64_t id, Nanos) {
  const int slot = scheduler_.find(id);
  if (slot < 0) return;
  ++stats_.finished_abort;
  const bool in_flight = busy_ && std::any_of(plan_.chunks.begin(), plan_.chunks.end(),
                                              [slot](const ScheduledChunk& c) { return c.slot == slot; });
  if (in_flight) {
    scheduler_.seq(slot).cancelled = true;  // its slot stays valid until the step completes
  } else {
    scheduler_.remove(id);
  }
}

std::optional<Nanos> Engine::advance(Nanos now, std::vector<TokenEvent>& out) {
  for (const std::uint64_t id : rejected_) out.push_back({id, 0, true, false});
  rejected_.clear();
  for (;;) {
    if (busy_) {
      if (step_end_ns_ > now) return step_end_ns_;
      finish_step(out);
    }
    if (!scheduler_.has_work()) return std::nullopt;
    const Nanos start = std::max(step_end_ns_, idle_submit_ns_);
    if (start > now) return start;
    start_step(start);
    if (!busy_) return std::nullopt;  // nothing schedulable (cannot happen for admissible requests)
  }
}

void Engine::start_step(Nanos start_ns) {
  scheduler_.schedule(plan_, start_ns);
  stats_.preemptions += static_cast<std::uint64_t>(plan_.preempted);
  if (plan_.chunks.empty()) return;
  busy_ = true;
  step_start_ns_ = start_ns;
  // A multi-step block (plan_.steps > 1) is its steps back to back: each decode reads one more
  // cached token per sequence than the step before; its tokens are delivered when it ends.
  StepShape shape = plan_.shape;
  double block_s = 0;
  for (int k = 0; k < plan_.steps; ++k) {
    if (k > 0) {
      shape.kv_tokens_read += shape.decode_tokens;
      shape.attention_pairs += static_cast<double>(shape.decode_tokens);
    }
    const StepCost cost = cost_.step_cost(shape);
    const Nanos from_ns = start_ns + static_cast<Nanos>(block_s * 1e9 / config_.time_scale + 0.5);
    block_s += cost.total_s();
    const Nanos to_ns = start_ns + std::max<Nanos>(static_cast<Nanos>(block_s * 1e9 / config_.time_scale + 0.5), 1);
    stats_.busy_s += cost.busy_s();
    ++stats_.steps;
    stats_.iteration_tokens.observe(static_cast<double>(shape.new_tokens()));
    if (observer_ != nullptr) observer_->on_step(from_ns, to_ns, shape, cost);
    step_end_ns_ = to_ns;
  }
}

void Engine::finish_step(std::vector<TokenEvent>& out) {
  busy_ = false;
  const Nanos t = step_end_ns_;
  for (const ScheduledChunk& c : plan_.chunks) {
    Sequence& s = scheduler_.seq(c.slot);
    if (s.cancelled) {
      scheduler_.retire(c.slot);
      continue;
    }
    if (plan_.steps == 1) {
      s.computed += c.tokens;
      if (c.samples) on_token(s, t, out);
      continue;
    }
    // Every step of a block computed one token of this sequence and sampled the next. Stop
    // conditions are checked when the block's outputs are processed, so a sequence that reached
    // its end mid-block ran to the end of the block and its extra tokens are dropped.
    for (int k = 0; k < plan_.steps; ++k) {
      s.computed += 1;
      if (on_token(s, t, out)) break;
    }
  }
  plan_.chunks.clear();
}

bool Engine::on_token(Sequence& s, Nanos t, std::vector<TokenEvent>& out) {
  const bool first = s.generated == 0;
  ++s.generated;
  ++stats_.generation_tokens;
  if (first) {
    s.first_token_ns = t;
    stats_.prompt_tokens += static_cast<std::uint64_t>(s.prompt_tokens);
    stats_.ttft_s.observe(seconds(t - s.arrival_ns));
    stats_.queue_s.observe(seconds(s.first_scheduled_ns - s.arrival_ns));
    stats_.prefill_s.observe(seconds(t - s.first_scheduled_ns));
  } else {
    stats_.itl_s.observe(seconds(t - s.last_token_ns));
  }
  s.last_token_ns = t;
  const bool done = s.generated >= s.target_output_tokens;
  out.push_back({s.id, 1, done, first, t, s.first_scheduled_ns});
  if (done) {
    on_finished(s, t, s.target_output_tokens < s.max_tokens);
    scheduler_.retire(scheduler_.find(s.id));
  }
  return done;
}

void Engine::on_finished(const Sequence& s, Nanos t, bool by_eos) {
  ++(by_eos ? stats_.finished_stop : stats_.finished_length);
  stats_.e2e_s.observe(seconds(t - s.arrival_ns));
  stats_.inference_s.observe(seconds(t - s.first_scheduled_ns));
  stats_.decode_s.observe(seconds(t - s.first_token_ns));
  if (s.generated > 1) stats_.tpot_s.observe(seconds(t - s.first_token_ns) / (s.generated - 1));
  stats_.request_prompt_tokens.observe(s.prompt_tokens);
  stats_.request_generation_tokens.observe(s.generated);
}

}  // namespace sb::sim
