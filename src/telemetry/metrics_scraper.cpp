#include "telemetry/metrics_scraper.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

namespace sb::telemetry {

MetricsScraper::MetricsScraper(ScrapeTarget target)
    : target_(std::move(target)), poll_(target_.period_s, [this] { scrape(false); }) {}

std::optional<Nanos> MetricsScraper::scrape(bool with_histograms) {
  std::string error;
  try {
    // Both arms string_view: with "/" : std::string the ?: makes a temporary std::string, and the
    // view would outlive it (ASan's stack-use-after-scope in .ci/run's asan pass).
    const std::string_view path = target_.endpoint.base_path.empty() && target_.path.empty()
                                      ? std::string_view("/")
                                      : std::string_view(target_.path);
    const HttpReply reply = http_call(target_.endpoint, "GET", path, target_.headers, "", target_.timeout_s);
    if (reply.status == 200) {
      const PromScrape parsed = parse_prom_text(reply.body, target_.endpoint.url(target_.path));
      const Nanos at = now_ns();
      ServerSample s = read_server_sample(parsed, at, with_histograms);
      const std::lock_guard lock(mu_);
      samples_.push_back(std::move(s));
      return at;
    }
    error = fmt::format("GET {}: HTTP {} {}", target_.endpoint.url(target_.path), reply.status, reply.reason);
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::lock_guard lock(mu_);
  failures_.push_back(now_ns());
  last_error_ = std::move(error);
  return std::nullopt;
}

std::optional<Nanos> MetricsScraper::scrape_now() { return scrape(true); }

ScrapeWindow MetricsScraper::take(Nanos from, Nanos to) {
  ScrapeWindow w;
  const std::lock_guard lock(mu_);
  for (const ServerSample& s : samples_)
    if (s.at_ns >= from && s.at_ns <= to) w.samples.push_back(s);
  for (const Nanos f : failures_) w.failed += f >= from && f <= to ? 1 : 0;
  // Scrapes arrive from two threads: order by time (the stable sort keeps equal stamps in order).
  std::stable_sort(w.samples.begin(), w.samples.end(),
                   [](const ServerSample& a, const ServerSample& b) { return a.at_ns < b.at_ns; });
  std::erase_if(samples_, [to](const ServerSample& s) { return s.at_ns < to; });
  std::erase_if(failures_, [to](Nanos f) { return f < to; });
  return w;
}

std::string MetricsScraper::last_error() const {
  const std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace sb::telemetry
