#include "orchestrate/trace_collect.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "trace/detect.hpp"

namespace sb::orchestrate {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;
constexpr std::uintmax_t kParseWholeBytes = 64ull << 20;  // larger files are taken on their first rows

std::string read_prefix(const fs::path& p, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t non_empty_lines(std::string_view text) {
  std::size_t n = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    if (text.substr(begin, end - begin).find_first_not_of(" \t\r") != std::string_view::npos) ++n;
    begin = end + 1;
  }
  return n;
}

// Whether a recognised profiler file holds at least one kernel (or stats) row.
bool has_rows(const fs::path& p, trace::TraceFileFormat format, std::uintmax_t size) {
  using F = trace::TraceFileFormat;
  if (format == F::torch_gzip) return true;  // cannot be looked into here; a gzip of nothing is rare
  if (size > kParseWholeBytes) return non_empty_lines(read_prefix(p, kHeadBytes)) >= 2;
  try {
    return !trace::parse_trace_text(format, read_whole(p), p.string()).events.empty();
  } catch (const UserError&) {
    return non_empty_lines(read_prefix(p, kHeadBytes)) >= 2;  // malformed rows are still rows: kernels reports them
  }
}

bool skipped(const fs::path& p, const fs::path& dir, const std::set<std::string>& ours) {
  return p.string().ends_with(".servebench.json") || ours.count(p.lexically_relative(dir).string()) > 0;
}

}  // namespace

CollectedTraces collect_traces(const fs::path& dir, const std::set<std::string>& ours, bool profiling_asked) {
  CollectedTraces out;
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it.depth() >= 3) it.disable_recursion_pending();
    if (it->is_regular_file() && !skipped(it->path(), dir, ours)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    const std::uintmax_t size = fs::file_size(p, ec);
    if (ec) continue;
    if (size == 0) {
      out.empty.push_back(p);
      continue;
    }
    const trace::TraceFileFormat format = trace::detect_trace_text(read_prefix(p, 4096));
    // Summaries (rocprof's *.stats.csv, nsys's *_sum.csv) come beside a per-kernel file: that one is the trace.
    if (format == trace::TraceFileFormat::unknown || format == trace::TraceFileFormat::kernel_stats) continue;
    (has_rows(p, format, size) ? out.traces : out.header_only).push_back(p);
  }
  if (!out.traces.empty())
    out.outcome = TraceOutcome::found;
  else if (!out.header_only.empty())
    out.outcome = TraceOutcome::header_only;
  else if (!out.empty.empty() && profiling_asked)
    out.outcome = TraceOutcome::empty;
  else
    out.outcome = profiling_asked ? TraceOutcome::missing : TraceOutcome::not_asked;
  return out;
}

}  // namespace sb::orchestrate
