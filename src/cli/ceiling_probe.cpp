#include "cli/ceiling_probe.hpp"

#include <cstdlib>
#include <exception>
#include <memory>

#include "pipeline/ceiling_cache.hpp"
#include "report/selftest_text.hpp"
#include "sim/fixed_cost.hpp"
#include "sim/server.hpp"

namespace sb::cli {

std::string ceiling_cache_path(bool& pinned) {
  pinned = false;
  if (const char* file = std::getenv("SB_SELFTEST_CACHE"); file != nullptr && *file != '\0') {
    pinned = true;
    return file;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/servebench/selftest.json";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.cache/servebench/selftest.json";
  return "";
}

ClientCeiling probe_ceiling(pipeline::SelftestParams p) {
  sim::ServerOptions opt;
  opt.port = 0;
  // Zero delay: every token of a response is due at once, so the simulator writes each stream in one
  // go and the client's parsing is the work measured.
  sim::Server server(opt, std::make_unique<sim::FixedCostBackend>(sim::FixedCostOptions{}));
  server.start();
  p.endpoint.host = "127.0.0.1";
  p.endpoint.port = server.port();
  const ClientCeiling c = pipeline::measure_ceiling(p);
  server.stop();
  return c;
}

std::optional<ClientCeiling> ceiling_for_run(int threads, std::FILE* err) {
  bool pinned = false;
  const std::string path = ceiling_cache_path(pinned);
  const pipeline::CeilingKey key = pipeline::ceiling_key(threads);
  const double now_s = static_cast<double>(unix_now_ns()) / 1e9;
  if (!path.empty()) {
    if (auto cached = pipeline::read_ceiling_cache(path, key, now_s, pinned)) {
      std::fprintf(err, "%s\n", report::format_ceiling_note(*cached, 0, path).c_str());
      return cached;
    }
  }
  try {
    pipeline::SelftestParams p;
    p.threads = threads;
    const Nanos t0 = now_ns();
    ClientCeiling c = probe_ceiling(p);
    const double probe_s = ns_to_s(now_ns() - t0);
    const bool cached = !path.empty() && pipeline::write_ceiling_cache(path, key, c);
    std::fprintf(err, "%s\n", report::format_ceiling_note(c, probe_s, cached ? path : "").c_str());
    return c;
  } catch (const std::exception& e) {
    std::fprintf(err, "%s\n", report::format_ceiling_failure(e.what()).c_str());
    return std::nullopt;
  }
}

}  // namespace sb::cli
