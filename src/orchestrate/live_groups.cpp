#include "orchestrate/live_groups.hpp"

#include <signal.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace sb::orchestrate {

namespace {

std::mutex& groups_mutex() {
  static std::mutex m;
  return m;
}

std::vector<pid_t>& groups() {
  static std::vector<pid_t> g;
  return g;
}

}  // namespace

void register_live_group(pid_t pgid) {
  const std::lock_guard lock(groups_mutex());
  groups().push_back(pgid);
}

void unregister_live_group(pid_t pgid) {
  const std::lock_guard lock(groups_mutex());
  std::erase(groups(), pgid);
}

void kill_live_groups() {
  const std::lock_guard lock(groups_mutex());
  for (const pid_t g : groups()) ::kill(-g, SIGKILL);
}

}  // namespace sb::orchestrate
