#pragma once
// The process groups of the servers `tune` has running, for the one path that cannot stop them in
// order: a second Ctrl-C, on which app/ ends the process at once (app/signal_stop.cpp). It kills
// these groups first, so that no server outlives tune even then.
#include <sys/types.h>

namespace sb::orchestrate {

void register_live_group(pid_t pgid);
void unregister_live_group(pid_t pgid);
// SIGKILL to every registered group. Thread-safe; called from app's signal-watcher thread.
void kill_live_groups();

}  // namespace sb::orchestrate
