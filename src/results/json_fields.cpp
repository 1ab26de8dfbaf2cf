#include "results/json_fields.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "core/error.hpp"

namespace sb::results::detail {
namespace {

using nlohmann::json;

void require_number(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    throw UserError(where + ": missing or non-numeric key \"" + key + "\"");
}

// "p99.9_ttft_ms" = 12.5 -> stats(ttft).percentiles += (99.9, 12.5); unknown keys are ignored.
void read_latency_key(std::string_view key, double value, Stage& s) {
  key.remove_suffix(3);  // "_ms"
  const auto us = key.find('_');
  if (us == std::string_view::npos) return;
  const std::string_view stat = key.substr(0, us);
  const auto metric = metric_from_name(key.substr(us + 1));
  if (!metric) return;
  auto& slot = s.stats(*metric);
  MetricStats m = slot.value_or(MetricStats{});
  if (stat == "mean") {
    m.mean = value;
  } else if (stat == "median") {
    m.median = value;
  } else if (stat == "std") {
    m.std = value;
  } else {
    double p = 0;
    const std::string_view digits = stat.substr(std::min<std::size_t>(1, stat.size()));
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
    if (stat.size() < 2 || stat[0] != 'p' || ec != std::errc{} || ptr != digits.data() + digits.size()) return;
    m.percentiles.emplace_back(p, value);
  }
  slot = std::move(m);
}

bool secret_key(std::string k) {
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  return k.find("api_key") != std::string::npos || k.find("apikey") != std::string::npos ||
         k.find("secret") != std::string::npos || k.find("password") != std::string::npos ||
         k.find("authorization") != std::string::npos;
}

}  // namespace

// nlohmann reports a byte offset; users want a line.
json parse_json(std::string_view text, const std::string& where) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::size_t line = 1 + static_cast<std::size_t>(
        std::count(text.begin(), text.begin() + std::min(e.byte, text.size()), '\n'));
    throw UserError(where + ":" + std::to_string(line) + ": malformed JSON (" + e.what() + ")");
  }
}

double number_or(const json& j, const char* key, double fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (it->is_string()) return it->get<std::string>() == "inf" ? std::numeric_limits<double>::infinity() : fallback;
  return it->is_number() ? it->get<double>() : fallback;
}

std::string string_or(const json& j, const char* key, std::string fallback) {
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : fallback;
}

Stage read_vllm_keys(const json& j, const std::string& where) {
  for (const char* k : {"duration", "completed", "request_throughput", "output_throughput"})
    require_number(j, k, where);
  Stage s;
  s.request_rate = number_or(j, "request_rate", std::numeric_limits<double>::infinity());
  if (auto it = j.find("max_concurrency"); it != j.end() && it->is_number_integer())
    s.max_concurrency = it->get<int>();
  s.num_prompts = static_cast<int>(number_or(j, "num_prompts", 0));
  s.completed = static_cast<int>(number_or(j, "completed", 0));
  s.failed = static_cast<int>(number_or(j, "failed", 0));
  s.duration_s = number_or(j, "duration", 0);
  s.request_throughput = number_or(j, "request_throughput", 0);
  s.output_throughput = number_or(j, "output_throughput", 0);
  s.total_token_throughput = number_or(j, "total_token_throughput", -1);
  if (s.total_token_throughput < 0) {
    // Files older than ~v0.6 have no total_token_throughput: it is every token over the duration.
    const double tokens = number_or(j, "total_input_tokens", 0) + number_or(j, "total_output_tokens", 0);
    s.total_token_throughput = s.duration_s > 0 ? tokens / s.duration_s : 0;
  }
  // v0.8-era files spell the goodput key with a trailing colon (a typo upstream).
  for (const char* key : {"request_goodput", "request_goodput:"}) {
    if (auto it = j.find(key); it != j.end() && it->is_number()) s.request_goodput = it->get<double>();
  }
  for (const auto& [k, v] : j.items()) {
    if (v.is_number() && k.size() > 3 && k.ends_with("_ms")) read_latency_key(k, v.get<double>(), s);
  }
  return s;
}

void redact(json& j, bool inside_headers) {
  if (!j.is_object()) return;
  for (auto& [k, v] : j.items()) {
    if (inside_headers || secret_key(k)) {
      if (!v.is_object()) v = "<redacted>";
      else redact(v, true);
    } else {
      redact(v, k == "headers");
    }
  }
}

}  // namespace sb::results::detail
