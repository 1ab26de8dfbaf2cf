#include "pipeline/stage_barrier.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include <sys/stat.h>

#include "core/error.hpp"

namespace sb::pipeline {

namespace fs = std::filesystem;

namespace {

fs::path barrier_folder(const BarrierParams& p, const std::string& name) {
  return fs::path(p.dir) / "barrier" / name;
}

// Returns this shard's clock minus the file's mtime (ms), when the file system gives one.
std::optional<double> write_arrival(const fs::path& folder, const BarrierParams& p) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  const fs::path file = folder / fmt::format("shard-{}.done", p.shard.index);
  const fs::path tmp = folder / fmt::format(".shard-{}.tmp", p.shard.index);
  std::int64_t unix_ns = 0;
  {
    std::ofstream out(tmp, std::ios::trunc);
    // Read the clock right before the write: the mtime the write gets is then the nearest instant.
    unix_ns = unix_now_ns();
    out << p.run_key << ' ' << unix_ns << '\n';
    if (!out.flush())
      throw UserError(fmt::format("stage barrier: cannot write {}", tmp.string()), ExitCode::write_failed);
  }
  struct stat st {};
  const bool stamped = ::stat(tmp.c_str(), &st) == 0;
  fs::rename(tmp, file, ec);
  if (ec) throw UserError(fmt::format("stage barrier: cannot write {}: {}", file.string(), ec.message()), ExitCode::write_failed);
  if (!stamped) return std::nullopt;
  const std::int64_t mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return static_cast<double>(unix_ns - mtime_ns) / 1e6;
}

// The instant shard i wrote for this run; nullopt while its file is missing or from another run
// (another key, or the same plan run again in the same folder: an instant from before this process
// could have waited for it).
std::optional<std::int64_t> read_arrival(const fs::path& folder, const BarrierParams& p, int i,
                                         std::int64_t oldest_unix_ns) {
  std::ifstream in(folder / fmt::format("shard-{}.done", i));
  std::string key;
  std::int64_t unix_ns = 0;
  if (!(in >> key >> unix_ns) || key != p.run_key || unix_ns < oldest_unix_ns) return std::nullopt;
  return unix_ns;
}

}  // namespace

bool sleep_until_unix(std::int64_t unix_ns, std::stop_token stop) {
  const auto wait = std::chrono::nanoseconds(unix_ns - unix_now_ns());
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait_until(lock, stop, deadline, [] { return false; });
  return !stop.stop_requested();
}

StageBarrier::StageBarrier(BarrierParams p)
    : p_(std::move(p)),
      oldest_unix_ns_(unix_now_ns() - static_cast<std::int64_t>(p_.timeout_s * 1e9)) {}

std::optional<BarrierPass> StageBarrier::arrive(const std::string& name, std::stop_token stop) {
  BarrierPass pass;
  if (p_.shard.count == 1) {  // a run of its own (--start-at alone): the same pause, no files
    pass.start_unix_ns = unix_now_ns() + p_.margin_ns;
    return pass;
  }
  const fs::path folder = barrier_folder(p_, name);
  pass.clock_offset_ms = write_arrival(folder, p_);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(p_.timeout_s);
  while (true) {
    std::int64_t latest = 0;
    std::vector<int> missing;
    for (int i = 0; i < p_.shard.count; ++i) {
      const std::optional<std::int64_t> t = read_arrival(folder, p_, i, oldest_unix_ns_);
      if (t) latest = std::max(latest, *t);
      else missing.push_back(i);
    }
    if (missing.empty()) {
      pass.start_unix_ns = latest + p_.margin_ns;
      return pass;
    }
    if (std::chrono::steady_clock::now() >= give_up)
      throw UserError(fmt::format("stage barrier {}: shards {} of {} did not arrive within {:g} s ({})", name,
                                  fmt::join(missing, ", "), p_.shard.count, p_.timeout_s, folder.string()));
    if (!sleep_until_unix(unix_now_ns() + p_.poll_ns, stop)) return std::nullopt;
  }
}

}  // namespace sb::pipeline
