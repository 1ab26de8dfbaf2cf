// servebench: subcommand dispatch, and SIGINT/SIGTERM as the stop token of commands that send load.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "app/signal_stop.hpp"
#include "cli/commands.hpp"

namespace {

void print_usage(std::FILE* out) {
  std::fputs(
      "servebench " SB_VERSION " - load testing and capacity analysis for LLM inference servers\n"
      "\n"
      "usage: servebench <command> [options]   (servebench <command> --help for its options)\n"
      "\n"
      "commands:\n",
      out);
  for (const auto& c : sb::cli::commands()) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  // `servebench run ... | head -1`: a closed stdout must not kill the run (and its files); writes
  // fail with EPIPE instead, and the printers stop printing.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::puts("servebench " SB_VERSION);
    return 0;
  }
  const std::string_view name = argv[1];
  for (const auto& c : sb::cli::commands()) {
    if (name != c.name) continue;
    if (!c.stoppable) return sb::cli::run_guarded(c, argc - 1, argv + 1);  // sim handles its own signals
    sb::app::SignalStop signals;  // before the command starts any thread
    const int code = sb::cli::run_guarded(c, argc - 1, argv + 1, signals.token());
    if (signals.token().stop_requested()) {
      // A stop may have left a helper thread blocked in a call that cannot be interrupted (the
      // preflight's HTTP call, started by prepare_until_stopped in pipeline/run_prepare.cpp): exit
      // without destroying globals under it.
      std::fflush(nullptr);
      std::_Exit(code);
    }
    return code;
  }
  std::fprintf(stderr, "servebench: unknown command '%s'\n\n", argv[1]);
  print_usage(stderr);
  return 2;
}
