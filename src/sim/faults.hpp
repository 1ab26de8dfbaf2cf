#pragma once
// Seeded fault injection for the simulator (sans-I/O): decides per request whether it fails with
// an HTTP error, has its connection dropped mid-stream, or gets one malformed chunk. The decision
// hashes (seed, request key): the key is the client's x-request-id less servebench's per-run tag
// (protocol/request_id.hpp), i.e. the request's name in its run, so a rerun of the same benchmark
// gets the same faults whatever the arrival order and whatever else (test requests, probes) came
// first; without an x-request-id it is the arrival counter.
// The three ratios partition one uniform draw, so the faults are mutually exclusive and their
// frequencies converge to the ratios.
#include <cstdint>
#include <string>
#include <string_view>

namespace sb::sim {

struct FaultOptions {
  double fail_ratio = 0;        // --fail-ratio: answer with fail_status and an error JSON body
  int fail_status = 500;        // --fail-status: 500, 503 or 429
  double drop_ratio = 0;        // --drop-ratio: close the connection after a few tokens
  double malformed_ratio = 0;   // --malformed-ratio: one invalid-JSON event after a few tokens
  std::uint64_t seed = 0;       // --seed
};

enum class FaultKind { none, fail, drop, malformed };

struct FaultPlan {
  FaultKind kind = FaultKind::none;
  int after_tokens = 0;         // drop / malformed: happens right after this many tokens (1..3)
};

class FaultInjector {
 public:
  // Throws sb::UserError naming the flag when a ratio is outside [0, 1], their sum exceeds 1, or
  // the status is not 500/503/429.
  explicit FaultInjector(const FaultOptions& opt);
  bool enabled() const noexcept { return enabled_; }
  int fail_status() const noexcept { return opt_.fail_status; }
  // max_tokens bounds after_tokens so a drop always happens before the stream's natural end.
  FaultPlan pick(std::string_view request_key, int max_tokens) const noexcept;

 private:
  FaultOptions opt_;
  bool enabled_ = false;
};

// OpenAI-style error body: {"error":{"message":..,"type":..,"param":null,"code":status}}.
std::string error_body(int status, std::string_view message);

// Deterministic draws shared by the simulator's seeded decisions (faults, EOS, jitter).
std::uint64_t mix64(std::uint64_t x) noexcept;                 // splitmix64 finaliser
std::uint64_t hash_key(std::uint64_t seed, std::string_view key) noexcept;
double unit_interval(std::uint64_t h) noexcept;                // [0, 1) from the top 53 bits

}  // namespace sb::sim
