#pragma once
// Known causes of failed requests, recognised from the HTTP status and the server's message, so a
// summary can add the one remedy that fits (the words: pipeline/remedies.cpp, later report/).
#include <cstdint>
#include <string_view>

namespace sb {

enum class FailureCause : std::uint8_t {
  unknown,
  gpu_out_of_memory,        // CUDA / HIP "out of memory" in the server's message
  context_length_exceeded,  // vLLM "maximum context length", llama.cpp "exceed_context_size"
  rate_limited,             // HTTP 429: a gateway's rate limit, not the server's capacity
  keep_alive_closed,        // the server closed a reused keep-alive connection as the request came
};

FailureCause classify_failure(int http_status, std::string_view error) noexcept;

}  // namespace sb
