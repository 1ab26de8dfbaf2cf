#include "metrics/failure_cause.hpp"

#include <algorithm>
#include <cctype>

namespace sb {
namespace {

bool contains_nocase(std::string_view text, std::string_view word) noexcept {
  const auto it = std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

}  // namespace

FailureCause classify_failure(int http_status, std::string_view error) noexcept {
  if (contains_nocase(error, "out of memory") && (contains_nocase(error, "cuda") || contains_nocase(error, "hip")))
    return FailureCause::gpu_out_of_memory;
  if (contains_nocase(error, "maximum context length") || contains_nocase(error, "exceed_context_size"))
    return FailureCause::context_length_exceeded;
  if (http_status == 429) return FailureCause::rate_limited;
  // exec/exchange.cpp's words for a close it could not prove unprocessed, on a reused connection.
  if (http_status == 0 && contains_nocase(error, "on a reused keep-alive connection"))
    return FailureCause::keep_alive_closed;
  return FailureCause::unknown;
}

}  // namespace sb
