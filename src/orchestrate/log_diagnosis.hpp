#pragma once
// Why a server died at start, from the last lines of its log (sans-I/O: the caller reads the file).
// The patterns are the messages the engines print for the usual first-run failures: PyTorch's
// out-of-memory errors (CUDA and ROCm/HIP spell them differently), the socket error of a port in
// use (Python's [Errno 98], Go's and Rust's "address already in use"), and the argument parsers'
// complaints (Python argparse for vLLM and SGLang, CLI11 for our own simulator).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/server_outcome.hpp"

namespace sb::orchestrate {

// The last `n` non-empty lines of `log_text`, oldest first, without their "\r" and ANSI colours.
std::vector<std::string> last_lines(std::string_view log_text, std::size_t n);

// The cause the latest recognisable line names (a traceback's last line is the error itself);
// LogCause::unknown when no line is recognised.
LogCause diagnose_log(std::span<const std::string> lines);

// The cause one line names, or unknown.
LogCause diagnose_line(std::string_view line);

}  // namespace sb::orchestrate
