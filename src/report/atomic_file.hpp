#pragma once
// Writing an output file so that a reader (or the next run) never sees half of it, and so that a
// failed write is never silent (docs/reliability.md, "Disks"):
// - a regular file (or a path that does not exist yet) is written to a temporary file in the same
//   folder, fsync'ed, and renamed over the target; on any failure the temporary file is removed and
//   the target is left as it was;
// - a target that exists and is not a regular file (/dev/stdout, a pipe, /dev/full, a terminal)
//   cannot be renamed into: it is opened and written directly, and every write and the close are
//   checked;
// - a symbolic link to a regular file is followed: the file it names is replaced, the link stays.
#include <string>
#include <string_view>

namespace sb::report {

// Throws sb::UserError (ExitCode::write_failed) "cannot write PATH: <errno text>".
void write_file_atomic(const std::string& path, std::string_view text);

// The same without throwing: 0 when written, else the errno of the first step that failed.
int try_write_file_atomic(const std::string& path, std::string_view text) noexcept;

// Writes all of `data` to `fd`, resuming after partial writes and EINTR: 0, or the errno.
// `written`, when given, gets how many bytes went out (all of them unless it failed).
int write_all(int fd, std::string_view data, std::size_t* written = nullptr) noexcept;

}  // namespace sb::report
