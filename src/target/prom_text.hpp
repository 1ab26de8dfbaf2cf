#pragma once
// Sans-I/O parser for the Prometheus text exposition format (0.0.4) as served by vLLM, SGLang and
// `servebench sim` on /metrics (docs/simulator.md §7). Today only tests read scrapes with it (the
// simulator's own /metrics, vLLM-layout samples in tests/data/metrics/); rates and percentiles over
// a load window come from the difference of two scrapes, as Prometheus' rate() and
// histogram_quantile() compute them.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sb {

using LabelFilter = std::initializer_list<std::pair<std::string_view, std::string_view>>;

struct PromSample {
  std::string name;                                         // as exposed, e.g. vllm:prompt_tokens_total
  std::vector<std::pair<std::string, std::string>> labels;  // in the order written
  double value = 0;
  std::optional<std::int64_t> timestamp_ms;

  const std::string* label(std::string_view key) const;
  bool matches(LabelFilter filter) const;
};

struct PromHistogramData {
  std::vector<std::pair<double, double>> buckets;  // (upper bound, cumulative count), +Inf last
  double count = 0;
  double sum = 0;
};

struct PromScrape {
  std::vector<PromSample> samples;
  std::map<std::string, std::string, std::less<>> types;  // family -> counter|gauge|histogram|…

  const PromSample* find(std::string_view name, LabelFilter filter = {}) const;
  // Sum over every sample of `name` matching the filter (e.g. all engines); nullopt if none.
  std::optional<double> sum(std::string_view name, LabelFilter filter = {}) const;
  // Assembles `family`_bucket/_count/_sum; nullopt when the family has no buckets.
  std::optional<PromHistogramData> histogram(std::string_view family, LabelFilter filter = {}) const;
};

// Throws sb::UserError "<source>:<line>: <why>" on malformed input.
PromScrape parse_prom_text(std::string_view text, std::string_view source = "metrics");

}  // namespace sb
