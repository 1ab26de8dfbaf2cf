#pragma once
// Deterministic backend for tests (`servebench sim --cost fixed`): every request's first token
// comes at start + ttft + prefill_per_token * prompt_tokens, then one token every itl, on absolute
// deadlines (no drift however late the caller wakes). start = arrival, or with max_concurrency
// the instant a slot frees (FIFO), so queueing shows up in TTFT: a server-side knee.
//
// Output length: max_tokens when ignore_eos or eos_prob == 0; otherwise each token is EOS with
// probability eos_prob, i.e. length ~ Geometric(eos_prob) on {1, 2, ...} capped at max_tokens,
// drawn from (seed, request seed). Jitter: token k is delayed by U[0, jitter] (drawn the same
// way), never before token k-1.
//
// Example (virtual time):
//   FixedCostBackend b({.ttft_ms = 100, .itl_ms = 10});
//   b.submit({.id = 1, .prompt_tokens = 8, .max_tokens = 4}, 0);
//   std::vector<TokenEvent> ev;
//   auto next = b.advance(0, ev);          // next == 100'000'000
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/backend.hpp"

namespace sb::sim {

struct FixedCostOptions {
  double ttft_ms = 0;                 // --ttft-ms
  double prefill_us_per_token = 0;    // --prefill-us-per-token
  double itl_ms = 0;                  // --itl-ms
  double jitter_ms = 0;               // --jitter-ms
  std::uint64_t seed = 0;             // --seed
  int max_concurrency = 0;            // --max-concurrency; 0 = unlimited
  double eos_prob = 0;                // --eos-prob (per token, without ignore_eos)
};

class FixedCostBackend final : public Backend {
 public:
  // Throws sb::UserError naming the flag for negative costs or eos_prob outside [0, 1).
  explicit FixedCostBackend(const FixedCostOptions& opt);

  void submit(const SimRequest& r, Nanos now) override;
  void cancel(std::uint64_t id, Nanos now) override;
  std::optional<Nanos> advance(Nanos now, std::vector<TokenEvent>& out) override;
  void render_metrics(std::string& out, const std::string& model_name) const override;

  int running() const noexcept { return running_; }
  int waiting() const noexcept { return static_cast<int>(waiting_count_); }
  // Output length the request will get (exposed for tests of the EOS draw).
  int output_length(const SimRequest& r) const noexcept;

 private:
  struct Active {
    SimRequest req;
    int target = 0;       // tokens to emit
    int emitted = 0;
    Nanos due_ns = 0;     // deadline of the next token
    Nanos base_ns = 0;    // deadline of token 0 without jitter
    Nanos start_ns = 0;   // got its slot (arrival, or when one freed)
    bool running = false;
  };
  struct Due {
    Nanos at;
    std::uint64_t id;
    bool operator>(const Due& o) const noexcept { return at != o.at ? at > o.at : id > o.id; }
  };

  void start(Active& a, Nanos start_ns);
  void schedule_next(Active& a);
  void admit_waiting(Nanos now);
  void finish(std::uint64_t id, Nanos at);
  Nanos jitter_ns(const Active& a, int index) const noexcept;

  FixedCostOptions opt_;
  Nanos ttft_ns_ = 0, itl_ns_ = 0, jitter_max_ns_ = 0;
  std::unordered_map<std::uint64_t, Active> active_;
  std::vector<Due> heap_;                   // min-heap of next deadlines (stale entries skipped)
  std::deque<std::uint64_t> waiting_;       // FIFO; cancelled ids are skipped on admission
  std::size_t waiting_count_ = 0;
  int running_ = 0;
  std::uint64_t prompt_tokens_total_ = 0, generation_tokens_total_ = 0;
  std::uint64_t finished_length_ = 0, finished_stop_ = 0, cancelled_ = 0;
};

}  // namespace sb::sim
