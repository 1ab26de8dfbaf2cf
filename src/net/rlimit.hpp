#pragma once
// Open-file limit: a run with N connections needs N sockets plus files; many systems default the
// soft RLIMIT_NOFILE to 1024, so the tool raises it itself (up to the hard limit).
#include <cstdint>

namespace sb {

// Raises the soft RLIMIT_NOFILE to at least `needed_fds` (never lowers it). Returns the soft limit
// now in force. Throws sb::UserError naming the hard limit and how to raise it when impossible.
std::uint64_t raise_nofile_limit(std::uint64_t needed_fds);

// File descriptors a stage with `connections` sockets needs (sockets + files + margin).
std::uint64_t fds_needed_for(std::uint64_t connections);

}  // namespace sb
