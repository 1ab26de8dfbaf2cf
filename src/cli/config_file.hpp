#pragma once
// The optional TOML config file of `servebench run` (--config FILE, else ./servebench.toml).
// Keys: base_url, api_key, model, timeout_s, and any run flag name (dashes or underscores).
// Values become flag-style strings so the file and the command line share one validator.
#include <optional>
#include <string>
#include <vector>

namespace sb::cli {

struct ConfigEntry {
  std::string key;                  // canonical flag name: dashes, no leading "--" (e.g. "num-prompts")
  std::vector<std::string> values;  // scalar -> one value; array -> one per element; bool -> "true"/"false"
  std::string where;                // "FILE:LINE (key)" for error messages
};

struct ConfigFile {
  std::string path;
  std::vector<ConfigEntry> entries;  // sorted by key (toml++ tables are ordered maps)
  // One line each, for stderr: a file holding a credential (api_key, an Authorization-like
  // header) that group or others can read.
  std::vector<std::string> warnings;
};

// Throws sb::UserError (config_error) naming FILE:LINE for syntax errors and unsupported values
// (tables, nested arrays). A UTF-8 byte order mark at the start is accepted.
ConfigFile load_config_file(const std::string& path);

// "num_prompts" / "--num-prompts" -> "num-prompts".
std::string canonical_flag_name(std::string name);

// The file to read: `explicit_path` if set, else `dir`/servebench.toml when it exists.
std::optional<std::string> find_config_file(const std::optional<std::string>& explicit_path,
                                            const std::string& dir);

}  // namespace sb::cli
