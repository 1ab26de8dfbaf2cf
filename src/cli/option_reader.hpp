#pragma once
// Typed access to raw flag values (from the command line or the config file) that collects every
// conversion error instead of stopping at the first, each naming where the value came from.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sb::cli {

struct RawValue {
  std::vector<std::string> values;  // as typed; flags hold "true"/"false"
  std::string where;                // "--num-prompts" or "servebench.toml:3 (num_prompts)"
};

using RawOptions = std::map<std::string, RawValue>;  // canonical flag name -> value

class OptionReader {
 public:
  OptionReader(const RawOptions& raw, std::vector<std::string>& errors) : raw_(raw), errors_(errors) {}

  bool has(const std::string& name) const { return raw_.count(name) > 0; }
  std::string where(const std::string& name) const;
  void error(const std::string& name, const std::string& what) const;

  std::optional<std::string> text(const std::string& name) const;  // last value
  // min_value = std::numeric_limits<int>::min(): any int (the range is the layer's to check).
  std::optional<int> integer(const std::string& name, int min_value) const;
  std::optional<double> number(const std::string& name, double min_value, bool allow_inf) const;
  bool flag(const std::string& name) const;
  // Every value, each also split on commas ("--concurrency 1,4 8" -> 1 4 8); empty items dropped.
  std::vector<std::string> items(const std::string& name) const;
  std::vector<int> integers(const std::string& name, int min_value) const;
  std::vector<double> numbers(const std::string& name, double min_value, bool allow_inf) const;

 private:
  const RawOptions& raw_;
  std::vector<std::string>& errors_;
};

// Strict text -> number conversions (whole string, finite unless "inf" allowed).
std::optional<long long> parse_integer(const std::string& s);
std::optional<double> parse_number(const std::string& s, bool allow_inf);

}  // namespace sb::cli
