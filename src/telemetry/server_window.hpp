#pragma once
// A stage's server-side numbers from the scrapes taken during it (sans-I/O). The first and last
// samples are the boundary scrapes taken just before the stage's first request and after its last
// completion: counters and histograms come from their difference (Prometheus' increase()), gauges
// from the periodic samples between them.
#include <span>
#include <vector>

#include "metrics/stage_summary.hpp"
#include "telemetry/server_sample.hpp"

namespace sb::telemetry {

// `samples` in time order, boundary scrapes first and last; fewer than two: only gauges.
ServerStageMetrics server_window(std::span<const ServerSample> samples, int failed_scrapes);

// end − start, bucket by bucket (bounds must agree; nullopt when they do not or a counter went back:
// the server restarted), then mean and the 50th/99th percentiles in milliseconds.
std::optional<HistogramWindow> histogram_window(const PromHistogramData& start, const PromHistogramData& end);

// Prometheus' histogram_quantile(): linear inside the bucket holding rank q·count; the lowest
// bucket starts at 0; a rank in the +Inf bucket answers the highest finite bound. Seconds.
double histogram_quantile(double q, const std::vector<std::pair<double, double>>& cumulative);

// A stage with waiting > 0 in at least this share of its samples, and in at least this many of
// them, queued on the server. One scrape that catches a request between its arrival and its
// admission is no queue: in a short low-load stage of five scrapes it alone made the share 0.2.
inline constexpr double kServerQueuedShare = 0.1;
inline constexpr int kServerQueuedMinScrapes = 2;
// An open-loop stage whose median client-side queue time (sent − intended) exceeds this held
// requests back in the client (its concurrency limit or its own dispatch).
inline constexpr double kClientQueuedMs = 1.0;

// Which side queued, when they disagree (metrics/telemetry_stage.hpp QueueSide). Closed-loop stages
// hold requests in the client by design, so only the server side can disagree there.
QueueSide queue_side(const StageSummary& client, const ServerStageMetrics& server);

}  // namespace sb::telemetry
