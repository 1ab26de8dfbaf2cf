#include "sim/fixed_cost.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/error.hpp"
#include "sim/faults.hpp"

namespace sb::sim {
namespace {

Nanos ms_to_ns(double ms) { return static_cast<Nanos>(std::llround(ms * 1e6)); }

void check_non_negative(double v, const char* flag) {
  if (!(v >= 0.0)) throw UserError(std::string(flag) + ": must be >= 0, got " + std::to_string(v));
}

}  // namespace

FixedCostBackend::FixedCostBackend(const FixedCostOptions& opt) : opt_(opt) {
  check_non_negative(opt.ttft_ms, "--ttft-ms");
  check_non_negative(opt.prefill_us_per_token, "--prefill-us-per-token");
  check_non_negative(opt.itl_ms, "--itl-ms");
  check_non_negative(opt.jitter_ms, "--jitter-ms");
  if (opt.max_concurrency < 0) throw UserError("--max-concurrency: must be >= 0 (0 = unlimited)");
  if (!(opt.eos_prob >= 0.0 && opt.eos_prob < 1.0)) {
    throw UserError("--eos-prob: must be in [0, 1), got " + std::to_string(opt.eos_prob));
  }
  ttft_ns_ = ms_to_ns(opt.ttft_ms);
  itl_ns_ = ms_to_ns(opt.itl_ms);
  jitter_max_ns_ = ms_to_ns(opt.jitter_ms);
}

int FixedCostBackend::output_length(const SimRequest& r) const noexcept {
  const int max_tokens = std::max(1, r.max_tokens);
  if (r.ignore_eos || opt_.eos_prob <= 0.0) return max_tokens;
  // Inverse CDF of the geometric distribution; u in (0, 1].
  const double u = 1.0 - unit_interval(mix64(opt_.seed ^ mix64(r.seed ^ 0xE05ULL)));
  const double len = 1.0 + std::floor(std::log(u) / std::log(1.0 - opt_.eos_prob));
  return len >= max_tokens ? max_tokens : static_cast<int>(len);
}

Nanos FixedCostBackend::jitter_ns(const Active& a, int index) const noexcept {
  if (jitter_max_ns_ == 0) return 0;
  const std::uint64_t h = mix64(opt_.seed ^ mix64(a.req.seed + static_cast<std::uint64_t>(index)));
  return static_cast<Nanos>(unit_interval(h) * static_cast<double>(jitter_max_ns_ + 1));
}

void FixedCostBackend::submit(const SimRequest& r, Nanos now) {
  Active& a = active_[r.id];
  a.req = r;
  a.target = output_length(r);
  prompt_tokens_total_ += static_cast<std::uint64_t>(std::max(0, r.prompt_tokens));
  if (opt_.max_concurrency > 0 && running_ >= opt_.max_concurrency) {
    waiting_.push_back(r.id);
    ++waiting_count_;
    return;
  }
  start(a, now);
}

void FixedCostBackend::start(Active& a, Nanos start_ns) {
  a.running = true;
  a.start_ns = start_ns;
  ++running_;
  const auto prefill_ns = static_cast<Nanos>(
      std::llround(opt_.prefill_us_per_token * 1e3 * std::max(0, a.req.prompt_tokens)));
  a.base_ns = start_ns + ttft_ns_ + prefill_ns;
  a.due_ns = a.base_ns + jitter_ns(a, 0);
  heap_.push_back({a.due_ns, a.req.id});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
}

void FixedCostBackend::schedule_next(Active& a) {
  const Nanos due = a.base_ns + itl_ns_ * a.emitted + jitter_ns(a, a.emitted);
  a.due_ns = std::max(due, a.due_ns);
  heap_.push_back({a.due_ns, a.req.id});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
}

void FixedCostBackend::admit_waiting(Nanos now) {
  while (!waiting_.empty() && (opt_.max_concurrency == 0 || running_ < opt_.max_concurrency)) {
    const std::uint64_t id = waiting_.front();
    waiting_.pop_front();
    auto it = active_.find(id);
    if (it == active_.end() || it->second.running) continue;  // cancelled while waiting
    --waiting_count_;
    start(it->second, now);
  }
}

void FixedCostBackend::finish(std::uint64_t id, Nanos at) {
  active_.erase(id);
  --running_;
  admit_waiting(at);
}

void FixedCostBackend::cancel(std::uint64_t id, Nanos now) {
  auto it = active_.find(id);
  if (it == active_.end()) return;
  ++cancelled_;
  if (!it->second.running) {
    --waiting_count_;
    active_.erase(it);
    return;
  }
  finish(id, now);
}

std::optional<Nanos> FixedCostBackend::advance(Nanos now, std::vector<TokenEvent>& out) {
  while (!heap_.empty() && heap_.front().at <= now) {
    const Due d = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
    heap_.pop_back();
    auto it = active_.find(d.id);
    if (it == active_.end() || it->second.due_ns != d.at) continue;  // cancelled
    Active& a = it->second;
    const bool first = a.emitted == 0;
    ++a.emitted;
    ++generation_tokens_total_;
    const bool done = a.emitted >= a.target;
    out.push_back({a.req.id, 1, done, first, d.at, a.start_ns});
    if (!done) {
      schedule_next(a);
      continue;
    }
    (a.target < std::max(1, a.req.max_tokens) ? finished_stop_ : finished_length_) += 1;
    finish(d.id, d.at);  // the slot frees at the token's deadline, not at the late wake-up
  }
  if (heap_.empty()) return std::nullopt;
  return heap_.front().at;
}

void FixedCostBackend::render_metrics(std::string& out, const std::string& model_name) const {
  const std::string label = "{model_name=\"" + model_name + "\"}";
  auto metric = [&](const char* name, const char* type, const char* help, std::uint64_t v) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    out += name + label + " " + std::to_string(v) + "\n";
  };
  metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
         static_cast<std::uint64_t>(running_));
  metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", waiting_count_);
  metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", prompt_tokens_total_);
  metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
         generation_tokens_total_);
  out += "# HELP vllm:request_success_total Count of successfully processed requests.\n"
         "# TYPE vllm:request_success_total counter\n";
  out += "vllm:request_success_total{model_name=\"" + model_name + "\",finished_reason=\"length\"} " +
         std::to_string(finished_length_) + "\n";
  out += "vllm:request_success_total{model_name=\"" + model_name + "\",finished_reason=\"stop\"} " +
         std::to_string(finished_stop_) + "\n";
  metric("servebench_sim_requests_cancelled_total", "counter", "Requests cancelled by a client disconnect.",
         cancelled_);
}

}  // namespace sb::sim
