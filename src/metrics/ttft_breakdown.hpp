#pragma once
// Per-stage decomposition of the client's TTFT into server queue, server prefill and the rest
// (network, HTTP, the client, and server time the engine does not report). From per-request
// server timings where the engine sends them (llama.cpp `timings`), or, where only /metrics
// histograms exist (vLLM's vllm:request_queue_time_seconds and vllm:request_prefill_time_seconds),
// from their per-stage means, which the /metrics scraper fills into ServerStageMeans.
// Means decompose (mean TTFT = mean queue + mean prefill + mean rest); percentiles do not.
#include <cstdint>
#include <optional>
#include <vector>

#include "metrics/request_record.hpp"

namespace sb {

// A stage's server-side means from the engine's own histograms (Δsum / Δcount over the stage).
struct ServerStageMeans {
  std::optional<double> queue_ms;    // vllm:request_queue_time_seconds
  std::optional<double> prefill_ms;  // vllm:request_prefill_time_seconds
  int requests = 0;                  // Δcount behind them
};

enum class TtftSource : std::uint8_t {
  per_request,         // each request's own server timings, matched with its client TTFT
  metrics_histograms,  // stage means of the server's /metrics, against the stage's mean client TTFT
};

const char* to_string(TtftSource s) noexcept;

struct TtftBreakdown {
  TtftSource source = TtftSource::per_request;
  int requests = 0;                // requests behind the means
  double covered = 0;              // per_request: share of the stage's successful requests with timings
  double client_ttft_mean_ms = 0;  // over the same requests
  // nullopt: the server reports no queue time. llama.cpp's prompt_ms starts at the slot, so a wait
  // for a free slot is then part of the rest.
  std::optional<double> server_queue_mean_ms;
  double server_prefill_mean_ms = 0;
  double rest_mean_ms = 0;                 // client − queue − prefill
  std::optional<double> rest_median_ms;    // per_request only: one stalled request cannot move it
};

// Over the successful streamed requests that reported a prefill time; nullopt when none did.
std::optional<TtftBreakdown> ttft_breakdown(const std::vector<RequestRecord>& records);

// From the stage's mean client TTFT and the server's histogram means; nullopt without a prefill mean.
std::optional<TtftBreakdown> ttft_breakdown_from_means(double client_ttft_mean_ms, const ServerStageMeans& m);

}  // namespace sb
