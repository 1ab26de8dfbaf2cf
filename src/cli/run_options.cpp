// Command line + config file + environment -> RunConfig. The run command's only use of CLI11.
#include "cli/run_options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "cli/config_file.hpp"
#include "cli/run_config_build.hpp"
#include "cli/run_flags.hpp"
#include "core/error.hpp"
#include "pipeline/output_paths.hpp"

namespace sb::cli {

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

namespace {

// "--num-prompts,--num_prompts": vLLM's parser treats both spellings alike.
std::string cli_names(std::string_view name) {
  std::string dashed = "--" + std::string(name);
  std::string under = dashed;
  for (std::size_t i = 2; i < under.size(); ++i)
    if (under[i] == '-') under[i] = '_';
  return under == dashed ? dashed : dashed + "," + under;
}

struct CliCapture {
  std::map<std::string, std::vector<std::string>> values;
  std::map<std::string, CLI::Option*> options;
};

void define_options(CLI::App& app, CliCapture& cap) {
  for (const FlagSpec& f : run_flags()) {
    const std::string name(f.name);
    CLI::Option* opt = nullptr;
    if (f.kind == FlagKind::flag) {
      opt = app.add_flag(cli_names(f.name))->description(std::string(f.help));
    } else {
      opt = app.add_option(cli_names(f.name), cap.values[name], std::string(f.help));
      if (f.kind == FlagKind::value) opt->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
      else if (f.kind == FlagKind::optional_value)
        opt->expected(0, 1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
      else opt->expected(1, -1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
    cap.options[name] = opt;
  }
}

// Parses argv with CLI11; unknown arguments become errors instead of stopping the parse.
// Returns false when --help was asked for.
bool parse_command_line(const std::vector<std::string>& args, RawOptions& raw,
                        std::vector<std::string>& errors) {
  CLI::App app{"servebench run: load test an OpenAI-compatible server", "servebench run"};
  app.allow_extras();
  app.get_formatter()->column_width(30);
  CliCapture cap;
  define_options(app, cap);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::ParseError& e) {
    errors.push_back(e.what());
    return true;
  }
  for (const std::string& extra : app.remaining())
    errors.push_back(fmt::format("'{}': unknown flag or stray value (see servebench run --help)", extra));
  for (const auto& [name, opt] : cap.options) {
    if (opt->count() == 0) continue;
    const std::string where = "--" + name;
    if (find_run_flag(name)->kind == FlagKind::flag) raw[name] = RawValue{{"true"}, where};
    else raw[name] = RawValue{cap.values[name], where};
  }
  return true;
}

// The file's entries that the command line did not set. api_key is the one key that is not a flag.
// An unknown key is an error at the top level (servebench's own file: a typo) and a warning in a
// profile table, which holds other tools' keys too.
void merge_config_file(const ConfigFile& file, RawOptions& raw, std::vector<std::string>& errors,
                       std::vector<std::string>& warnings) {
  for (const ConfigEntry& e : file.entries) {
    if (e.key == "config" || e.key == "profile") {
      errors.push_back(e.where + (e.key == "config" ? ": a config file cannot name another config file"
                                                    : ": the profile is chosen on the command line (--profile NAME)"));
      continue;
    }
    if (e.key != "api-key" && !find_run_flag(e.key)) {
      if (e.in_profile) warnings.push_back(fmt::format("{}: unknown key in profile [{}], ignored", e.where, *file.profile));
      else errors.push_back(e.where + ": unknown key (use base_url, api_key, model, timeout_s or a run flag name)");
      continue;
    }
    if (!raw.count(e.key)) raw[e.key] = RawValue{e.values, e.where};
  }
}

// The config file (--config, else ./servebench.toml) and its profile (--profile) into `raw`.
std::optional<std::string> read_config_file(const ParseInput& in, RawOptions& raw, std::vector<std::string>& errors) {
  std::optional<std::string> config_path, profile;
  if (auto it = raw.find("config"); it != raw.end()) config_path = it->second.values.back();
  if (auto it = raw.find("profile"); it != raw.end()) profile = it->second.values.back();
  config_path = find_config_file(config_path, in.cwd);
  if (!config_path) {
    if (profile)
      errors.push_back(fmt::format("--profile {}: no config file to read it from (give --config FILE, or put "
                                   "servebench.toml in this folder)", *profile));
    return std::nullopt;
  }
  try {
    const ConfigFile file = load_config_file(*config_path, profile);
    std::vector<std::string> warnings = file.warnings;
    merge_config_file(file, raw, errors, warnings);
    for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
  } catch (const UserError& e) {
    errors.push_back(e.what());
  }
  return config_path;
}

// The flag that set `field`: one the user gave if several set it (--output-len or
// --random-output-len), else the first of the table; "" when no flag sets it.
std::string flag_of(const std::string& field, const RawOptions& raw) {
  const std::vector<const FlagSpec*> flags = flags_for_field(field);
  for (const FlagSpec* f : flags)
    if (raw.count(std::string(f->name))) return std::string(f->name);
  return flags.empty() ? "" : std::string(flags.front()->name);
}

// validate()'s problems as lines naming where each value came from ("--num-prompts",
// "servebench.toml:3 (num_prompts)"); the fields a message names become flags too. A flag that
// sets two fields (--random-range-ratio) reports one problem once.
void add_problems(const Problems& problems, const RawOptions& raw, std::vector<std::string>& errors) {
  const OptionReader reader(raw, errors);
  const auto name_of = [&](const std::string& field) {
    const std::string flag = flag_of(field, raw);
    return flag.empty() ? field : "--" + flag;
  };
  for (const Problem& p : problems) {
    const std::string flag = flag_of(p.field, raw);
    const std::string line = (flag.empty() ? p.field : reader.where(flag)) + ": " + render_problem(p.message, name_of);
    if (std::find(errors.begin(), errors.end(), line) == errors.end()) errors.push_back(line);
  }
}

}  // namespace

std::optional<RunConfig> parse_run_options(const ParseInput& in) {
  std::vector<std::string> errors;
  RawOptions raw;
  if (!parse_command_line(in.args, raw, errors)) return std::nullopt;
  const std::optional<std::string> config_path = read_config_file(in, raw, errors);
  RunConfig cfg = build_run_config(OptionReader(raw, errors), in.env);
  cfg.config_path = config_path;
  add_problems(pipeline::validate(cfg), raw, errors);
  add_problems(pipeline::check_output_paths(cfg), raw, errors);  // unwritable outputs fail before any request
  if (!errors.empty()) {
    std::string msg = errors.size() == 1 ? errors.front()
                                         : fmt::format("{} problems with the options:", errors.size());
    if (errors.size() > 1)
      for (const std::string& e : errors) msg += "\n  " + e;
    throw UserError(msg, ExitCode::config_error);
  }
  return cfg;
}

}  // namespace sb::cli
