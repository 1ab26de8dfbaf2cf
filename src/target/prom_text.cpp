#include "target/prom_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>

#include "core/error.hpp"

namespace sb {
namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

class LineParser {
 public:
  LineParser(std::string_view line, std::string_view source, std::size_t line_no)
      : s_(line), source_(source), line_no_(line_no) {}

  PromSample sample() {
    PromSample out;
    out.name = name("metric name");
    if (peek() == '{') labels(out);
    skip_spaces();
    out.value = number(token());
    skip_spaces();
    if (pos_ < s_.size()) {
      const std::string_view ts = token();
      std::int64_t ms = 0;
      if (std::from_chars(ts.data(), ts.data() + ts.size(), ms).ec != std::errc{}) fail("bad timestamp");
      out.timestamp_ms = ms;
    }
    return out;
  }

  [[noreturn]] void fail(std::string_view why) const {
    throw UserError(fmt::format("{}:{}: {} (column {})", source_, line_no_, why, pos_ + 1));
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_spaces() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  std::string name(std::string_view what) {
    const std::size_t start = pos_;
    if (!name_start(peek())) fail(fmt::format("expected {}", what));
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  std::string_view token() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ' ' && s_[pos_] != '\t') ++pos_;
    if (pos_ == start) fail("expected a value");
    return s_.substr(start, pos_ - start);
  }
  void labels(PromSample& out);
  std::string label_value();
  double number(std::string_view text) const;

  std::string_view s_;
  std::string_view source_;
  std::size_t line_no_;
  std::size_t pos_ = 0;
};

void LineParser::labels(PromSample& out) {
  ++pos_;  // '{'
  for (;;) {
    skip_spaces();
    if (peek() == '}') break;
    std::string key = name("label name");
    skip_spaces();
    if (peek() != '=') fail("expected '=' after label name");
    ++pos_;
    skip_spaces();
    out.labels.emplace_back(std::move(key), label_value());
    skip_spaces();
    if (peek() == ',') {
      ++pos_;
      continue;
    }
    if (peek() != '}') fail("expected ',' or '}' in labels");
  }
  ++pos_;  // '}'
}

std::string LineParser::label_value() {
  if (peek() != '"') fail("expected '\"' to open a label value");
  ++pos_;
  std::string value;
  while (pos_ < s_.size() && s_[pos_] != '"') {
    char c = s_[pos_++];
    if (c == '\\' && pos_ < s_.size()) {
      const char e = s_[pos_++];
      c = e == 'n' ? '\n' : e;  // \\ and \" stand for themselves
    }
    value += c;
  }
  if (pos_ >= s_.size()) fail("unterminated label value");
  ++pos_;
  return value;
}

double LineParser::number(std::string_view text) const {
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) fail(fmt::format("bad sample value '{}'", text));
  return v;
}

void parse_comment(std::string_view line, PromScrape& out) {
  // Only "# TYPE <family> <type>" carries data; HELP and free comments are skipped.
  constexpr std::string_view kType = "# TYPE ";
  if (line.substr(0, kType.size()) != kType) return;
  line.remove_prefix(kType.size());
  const auto space = line.find(' ');
  if (space == std::string_view::npos) return;
  out.types[std::string(line.substr(0, space))] = std::string(line.substr(space + 1));
}

}  // namespace

const std::string* PromSample::label(std::string_view key) const {
  for (const auto& [k, v] : labels) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool PromSample::matches(LabelFilter filter) const {
  return std::all_of(filter.begin(), filter.end(), [this](const auto& kv) {
    const std::string* v = label(kv.first);
    return v != nullptr && *v == kv.second;
  });
}

const PromSample* PromScrape::find(std::string_view name, LabelFilter filter) const {
  for (const PromSample& s : samples) {
    if (s.name == name && s.matches(filter)) return &s;
  }
  return nullptr;
}

std::optional<double> PromScrape::sum(std::string_view name, LabelFilter filter) const {
  std::optional<double> total;
  for (const PromSample& s : samples) {
    if (s.name == name && s.matches(filter)) total = total.value_or(0.0) + s.value;
  }
  return total;
}

std::optional<PromHistogramData> PromScrape::histogram(std::string_view family, LabelFilter filter) const {
  PromHistogramData h;
  const std::string bucket = fmt::format("{}_bucket", family);
  for (const PromSample& s : samples) {
    if (s.name != bucket || !s.matches(filter)) continue;
    const std::string* le = s.label("le");
    if (le == nullptr) continue;
    // A bucket whose bound is not a number cannot be placed: left out, as a Prometheus server
    // would refuse the scrape (fuzzing found std::stod throwing out of here on le="x").
    char* end = nullptr;
    const double bound = *le == "+Inf" ? std::numeric_limits<double>::infinity() : std::strtod(le->c_str(), &end);
    if (*le != "+Inf" && (le->empty() || end != le->c_str() + le->size())) continue;
    h.buckets.emplace_back(bound, s.value);
  }
  if (h.buckets.empty()) return std::nullopt;
  std::sort(h.buckets.begin(), h.buckets.end());
  h.count = sum(fmt::format("{}_count", family), filter).value_or(0.0);
  h.sum = sum(fmt::format("{}_sum", family), filter).value_or(0.0);
  return h;
}

PromScrape parse_prom_text(std::string_view text, std::string_view source) {
  PromScrape out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    if (line.front() == '#') {
      parse_comment(line, out);
      continue;
    }
    out.samples.push_back(LineParser(line, source, line_no).sample());
  }
  return out;
}

}  // namespace sb
