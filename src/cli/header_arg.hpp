#pragma once
// One --header argument: vLLM's KEY=VALUE, or curl's "Name: value" (what people paste from curl
// and docs: "Authorization: Bearer sk-..."). Its value is often a credential, so no error message
// shows it: only the name, with anything key-shaped masked (net/secrets.hpp).
#include <optional>
#include <string>
#include <utility>

namespace sb::cli {

struct HeaderArg {
  std::optional<std::pair<std::string, std::string>> header;  // name, value; nullopt: see `error`
  std::string error;                                           // words for the flag's problem line
};

HeaderArg parse_header_arg(const std::string& arg);

}  // namespace sb::cli
