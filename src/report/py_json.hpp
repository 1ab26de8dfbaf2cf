#pragma once
// JSON text exactly as Python's json.dump writes it with default arguments, so files we write are
// byte-identical to vLLM's: ", " and ": " separators, ASCII-only output (\uXXXX escapes, surrogate
// pairs above U+FFFF), floats as repr() (shortest round-trip, "10.0", "1e-05", "1e+16"), NaN and
// Infinity as bare words. With `indent` >= 0 it matches json.dump(indent=N) instead.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace sb::report {

struct PyJsonOptions {
  int indent = -1;          // < 0: one line (json.dump default)
  bool nan_as_null = false; // strict JSON for our own documents (allow_nan would raise in Python)
};

std::string py_json_dump(const nlohmann::ordered_json& value, const PyJsonOptions& opt = {});

// Python repr() of a float, written at `out` (needs 32 bytes); returns the end. No allocation.
char* py_float_repr(char* out, double value) noexcept;
std::string py_float_repr(double value);
// py_float_repr(ns / 1e6) for a count of nanoseconds, the same bytes from integer arithmetic (the
// per-request JSONL line writes one per token event). No allocation.
char* py_ms_repr(char* out, std::int64_t ns) noexcept;

// Appends `text` (UTF-8) as a JSON string literal with Python's ensure_ascii escaping; invalid
// UTF-8 bytes become U+FFFD.
void py_json_append_string(std::string& out, std::string_view text);

// Python's text of a percentile in key names: "99" for 99.0, "99.9" otherwise (vLLM's p_word).
std::string percentile_word(double p);

}  // namespace sb::report
