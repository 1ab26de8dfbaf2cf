#pragma once
// Polls the server's Prometheus /metrics on a thread of its own (its own connections, never the
// load client's event loops) every `period_s`, keeping what each scrape says (server_sample.hpp).
// The run takes one more scrape itself at each stage boundary (scrape_now), so a stage's counter
// and histogram deltas cover exactly its requests.
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "net/http_call.hpp"
#include "telemetry/periodic_poll.hpp"
#include "telemetry/server_sample.hpp"

namespace sb::telemetry {

struct ScrapeTarget {
  Endpoint endpoint;  // the metrics server (base_path + path is what is fetched)
  std::string path = "/metrics";
  HeaderList headers;  // the run's (Authorization included: a gateway may guard /metrics)
  double period_s = 0.25;
  double timeout_s = 2.0;
};

struct ScrapeWindow {
  std::vector<ServerSample> samples;  // time order
  int failed = 0;
};

class MetricsScraper {
 public:
  explicit MetricsScraper(ScrapeTarget target);  // starts polling; the destructor stops and joins
  MetricsScraper(const MetricsScraper&) = delete;
  MetricsScraper& operator=(const MetricsScraper&) = delete;

  // One scrape with histograms on the calling thread, kept with the others: its time, or nullopt
  // if it failed.
  std::optional<Nanos> scrape_now();
  // Samples and failures with from <= time <= to; older ones are dropped (a run keeps only its stage).
  ScrapeWindow take(Nanos from, Nanos to);
  // The most recent failure's message ("" if none), for a warning.
  std::string last_error() const;

 private:
  std::optional<Nanos> scrape(bool with_histograms);

  ScrapeTarget target_;
  mutable std::mutex mu_;
  std::vector<ServerSample> samples_;
  std::vector<Nanos> failures_;
  std::string last_error_;
  PeriodicPoll poll_;  // last: started once the members above exist, stopped before they go
};

}  // namespace sb::telemetry
