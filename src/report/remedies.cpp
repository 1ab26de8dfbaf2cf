// Moves to report/ (see remedies.hpp).
#include "report/remedies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

namespace sb::report {

std::string format_failure_stop(LoadMode mode, double load_value, const StageSummary& s) {
  const std::string value = std::isinf(load_value) ? "inf" : fmt::format("{:g}", load_value);
  const std::string stage = mode == LoadMode::concurrency ? "c=" + value : "rate=" + value + " req/s";
  std::vector<std::pair<std::string, int>> by_count;
  for (const auto& [name, e] : s.errors) by_count.emplace_back(name, e.count);
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string categories;
  for (const auto& [name, n] : by_count) categories += fmt::format("{}{} {}", categories.empty() ? "" : ", ", name, n);
  return fmt::format("stage {}: {} of {} requests failed ({}): stopping", stage, s.failed, s.sent, categories);
}

namespace {

const char* cause_name(FailureCause c) {
  switch (c) {
    case FailureCause::gpu_out_of_memory: return "GPU out of memory";
    case FailureCause::context_length_exceeded: return "context length exceeded";
    case FailureCause::rate_limited: return "HTTP 429";
    case FailureCause::keep_alive_closed: return "keep-alive connection closed by the server";
    case FailureCause::unknown: break;
  }
  return "unknown";
}

}  // namespace

std::string remedy(FailureCause cause) {
  switch (cause) {
    case FailureCause::gpu_out_of_memory:
      return "the server ran out of GPU memory: lower --max-num-seqs, --gpu-memory-utilization or "
             "--max-num-batched-tokens on the server";
    case FailureCause::context_length_exceeded:
      return "prompt + max_tokens exceed the model's context: use shorter inputs (--random-input-len, "
             "--random-output-len) or start the server with a larger --max-model-len";
    case FailureCause::rate_limited:
      return "a rate limit (of a gateway or API front end), not the server's capacity: raise the limit or "
             "lower --request-rate / --concurrency";
    case FailureCause::keep_alive_closed:
      return "the server (or a proxy before it) closes keep-alive connections without a `Connection: close`, and "
             "closed these after it had received the request; servebench sends such a request again only when it can "
             "tell the server never read it. Raise the server's or the proxy's keep-alive timeout, or have it send "
             "`Connection: close` on the replies after which it closes";
    case FailureCause::unknown: break;
  }
  return "";
}

std::string format_remedies(const std::vector<RequestRecord>& records) {
  std::array<int, 5> counts{};
  for (const RequestRecord& r : records) {
    if (!r.was_sent || r.ok()) continue;
    ++counts[static_cast<std::size_t>(classify_failure(r.http_status, r.error))];
  }
  std::vector<std::pair<int, FailureCause>> known;
  for (std::size_t i = 1; i < counts.size(); ++i)
    if (counts[i] > 0) known.emplace_back(counts[i], static_cast<FailureCause>(i));
  std::stable_sort(known.begin(), known.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [n, cause] : known)
    out += fmt::format("Remedy ({} request{}, {}): {}\n", n, n == 1 ? "" : "s", cause_name(cause), remedy(cause));
  return out;
}

std::string format_resent(const StageSummary& s) {
  if (s.resent <= 0) return "";
  return fmt::format("Note: {} of {} request{} went again on a fresh connection: the server closed kept-alive "
                     "connections as they arrived, before reading them (llama.cpp closes after every streamed "
                     "reply; an idle timeout does it too). Each counts once; servebench gives such a server a new "
                     "connection per request once it sees the pattern, so TTFT includes a connect, as for any "
                     "client of it.\n",
                     s.resent, s.sent, s.sent == 1 ? "" : "s");
}

}  // namespace sb::report
