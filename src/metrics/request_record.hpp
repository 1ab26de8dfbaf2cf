#pragma once
// What the client observed for one request. Times are steady-clock ns relative to the stage's t0
// (the instant the stage's schedule starts). Filled by exec/, folded by metrics/, written by report/.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "metrics/token_times.hpp"

namespace sb {

enum class Outcome : std::uint8_t {
  ok,             // >= 1 token event and a clean end of stream
  connect_error,  // refused, DNS, reset before any response byte, TLS handshake failure
  http_error,     // non-2xx status (http_status holds it)
  dropped,        // connection closed or reset mid-stream (after the status line)
  malformed,      // a chunk that is not valid JSON / not a valid SSE event
  timeout,        // --timeout-s or the per-read idle deadline expired
  no_tokens,      // 200 and a clean end, but no event with a non-empty `choices`
  cancelled,      // aborted by Ctrl-C before it finished
};

const char* to_string(Outcome o) noexcept;

// Where the output token count came from.
enum class TokenSource : std::uint8_t {
  none,               // request failed / nothing known
  usage_chunk,        // a separate usage chunk (stream_options.include_usage)
  usage_in_choice,    // usage attached to the last choices chunk
  usage_body,         // non-streaming response body
  tokenizer,          // local tokenizer over the generated text
  event_count,        // one per token event (no usage, no tokenizer)
};

const char* to_string(TokenSource s) noexcept;

// The finish_reason of the stream's last choice that had one (OpenAI: "stop", "length", ...).
enum class FinishReason : std::uint8_t {
  none,    // the server sent no finish_reason (or a request that failed)
  stop,    // natural end or a stop sequence
  length,  // cut at max_tokens or by the context window
  other,   // any other value ("content_filter", "abort", ...)
};

const char* to_string(FinishReason f) noexcept;
FinishReason finish_reason_from(std::string_view text) noexcept;

// The request's own timing as the server reported it (llama.cpp `timings`, docs/engines.md), in
// floats to keep the record small: < 1 µs of rounding below 10 s. Negative = not reported.
struct ServerTimings {
  float prefill_ms = -1;             // llama.cpp prompt_ms: slot start to the first token (no queueing)
  float decode_ms = -1;              // predicted_ms: first token to the last
  std::int32_t prefill_tokens = -1;  // prompt_n: prompt tokens computed (the cached ones are not)
  std::int32_t decode_tokens = -1;   // predicted_n

  bool has_prefill() const noexcept { return prefill_ms >= 0; }
};

// 200 bytes, the fields ordered so that nothing pads them (issue 13: memory per request; a stage
// keeps every record until it is summarised). RequestRecordSize in tests/exec/record_chunks_test.cpp holds it.
struct RequestRecord {
  std::uint32_t index = 0;      // position in the stage's request list (dataset order)
  Outcome outcome = Outcome::ok;
  TokenSource token_source = TokenSource::none;
  FinishReason finish_reason = FinishReason::none;
  // Whether any token event carried non-empty text: a "success" with none measured no token.
  bool saw_text = false;
  int http_status = 0;
  // Prompt tokens the server served from its prefix cache: llama.cpp cache_n, or
  // usage.prompt_tokens_details.cached_tokens (vLLM, SGLang, OpenAI). -1 = not reported.
  int cached_prompt_tokens = -1;
  std::string error;            // one line; empty when ok

  Nanos intended_ns = 0;        // scheduled send time (t0 + offset_i); 0 for closed-loop stages
  Nanos sent_ns = 0;            // concurrency slot acquired, request about to be written (vLLM's st)
  // Response times below (first byte, token events, done) are when the bytes reached this machine
  // (the kernel's receive time, --arrival-time kernel) or when the client read them (read; TLS).
  Nanos first_byte_ns = -1;     // first response byte arrived (-1: none)
  Nanos done_ns = 0;            // stream finished, failed or was cancelled
  // When a --max-concurrency slot freed up for it after its intended time; 0: a slot was free when it
  // was due. sent − max(intended, slot_free) is the client's own dispatch lag (metrics/client_use.hpp).
  Nanos slot_free_ns = 0;
  TokenTimes token_ns;          // arrival time of every token event (non-empty `choices`), in order; 4 bytes each

  int dataset_prompt_tokens = -1;  // what the dataset said
  int expected_output_tokens = 0;  // max_tokens requested
  int prompt_tokens = -1;          // usage.prompt_tokens when sent, else dataset count
  int output_tokens = 0;           // usage.completion_tokens, else per TokenSource
  ServerTimings server;

  bool aborted = false;
  // false: cancelled (Ctrl-C) before it was sent. Such records count in no metric, only in
  // num_prompts − sent, so completed + failed == sent holds.
  bool was_sent = true;
  // Times it was sent again on a fresh connection because a kept-alive one turned out closed
  // before the request could reach the server (0 or 1).
  int retries = 0;
  std::string generated_text;   // only kept when asked (--save-detailed, or re-tokenizing)

  bool ok() const noexcept { return outcome == Outcome::ok; }
  // A stop reached it before any byte of it left: cancelled and not sent, at `at_ns` (stage time).
  void mark_not_sent(Nanos at_ns) {
    outcome = Outcome::cancelled;
    error = "not sent: the run was stopped";
    aborted = true;
    was_sent = false;
    sent_ns = done_ns = at_ns;
  }
  // vLLM definitions (vllm/benchmarks/lib/endpoint_request_func.py): TTFT to the first token event, latency to the last one.
  Nanos ttft_ns() const noexcept { return token_ns.empty() ? 0 : token_ns.front() - sent_ns; }
  Nanos latency_ns() const noexcept { return token_ns.empty() ? 0 : token_ns.back() - sent_ns; }
  Nanos queue_ns() const noexcept { return sent_ns - intended_ns; }
};

}  // namespace sb
