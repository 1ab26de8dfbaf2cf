#include "orchestrate/log_diagnosis.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace sb::orchestrate {

namespace {

struct Pattern {
  std::string_view text;  // lower case; matched case-insensitively
  LogCause cause;
};

// HIP before CUDA: PyTorch on ROCm raises torch.cuda.OutOfMemoryError with "HIP out of memory".
constexpr std::array kPatterns{
    Pattern{"hip out of memory", LogCause::hip_oom},
    Pattern{"hip error: out of memory", LogCause::hip_oom},
    Pattern{"hiperroroutofmemory", LogCause::hip_oom},
    Pattern{"cuda out of memory", LogCause::cuda_oom},
    Pattern{"cuda error: out of memory", LogCause::cuda_oom},
    Pattern{"cudaerrormemoryallocation", LogCause::cuda_oom},
    Pattern{"address already in use", LogCause::port_in_use},
    Pattern{"[errno 98]", LogCause::port_in_use},
    Pattern{"eaddrinuse", LogCause::port_in_use},
    Pattern{"error: unrecognized arguments", LogCause::bad_flag},  // argparse
    Pattern{"error: argument ", LogCause::bad_flag},               // argparse: bad value or choice
    Pattern{"error: the following arguments are required", LogCause::bad_flag},
    Pattern{"the following argument was not expected", LogCause::bad_flag},    // CLI11
    Pattern{"the following arguments were not expected", LogCause::bad_flag},  // CLI11
    Pattern{"run with --help for more information", LogCause::bad_flag},       // CLI11, after any flag error
};

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "\x1b[31mERROR\x1b[0m" -> "ERROR": vLLM colours its log level when the log is a terminal, and
// some wrappers force colour.
std::string without_ansi(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;
      continue;
    }
    if (s[i] != '\r') out += s[i];
  }
  return out;
}

}  // namespace

std::vector<std::string> last_lines(std::string_view log_text, std::size_t n) {
  std::vector<std::string> out;
  std::size_t end = log_text.size();
  while (out.size() < n && end > 0) {
    const std::size_t nl = log_text.rfind('\n', end - 1);
    const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
    std::string line = without_ansi(log_text.substr(begin, end - begin));
    if (line.find_first_not_of(" \t") != std::string::npos) out.push_back(std::move(line));
    if (nl == std::string_view::npos) break;
    end = nl;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

LogCause diagnose_line(std::string_view line) {
  const std::string low = lowered(line);
  for (const Pattern& p : kPatterns)
    if (low.find(p.text) != std::string::npos) return p.cause;
  return LogCause::unknown;
}

LogCause diagnose_log(std::span<const std::string> lines) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const LogCause c = diagnose_line(*it);
    if (c != LogCause::unknown) return c;
  }
  return LogCause::unknown;
}

}  // namespace sb::orchestrate
