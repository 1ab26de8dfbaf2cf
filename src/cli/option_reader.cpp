#include "cli/option_reader.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace sb::cli {

std::optional<long long> parse_integer(const std::string& s) {
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_number(const std::string& s, bool allow_inf) {
  if (allow_inf && (s == "inf" || s == "Inf" || s == "INF" || s == "infinity"))
    return std::numeric_limits<double>::infinity();
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

namespace {
// "is not a number" plus the bound when there is one worth naming.
std::string not_a_number(const std::string& text, double min_value, bool allow_inf) {
  const std::string bound = min_value > std::numeric_limits<double>::lowest() ? fmt::format(" >= {}", min_value) : "";
  return fmt::format("'{}' is not a number{}{}", text, bound, allow_inf ? " (or inf)" : "");
}

std::string not_an_integer(const std::string& text, int min_value) {
  const std::string bound = min_value > std::numeric_limits<int>::min() ? fmt::format(" >= {}", min_value) : "";
  return fmt::format("'{}' is not an integer{}", text, bound);
}
}  // namespace

std::string OptionReader::where(const std::string& name) const {
  auto it = raw_.find(name);
  return it == raw_.end() ? "--" + name : it->second.where;
}

void OptionReader::error(const std::string& name, const std::string& what) const {
  errors_.push_back(where(name) + ": " + what);
}

std::optional<std::string> OptionReader::text(const std::string& name) const {
  auto it = raw_.find(name);
  if (it == raw_.end() || it->second.values.empty()) return std::nullopt;
  return it->second.values.back();
}

std::optional<int> OptionReader::integer(const std::string& name, int min_value) const {
  auto s = text(name);
  if (!s) return std::nullopt;
  auto v = parse_integer(*s);
  if (!v || *v < min_value || *v > std::numeric_limits<int>::max() || *v < std::numeric_limits<int>::min()) {
    error(name, not_an_integer(*s, min_value));
    return std::nullopt;
  }
  return static_cast<int>(*v);
}

std::optional<double> OptionReader::number(const std::string& name, double min_value, bool allow_inf) const {
  auto s = text(name);
  if (!s) return std::nullopt;
  auto v = parse_number(*s, allow_inf);
  if (!v || *v < min_value) {
    error(name, not_a_number(*s, min_value, allow_inf));
    return std::nullopt;
  }
  return v;
}

bool OptionReader::flag(const std::string& name) const {
  auto s = text(name);
  if (!s) return false;
  if (*s == "true" || *s == "1") return true;
  if (*s == "false" || *s == "0") return false;
  error(name, fmt::format("'{}' is not true or false", *s));
  return false;
}

std::vector<std::string> OptionReader::items(const std::string& name) const {
  std::vector<std::string> out;
  auto it = raw_.find(name);
  if (it == raw_.end()) return out;
  for (const std::string& v : it->second.values) {
    std::size_t start = 0;
    while (start <= v.size()) {
      std::size_t comma = v.find(',', start);
      if (comma == std::string::npos) comma = v.size();
      std::string item = v.substr(start, comma - start);
      while (!item.empty() && item.back() == ' ') item.pop_back();
      while (!item.empty() && item.front() == ' ') item.erase(0, 1);
      if (!item.empty()) out.push_back(std::move(item));
      start = comma + 1;
    }
  }
  return out;
}

std::vector<int> OptionReader::integers(const std::string& name, int min_value) const {
  std::vector<int> out;
  for (const std::string& s : items(name)) {
    auto v = parse_integer(s);
    if (!v || *v < min_value || *v > std::numeric_limits<int>::max() || *v < std::numeric_limits<int>::min()) {
      error(name, not_an_integer(s, min_value));
      continue;
    }
    out.push_back(static_cast<int>(*v));
  }
  return out;
}

std::vector<double> OptionReader::numbers(const std::string& name, double min_value, bool allow_inf) const {
  std::vector<double> out;
  for (const std::string& s : items(name)) {
    auto v = parse_number(s, allow_inf);
    if (!v || *v < min_value) {
      error(name, not_a_number(s, min_value, allow_inf));
      continue;
    }
    out.push_back(*v);
  }
  return out;
}

}  // namespace sb::cli
