#pragma once
// Minimal JSON text helpers for the request builder (cold path: bodies are built before a run).
#include <string>
#include <string_view>

namespace sb {

// Appends `s` as a JSON string literal (quotes included). UTF-8 passes through unchanged;
// control characters, '"' and '\\' are escaped.
void append_json_string(std::string& out, std::string_view s);

}  // namespace sb
