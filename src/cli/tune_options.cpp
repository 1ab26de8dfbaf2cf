#include "cli/tune_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli/option_reader.hpp"
#include "core/error.hpp"
#include "orchestrate/command_template.hpp"
#include "orchestrate/grid.hpp"

namespace sb::cli {

namespace {

namespace fs = std::filesystem;
namespace orc = orchestrate;

struct TuneFlag {
  std::string_view name;
  bool takes_value;
  std::string_view help;
};

constexpr std::array kTuneFlags{
    TuneFlag{"server-cmd", true,
             "the server command, with {port}, {dir}, {name} and {KEY} of each grid key (required)"},
    TuneFlag{"grid", true, "KEY=V1,V2,...: one axis of the grid (repeatable; the product, in flag order)"},
    TuneFlag{"configs", true, "TOML file of named configurations, one [table] each, the first the baseline"},
    TuneFlag{"profile-wrapper", true,
             "command put in front of the server's, e.g. 'rocprof --stats -o {dir}/trace.csv'"},
    TuneFlag{"server-profile", false, "POST /start_profile before and /stop_profile after each staircase"},
    TuneFlag{"output-dir", true, "folder of the results, one subfolder per configuration (default servebench-tune)"},
    TuneFlag{"port-base", true, "{port} = this + the configuration's index (default: a free port each)"},
    TuneFlag{"ready-timeout-s", true, "seconds to wait for /health and /v1/models (default 600)"},
    TuneFlag{"stop-timeout-s", true, "seconds after SIGINT, then after SIGTERM, before the next signal (default 30)"},
    TuneFlag{"log-lines", true, "last lines of the server's log shown when it does not start (default 20)"},
    TuneFlag{"slo", true, "SLOs for the best configuration, e.g. ttft_p99_ms=500,tpot_p50_ms=50"},
    TuneFlag{"gpus-per-config", true, "GPUs one server uses, for tokens/s per GPU (default 1)"},
    TuneFlag{"help", false, "this help"},
};

// Run flags whose value tune sets per configuration.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kRefused{{
    {"base-url", "tune starts the server: its URL is http://HOST:{port} (--host, --port-base)"},
    {"port", "tune gives each server its port ({port}; --port-base for fixed ones)"},
    {"output-json", "tune writes DIR/<name>/sweep.json (--output-dir)"},
    {"requests-jsonl", "tune writes DIR/<name>/sweep.requests.jsonl (--output-dir)"},
    {"csv", "tune writes DIR/<name>/sweep.csv (--output-dir)"},
    {"result-dir", "tune writes --save-result files into DIR/<name>/ (--output-dir)"},
}};

std::string canonical(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

const TuneFlag* find_tune_flag(std::string_view name) {
  for (const TuneFlag& f : kTuneFlags)
    if (f.name == name) return &f;
  return nullptr;
}

struct SplitArgs {
  std::map<std::string, std::vector<std::string>> tune;  // canonical name -> values ("true" for flags)
  std::vector<std::string> run;
};

// Tune's flags out of `args` (--flag VALUE or --flag=VALUE, either spelling); the rest, in order, is run's.
SplitArgs split_tune_args(const std::vector<std::string>& args, std::vector<std::string>& errors) {
  SplitArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::size_t eq = a.find('=');
    const std::string name =
        a.starts_with("--") ? canonical(a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)) : "";
    const TuneFlag* f = a == "-h" ? find_tune_flag("help") : find_tune_flag(name);
    if (f == nullptr) {
      for (const auto& [refused, why] : kRefused)
        if (name == refused) errors.push_back(fmt::format("--{}: tune sets it: {}", refused, why));
      out.run.push_back(a);
      continue;
    }
    std::string value = "true";
    if (f->takes_value && eq != std::string::npos)
      value = a.substr(eq + 1);
    else if (f->takes_value && i + 1 < args.size())
      value = args[++i];
    else if (f->takes_value)
      errors.push_back(fmt::format("--{}: needs a value", f->name));
    out.tune[std::string(f->name)].push_back(value);
  }
  return out;
}

void print_tune_help() {
  std::printf(
      "usage: servebench tune --server-cmd CMD [--grid KEY=V1,V2 ... | --configs FILE] [options] [run flags]\n\n"
      "Starts the server command once per configuration, waits until it serves, runs the staircase of\n"
      "the run flags against it, stops it, and compares the configurations (docs/tune.md).\n\ntune options:\n");
  for (const TuneFlag& f : kTuneFlags)
    std::printf("  --%-18s %.*s\n", std::string(f.name).c_str(), static_cast<int>(f.help.size()), f.help.data());
  std::printf(
      "\nEvery `servebench run` flag applies to each staircase (servebench run --help), except\n"
      "--base-url, --port, --output-json, --requests-jsonl, --csv and --result-dir, which tune sets.\n");
}

std::string last_of(const SplitArgs& s, const std::string& name, const std::string& fallback = "") {
  const auto it = s.tune.find(name);
  return it == s.tune.end() ? fallback : it->second.back();
}

std::optional<double> number_flag(const SplitArgs& s, const std::string& name, double min_exclusive,
                                  std::vector<std::string>& errors) {
  if (!s.tune.count(name)) return std::nullopt;
  const std::optional<double> v = parse_number(last_of(s, name), false);
  if (!v || *v <= min_exclusive) {
    errors.push_back(
        fmt::format("--{} {}: expected a number above {:g}", name, one_line(last_of(s, name)), min_exclusive));
    return std::nullopt;
  }
  return v;
}

std::vector<orc::Configuration> read_configurations(const SplitArgs& s, std::vector<std::string>& errors) {
  if (s.tune.count("configs") && s.tune.count("grid")) {
    errors.push_back("--configs and --grid: give one of them (the file names its configurations, the grid makes them)");
    return {};
  }
  if (s.tune.count("configs")) {
    const std::string path = last_of(s, "configs");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      errors.push_back(fmt::format("--configs {}: cannot read the file", path));
      return {};
    }
    std::ostringstream text;
    text << in.rdbuf();
    try {
      return orc::parse_configurations_toml(text.str(), path);
    } catch (const UserError& e) {
      errors.push_back(fmt::format("--configs: {}", e.what()));
      return {};
    }
  }
  std::vector<orc::GridAxis> axes;
  const auto it = s.tune.find("grid");
  for (const std::string& arg : it == s.tune.end() ? std::vector<std::string>{} : it->second) {
    std::string error;
    orc::GridAxis axis = orc::parse_grid_arg(arg, error);
    if (error.empty() &&
        std::any_of(axes.begin(), axes.end(), [&](const orc::GridAxis& a) { return a.key == axis.key; }))
      error = fmt::format("the key {} has another --grid already", axis.key);
    if (!error.empty())
      errors.push_back("--grid " + one_line(arg) + ": " + error);
    else
      axes.push_back(std::move(axis));
  }
  return orc::expand_grid(axes);
}

// Every placeholder of the commands is known, every key is used, the folders differ.
void check_placeholders(const orc::TuneParams& p, const std::string& keys_flag, std::vector<std::string>& errors) {
  std::set<std::string> keys{"port", "dir", "name"}, used;
  for (const orc::Configuration& c : p.configs)
    for (const auto& [k, v] : c.params) keys.insert(k);
  for (const auto& [flag, text] :
       {std::pair<std::string, std::string>{"--server-cmd", p.server_cmd}, {"--profile-wrapper", p.profile_wrapper}}) {
    const orc::SplitCommand split = orc::split_command(text);
    if (!split.error.empty()) errors.push_back(fmt::format("{}: {}", flag, split.error));
    for (const std::string& n : orc::scan_placeholders(text)) {
      used.insert(n);
      if (!keys.count(n))
        errors.push_back(fmt::format("{}: {{{}}} is neither a grid key nor port, dir or name", flag, n));
    }
  }
  for (const std::string& k : keys)
    if (!used.count(k) && k != "dir" && k != "name" && (k != "port" || !p.port_base))
      errors.push_back(k == "port"
                           ? "--server-cmd: no {port}: tune cannot know where the server listens (or give --port-base)"
                           : fmt::format("{} {}: {{{}}} appears in neither --server-cmd nor --profile-wrapper: its "
                                         "values would all run the same command",
                                         keys_flag, k, k));
  std::set<std::string> dirs;
  for (const orc::Configuration& c : p.configs)
    if (!dirs.insert(orc::config_dir_name(c.name)).second)
      errors.push_back(fmt::format("configuration '{}': its folder {} is another's too", one_line(c.name),
                                   orc::config_dir_name(c.name)));
}

void read_tune_flags(const SplitArgs& s, TuneOptions& t, std::vector<std::string>& errors) {
  orc::TuneParams& p = t.params;
  p.server_cmd = last_of(s, "server-cmd");
  if (p.server_cmd.empty())
    errors.push_back("--server-cmd: required (the command that starts the server, with {port})");
  p.profile_wrapper = last_of(s, "profile-wrapper");
  p.server_profile = s.tune.count("server-profile") > 0;
  p.output_dir = fs::absolute(last_of(s, "output-dir", "servebench-tune"));
  p.configs = read_configurations(s, errors);
  if (const auto v = number_flag(s, "port-base", 0, errors)) {
    if (*v != static_cast<int>(*v) || *v + static_cast<double>(p.configs.size()) > 65536)
      errors.push_back(
          fmt::format("--port-base {:g}: the ports of all {} configurations must be whole and within 1..65535", *v,
                      p.configs.size()));
    else
      p.port_base = static_cast<int>(*v);
  }
  p.ready_timeout_s = number_flag(s, "ready-timeout-s", 0, errors).value_or(p.ready_timeout_s);
  const double stop_s = number_flag(s, "stop-timeout-s", 0, errors).value_or(30);
  p.stop = orc::StopTimeouts{stop_s, stop_s, 5};
  p.log_lines = static_cast<std::size_t>(number_flag(s, "log-lines", 0, errors).value_or(20));
  t.gpus_per_config = static_cast<int>(number_flag(s, "gpus-per-config", 0, errors).value_or(1));
  if (s.tune.count("slo")) {
    try {
      for (const std::string& text : s.tune.at("slo"))
        for (analyze::Slo& slo : analyze::parse_slos(text, "--slo")) t.slos.push_back(std::move(slo));
    } catch (const UserError& e) {
      errors.push_back(e.what());
    }
  }
  if (!p.server_cmd.empty() && !p.configs.empty())
    check_placeholders(p, s.tune.count("configs") ? "--configs key" : "--grid", errors);
}

}  // namespace

std::optional<TuneOptions> parse_tune_options(const ParseInput& in) {
  std::vector<std::string> errors;
  const SplitArgs split = split_tune_args(in.args, errors);
  if (split.tune.count("help")) {
    print_tune_help();
    return std::nullopt;
  }
  TuneOptions t;
  read_tune_flags(split, t, errors);
  ParseInput run_in = in;
  run_in.args = split.run;
  try {
    if (std::optional<RunConfig> run = parse_run_options(run_in)) t.params.run = std::move(*run);
  } catch (const UserError& e) {
    // run's message: one problem, or "N problems with the options:" and one indented line each.
    std::istringstream lines(e.what());
    for (std::string line; std::getline(lines, line);)
      if (!line.ends_with("problems with the options:"))
        errors.push_back(line.starts_with("  ") ? line.substr(2) : line);
  }
  if (!errors.empty()) {
    std::string msg = errors.size() == 1 ? errors.front() : fmt::format("{} problems with the options:", errors.size());
    if (errors.size() > 1)
      for (const std::string& e : errors) msg += "\n  " + e;
    throw UserError(msg, ExitCode::config_error);
  }
  return t;
}

}  // namespace sb::cli
