#include "orchestrate/tune_loop.hpp"

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "net/http_call.hpp"
#include "orchestrate/command_template.hpp"
#include "orchestrate/done_record.hpp"
#include "orchestrate/free_port.hpp"
#include "orchestrate/log_diagnosis.hpp"
#include "orchestrate/readiness.hpp"
#include "orchestrate/trace_collect.hpp"
#include "pipeline/run_pipeline.hpp"
#include "report/atomic_file.hpp"
#include "report/server_text.hpp"

namespace sb::orchestrate {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kLogTailBytes = 64 * 1024;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string log_tail_text(const fs::path& log) {
  std::ifstream in(log, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (size <= 0) return {};
  const std::streamoff from =
      size > static_cast<std::streamoff>(kLogTailBytes) ? size - static_cast<std::streamoff>(kLogTailBytes) : 0;
  in.seekg(from);
  std::string s(static_cast<std::size_t>(size - from), '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

report::ConfigFailureFacts facts_of(ConfigOutcome o) {
  report::ConfigFailureFacts f;
  f.outcome = o;
  return f;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One configuration while it is being run: where it lives and what is known so far.
struct ConfigSlot {
  const Configuration& config;
  std::size_t index;
  fs::path dir;
  Endpoint endpoint = {};
  ConfigRecord rec = {};
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
};

TunedConfig tuned_of(const ConfigRecord& r, const fs::path& dir) {
  TunedConfig t{r.name, r.params, {}, {}, r.failure};
  if (!r.sweep_json.empty() && r.outcome == ConfigOutcome::ran) t.sweep_json = dir / r.sweep_json;
  for (const std::string& k : r.kernel_traces) t.kernel_traces.push_back(dir / k);
  return t;
}

// done.json of an earlier run whose sweep is still there; nullopt: run the configuration.
std::optional<ConfigRecord> finished_before(const fs::path& dir) {
  const fs::path done = dir / kDoneFile;
  if (!fs::is_regular_file(done)) return std::nullopt;
  std::optional<ConfigRecord> r = parse_record(read_text(done));
  if (!r || r->outcome != ConfigOutcome::ran || r->sweep_json.empty() || !fs::is_regular_file(dir / r->sweep_json))
    return std::nullopt;
  return r;
}

pipeline::RunConfig run_config_for(const TuneParams& p, const ConfigSlot& s) {
  pipeline::RunConfig c = p.run;
  const Endpoint user_target = c.client.endpoint;
  c.client.endpoint = s.endpoint;
  c.base_url = c.client.endpoint.url("");
  // The default scrape URL follows the server; one the user gave (another host's exporter) stays.
  if (c.scrape_metrics && c.scrape_metrics->endpoint.host == user_target.host &&
      c.scrape_metrics->endpoint.port == user_target.port)
    c.scrape_metrics->endpoint = s.endpoint;
  c.output_json = (s.dir / kSweepJson).string();
  c.requests_jsonl = (s.dir / "sweep.requests.jsonl").string();
  c.csv = (s.dir / "sweep.csv").string();
  if (c.save_result) c.result_dir = s.dir.string();
  if (!c.label) c.label = s.config.name;
  c.metadata.emplace_back("tune_config", s.config.name);
  return c;
}

void profile_call(const ConfigSlot& s, std::string_view path, std::FILE* err) {
  int status = 0;
  try {
    status = http_call(s.endpoint, "POST", s.endpoint.base_path + std::string(path), {}, "", 30).status;
  } catch (const UserError&) {
    status = 0;
  }
  if (status != 200) report::print_config_note(err, s.config.name, report::profile_call_note(path, status));
}

void record_failure(ConfigSlot& s, report::ConfigFailureFacts f, const TuneParams& p, std::FILE* err) {
  const fs::path log = s.dir / kServerLog;
  const std::vector<std::string> tail = last_lines(log_tail_text(log), p.log_lines);
  if (f.outcome == ConfigOutcome::exited_at_start || f.outcome == ConfigOutcome::not_ready)
    f.cause = diagnose_log(tail);
  f.last_log_line = tail.empty() ? "" : tail.back();
  s.rec.outcome = f.outcome;
  s.rec.cause = f.cause;
  s.rec.failure = report::config_failure_line(f);
  report::print_config_failure(
      err, s.config.name, f, f.outcome == ConfigOutcome::interrupted ? std::vector<std::string>{} : tail, log.string());
}

// Ready -> (profile) staircase (profile) -> the record's run fields (outcome, sweep, exit code).
void run_staircase(const TuneParams& p, ConfigSlot& s, const TuneIo& io, std::stop_token stop) {
  if (p.server_profile) profile_call(s, "/start_profile", io.err);
  pipeline::RunResult result;
  try {
    result = pipeline::run(run_config_for(p, s), pipeline::RunIo{io.out, io.err, true}, stop);
  } catch (const UserError& e) {
    if (p.server_profile) profile_call(s, "/stop_profile", io.err);
    report::ConfigFailureFacts f = facts_of(ConfigOutcome::run_failed);
    f.detail = e.what();
    s.rec.run_exit_code = to_int(e.code());
    record_failure(s, f, p, io.err);
    return;
  }
  if (p.server_profile) profile_call(s, "/stop_profile", io.err);
  s.rec.run_exit_code = to_int(result.code);
  if (result.code == ExitCode::aborted) {
    record_failure(s, facts_of(ConfigOutcome::interrupted), p, io.err);
    return;
  }
  s.rec.outcome = ConfigOutcome::ran;
  s.rec.sweep_json = kSweepJson;
}

// Started -> ready (or why not) -> staircase; the server is still running on return.
void serve_and_measure(const TuneParams& p, ConfigSlot& s, ServerProcess& proc, const TuneIo& io,
                       std::stop_token stop) {
  const ReadyParams rp{s.endpoint, p.ready_timeout_s};
  const ReadyResult ready = wait_ready(
      rp, [&] { return proc.exited(); }, stop);
  s.rec.ready_s = ready.waited_s;
  if (ready.state == ReadyState::ready) {
    report::print_config_ready(io.err, s.config.name, ready.waited_s, s.rec.port);
    run_staircase(p, s, io, stop);
    return;
  }
  report::ConfigFailureFacts f = facts_of(ready.state == ReadyState::stopped  ? ConfigOutcome::interrupted
                                          : ready.state == ReadyState::exited ? ConfigOutcome::exited_at_start
                                                                              : ConfigOutcome::not_ready);
  if (const auto& st = proc.exit_status()) {
    f.exit_code = st->code;
    f.signal = st->signal;
  }
  f.waited_s = ready.waited_s;
  f.last_http_status = ready.last_http_status;
  record_failure(s, f, p, io.err);
}

// Tune's own files in a configuration's folder, which are not profiler output.
std::set<std::string> own_files() {
  return {kServerLog, kServerPid, kSweepJson, "sweep.requests.jsonl", "sweep.csv", kDoneFile, kFailureFile};
}

void finish_record(const TuneParams& p, ConfigSlot& s, std::FILE* err) {
  const bool asked = p.server_profile || !p.profile_wrapper.empty();
  if (s.rec.outcome == ConfigOutcome::ran) {
    const CollectedTraces traces = collect_traces(s.dir, own_files(), asked);
    s.rec.traces = traces.outcome;
    for (const fs::path& t : traces.traces) s.rec.kernel_traces.push_back(t.lexically_relative(s.dir).string());
    report::print_config_note(err, s.config.name,
                              report::trace_outcome_line(traces.outcome, s.dir.string(), !p.profile_wrapper.empty()));
  }
  s.rec.total_s = seconds_since(s.t0);
  const bool ran = s.rec.outcome == ConfigOutcome::ran;
  std::error_code ec;
  fs::remove(s.dir / (ran ? kFailureFile : kDoneFile), ec);
  report::write_file_atomic((s.dir / (ran ? kDoneFile : kFailureFile)).string(), record_json(s.rec));
}

ConfigRecord run_configuration(const TuneParams& p, ConfigSlot& s, const TuneIo& io, std::stop_token stop) {
  const int port = p.port_base ? *p.port_base + static_cast<int>(s.index) : pick_free_port();
  s.endpoint = p.run.client.endpoint;
  s.endpoint.port = static_cast<std::uint16_t>(port);
  s.endpoint.base_path.clear();
  Placeholders values{{"port", std::to_string(port)}, {"dir", s.dir.string()}, {"name", s.config.name}};
  for (const auto& [k, v] : s.config.params) values[k] = v;
  const LaunchCommand cmd = build_launch_command(p.profile_wrapper, p.server_cmd, values);
  s.rec.command = command_text(cmd.argv);
  s.rec.port = port;
  const fs::path log = s.dir / kServerLog;
  report::print_config_start(io.err, s.index, p.configs.size(), s.config.name, s.rec.command, log.string());
  int error = 0;
  std::optional<ServerProcess> proc = ServerProcess::start(SpawnSpec{cmd.argv, log}, error);
  if (!proc) {
    report::ConfigFailureFacts f = facts_of(ConfigOutcome::spawn_failed);
    f.detail = report::spawn_error_text(cmd.argv.front(), error);
    record_failure(s, f, p, io.err);
  } else {
    report::write_file_atomic((s.dir / kServerPid).string(), std::to_string(proc->pid()) + "\n");
    serve_and_measure(p, s, *proc, io, stop);
    const StopReport stopped = proc->stop(p.stop);
    report::print_config_note(io.err, s.config.name,
                              report::stop_note(stopped.leader, stopped.stragglers, p.stop.sigint_s));
    std::error_code ec;
    fs::remove(s.dir / kServerPid, ec);
  }
  finish_record(p, s, io.err);
  return s.rec;
}

}  // namespace

TuneResult run_tune(const TuneParams& p, const TuneIo& io, std::stop_token stop) {
  become_child_reaper();
  TuneResult out;
  for (std::size_t i = 0; i < p.configs.size() && !stop.stop_requested(); ++i) {
    const Configuration& c = p.configs[i];
    const fs::path dir = p.output_dir / config_dir_name(c.name);
    if (const std::optional<ConfigRecord> done = finished_before(dir)) {
      report::print_config_skipped(io.err, i, p.configs.size(), c.name, (dir / kDoneFile).string());
      out.configs.push_back(tuned_of(*done, dir));
      ++out.skipped;
      continue;
    }
    fs::create_directories(dir);
    ConfigSlot slot{c, i, dir};
    slot.rec.name = c.name;
    slot.rec.params = c.params;
    const ConfigRecord rec = run_configuration(p, slot, io, stop);
    out.configs.push_back(tuned_of(rec, dir));
    if (rec.outcome == ConfigOutcome::interrupted) break;
    if (rec.outcome != ConfigOutcome::ran) ++out.failed;
    if (rec.outcome == ConfigOutcome::ran && rec.run_exit_code > to_int(out.worst_run) &&
        rec.run_exit_code != to_int(ExitCode::aborted))
      out.worst_run = static_cast<ExitCode>(rec.run_exit_code);
  }
  out.interrupted = stop.stop_requested();
  return out;
}

}  // namespace sb::orchestrate
