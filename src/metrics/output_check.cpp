#include "metrics/output_check.hpp"

#include <algorithm>

namespace sb {

OutputCheck check_outputs(const std::vector<RequestRecord>& records, double threshold) {
  OutputCheck c;
  for (const RequestRecord& r : records) {
    if (!r.was_sent || !r.ok() || r.token_ns.empty()) continue;
    // The same count summarize() adds to total_output_tokens.
    const int delivered = r.output_tokens > 0 ? r.output_tokens : static_cast<int>(r.token_ns.size());
    const int requested = std::max(r.expected_output_tokens, 0);
    c.requested_tokens += requested;
    c.delivered_tokens += delivered;
    c.short_requests += delivered < requested ? 1 : 0;
    ++c.finish_reasons[to_string(r.finish_reason)];
    c.without_text += r.saw_text ? 0 : 1;
  }
  if (c.requested_tokens > 0) {
    c.shortfall = std::max(0.0, 1.0 - static_cast<double>(c.delivered_tokens) / static_cast<double>(c.requested_tokens));
  }
  // The epsilon keeps a shortfall of exactly the threshold (97 of 100 at 3 %) on the quiet side.
  c.short_of_requested = c.shortfall > threshold + 1e-12;
  return c;
}

}  // namespace sb
