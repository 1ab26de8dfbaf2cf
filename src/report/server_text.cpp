#include "report/server_text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace sb::report {

std::string_view log_cause_text(LogCause c) {
  switch (c) {
    case LogCause::cuda_oom:
      return "CUDA out of memory";
    case LogCause::hip_oom:
      return "HIP out of memory";
    case LogCause::port_in_use:
      return "port already in use";
    case LogCause::bad_flag:
      return "bad flag";
    case LogCause::unknown:
      break;
  }
  return "cause not recognised";
}

std::string_view log_cause_hint(LogCause c) {
  switch (c) {
    case LogCause::cuda_oom:
    case LogCause::hip_oom:
      return "the model, its KV cache and the batch do not fit: lower --max-num-seqs / --max-num-batched-tokens / "
             "--max-model-len or --gpu-memory-utilization, or check nothing else holds GPU memory";
    case LogCause::port_in_use:
      return "another process listens on that port: stop it, or give --port-base a free range";
    case LogCause::bad_flag:
      return "the server rejected a flag of --server-cmd (or a grid value): check its spelling against the server's "
             "--help";
    case LogCause::unknown:
      break;
  }
  return "";
}

namespace {

std::string ended_how(const ConfigFailureFacts& f) {
  if (f.signal != 0) return fmt::format("killed by signal {}", f.signal);
  return fmt::format("exit code {}", f.exit_code);
}

std::string with_last_line(std::string head, const std::string& last) {
  return last.empty() ? head + " (its log is empty)" : head + ": " + last;
}

}  // namespace

std::string config_failure_line(const ConfigFailureFacts& f) {
  switch (f.outcome) {
    case ConfigOutcome::spawn_failed:
      return fmt::format("could not start the server command: {}", f.detail);
    case ConfigOutcome::exited_at_start: {
      const std::string why = f.cause == LogCause::unknown ? ended_how(f) : std::string(log_cause_text(f.cause));
      return with_last_line(fmt::format("exited at start ({})", why), f.last_log_line);
    }
    case ConfigOutcome::not_ready: {
      const std::string answer =
          f.last_http_status == 0 ? "no answer" : fmt::format("last answer HTTP {}", f.last_http_status);
      return with_last_line(fmt::format("not ready after {:.0f} s ({}; --ready-timeout-s)", f.waited_s, answer),
                            f.last_log_line);
    }
    case ConfigOutcome::run_failed:
      return fmt::format("ready, but the staircase did not start: {}", f.detail);
    case ConfigOutcome::interrupted:
      return "interrupted (Ctrl-C) before the staircase finished";
    case ConfigOutcome::ran:
      break;
  }
  return "";
}

void print_config_failure(std::FILE* err, std::string_view name, const ConfigFailureFacts& f,
                          const std::vector<std::string>& log_tail, std::string_view log_path) {
  std::fprintf(err, "servebench tune: %.*s: %s\n", static_cast<int>(name.size()), name.data(),
               config_failure_line(f).c_str());
  if (const std::string_view hint = log_cause_hint(f.cause);
      !hint.empty() && f.outcome == ConfigOutcome::exited_at_start)
    std::fprintf(err, "  hint: %.*s\n", static_cast<int>(hint.size()), hint.data());
  if (log_tail.empty()) return;
  std::fprintf(err, "  last lines of %.*s:\n", static_cast<int>(log_path.size()), log_path.data());
  for (const std::string& line : log_tail) std::fprintf(err, "    | %s\n", line.c_str());
}

std::string trace_outcome_line(TraceOutcome t, std::string_view dir, bool wrapper_given) {
  const std::string where(dir);
  switch (t) {
    case TraceOutcome::missing:
      return wrapper_given
                 ? fmt::format(
                       "no profiler output under {}: point the wrapper's output there ({{dir}}), and note that a "
                       "server that daemonises or re-executes itself escapes the wrapper",
                       where)
                 : fmt::format(
                       "no profiler output under {}: with --server-profile the server itself must write its "
                       "trace there (vLLM: VLLM_TORCH_PROFILER_DIR={{dir}}; servebench sim: --kernel-trace "
                       "{{dir}}/FILE)",
                       where);
    case TraceOutcome::empty:
      return fmt::format(
          "the profiler's files under {} are empty: the profiled process ended before it wrote them, "
          "or the server daemonised and the wrapper traced only its launcher",
          where);
    case TraceOutcome::header_only:
      return fmt::format(
          "the profiler's files under {} hold a header and no kernel rows: rocprof needs the "
          "video and render groups (sudo usermod -aG video,render $USER), and a daemonised server "
          "cannot be wrapped",
          where);
    case TraceOutcome::found:
    case TraceOutcome::not_asked:
      break;
  }
  return "";
}

std::string stop_note(StopStep step, bool stragglers, double sigint_s) {
  std::string note;
  if (step == StopStep::sigterm)
    note = fmt::format("did not stop within {:g} s of SIGINT; SIGTERM stopped it", sigint_s);
  else if (step == StopStep::sigkill)
    note = "ignored SIGINT and SIGTERM; killed with SIGKILL (its outputs may be incomplete)";
  else if (step == StopStep::survived)
    note = "still alive after SIGKILL (stuck in the kernel?)";
  if (stragglers)
    note += (note.empty() ? "" : "; ") + std::string("other processes of its group outlived it and were terminated");
  return note;
}

void print_config_start(std::FILE* err, std::size_t index, std::size_t count, std::string_view name,
                        std::string_view command, std::string_view log_path) {
  fmt::print(err, "servebench tune: [{}/{}] {}: starting {}\n  (its output: {})\n", index + 1, count, name, command,
             log_path);
  std::fflush(err);
}

void print_config_ready(std::FILE* err, std::string_view name, double ready_s, int port) {
  fmt::print(err, "servebench tune: {}: ready after {:.1f} s on port {}\n", name, ready_s, port);
  std::fflush(err);
}

void print_config_skipped(std::FILE* err, std::size_t index, std::size_t count, std::string_view name,
                          std::string_view record_path) {
  fmt::print(err, "servebench tune: [{}/{}] {}: finished in an earlier run ({}), skipped\n", index + 1, count, name,
             record_path);
}

void print_config_note(std::FILE* err, std::string_view name, std::string_view note) {
  if (!note.empty()) fmt::print(err, "servebench tune: {}: {}\n", name, note);
}

std::string profile_call_note(std::string_view path, int status) {
  const std::string answer = status == 0 ? std::string("no answer") : fmt::format("HTTP {}", status);
  return fmt::format(
      "POST {} got {} (--server-profile: start the server with its profiler enabled, e.g. vLLM's "
      "VLLM_TORCH_PROFILER_DIR, servebench sim's --kernel-trace)",
      path, answer);
}

std::string spawn_error_text(std::string_view program, int error) {
  const std::string what = fmt::format("{}: {}", program, std::strerror(error));
  if (error == ENOENT) return what + " (not on PATH? give its full path)";
  if (error == EACCES) return what + " (not executable? chmod +x)";
  return what;
}

}  // namespace sb::report
