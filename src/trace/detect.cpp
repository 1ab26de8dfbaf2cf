#include "trace/detect.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "trace/kernel_stats.hpp"
#include "trace/nsys.hpp"
#include "trace/rocprof_v1.hpp"
#include "trace/rocprof_v1_json.hpp"
#include "trace/rocprofv3.hpp"
#include "trace/torch_trace.hpp"

namespace sb::trace {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kHeadBytes = 4096;
constexpr int kMaxDepth = 3;

std::string read_head(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

std::string_view family(TraceFileFormat f) {
  switch (f) {
    case TraceFileFormat::rocprof_v1:
    case TraceFileFormat::rocprof_v1_json:
      return "rocprof_v1";
    case TraceFileFormat::rocprofv3_kernel:
    case TraceFileFormat::rocprofv3_memory_copy:
      return "rocprofv3";
    case TraceFileFormat::nsys_gpu_trace:
      return "nsys";
    case TraceFileFormat::torch:
    case TraceFileFormat::torch_gzip:
      return "torch";
    default:
      return "";
  }
}

// Per family, the candidate files of a folder (sorted by the map/vector order of a sorted walk).
std::map<std::string, std::vector<std::string>> scan_folder(const fs::path& dir) {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it.depth() >= kMaxDepth) it.disable_recursion_pending();
    if (it->is_regular_file() && !it->path().string().ends_with(".servebench.json")) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::map<std::string, std::vector<std::string>> found;
  for (const fs::path& p : files) {
    const TraceFileFormat f = detect_trace_text(read_head(p));
    if (!family(f).empty()) found[std::string(family(f))].push_back(p.string());
  }
  return found;
}

// Several rocprof v1 or nsys files in one folder are different runs (or views of one run), not parts
// of one: pick results.csv, else results.json, else ask. Torch ranks and rocprofv3 processes are parts and are merged;
// a .json.gz is dropped when its plain twin is there.
std::vector<std::string> choose(const std::string& fam, std::vector<std::string> files, const std::string& dir) {
  if (fam == "torch") {
    std::erase_if(files, [&](const std::string& f) {
      return f.ends_with(".gz") && std::find(files.begin(), files.end(), f.substr(0, f.size() - 3)) != files.end();
    });
  }
  if ((fam == "rocprof_v1" || fam == "nsys") && files.size() > 1) {
    auto results = std::find_if(files.begin(), files.end(), [](const std::string& f) {
      return fs::path(f).filename() == "results.csv";
    });
    if (results == files.end()) {
      results = std::find_if(files.begin(), files.end(), [](const std::string& f) {
        return fs::path(f).filename() == "results.json";
      });
    }
    if (results == files.end()) {
      throw UserError(fmt::format("{}: {} {} traces found ({}, …): pass one file", dir, files.size(), fam, files[0]));
    }
    return {*results};
  }
  return files;
}

}  // namespace

std::string_view trace_file_format_name(TraceFileFormat f) {
  switch (f) {
    case TraceFileFormat::rocprof_v1:
      return "rocprof_v1";
    case TraceFileFormat::rocprof_v1_json:
      return "rocprof_v1_json";
    case TraceFileFormat::rocprofv3_kernel:
      return "rocprofv3_kernel_trace";
    case TraceFileFormat::rocprofv3_memory_copy:
      return "rocprofv3_memory_copy_trace";
    case TraceFileFormat::nsys_gpu_trace:
      return "nsys_cuda_gpu_trace";
    case TraceFileFormat::torch:
      return "torch";
    case TraceFileFormat::torch_gzip:
      return "torch_gzip";
    case TraceFileFormat::kernel_stats:
      return "kernel_stats";
    case TraceFileFormat::unknown:
      return "unknown";
  }
  return "unknown";
}

TraceFileFormat detect_trace_text(std::string_view head) {
  if (is_gzip(head)) return TraceFileFormat::torch_gzip;  // the only gzip format a profiler here writes
  if (is_rocprof_v1_json(head)) return TraceFileFormat::rocprof_v1_json;
  if (looks_like_torch_trace(head)) return TraceFileFormat::torch;
  const std::string_view first_line = head.substr(0, head.find('\n'));
  if (is_rocprofv3_kernel_header(first_line)) return TraceFileFormat::rocprofv3_kernel;
  if (is_rocprofv3_memory_copy_header(first_line)) return TraceFileFormat::rocprofv3_memory_copy;
  if (is_rocprof_v1_header(first_line)) return TraceFileFormat::rocprof_v1;
  // nsys headers may follow progress lines; only whole lines of the head are looked at.
  const std::string_view lines = head.substr(0, head.rfind('\n') == std::string_view::npos ? head.size() : head.rfind('\n'));
  if (has_nsys_gpu_trace_header(lines)) return TraceFileFormat::nsys_gpu_trace;
  if (has_kernel_stats_header(lines)) return TraceFileFormat::kernel_stats;
  return TraceFileFormat::unknown;
}

DetectedTrace detect_trace_format(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    const TraceFileFormat f = detect_trace_text(read_head(path));
    if (family(f).empty()) {
      throw UserError(fmt::format("{}: not a kernel trace this tool reads ({})", path, trace_file_format_name(f)));
    }
    return {std::string(family(f)), {path}};
  }
  if (!fs::is_directory(path, ec)) throw UserError(fmt::format("{}: no such file or folder", path));
  const auto found = scan_folder(path);
  if (found.empty()) throw UserError(fmt::format("{}: no rocprof, rocprofv3, nsys or torch trace found", path));
  if (found.size() > 1) {
    throw UserError(fmt::format("{}: traces of several profilers found ({}, {}): pass one file or folder", path,
                                found.begin()->first, std::next(found.begin())->first));
  }
  const auto& [fam, files] = *found.begin();
  return {fam, choose(fam, files, path)};
}

KernelTrace parse_trace_text(TraceFileFormat format, std::string_view text, std::string_view source) {
  switch (format) {
    case TraceFileFormat::rocprof_v1:
      return parse_rocprof_v1_csv(text, source);
    case TraceFileFormat::rocprof_v1_json:
      return parse_rocprof_v1_json(text, source);
    case TraceFileFormat::rocprofv3_kernel:
      return parse_rocprofv3_kernel_trace(text, source);
    case TraceFileFormat::rocprofv3_memory_copy:
      return parse_rocprofv3_memory_copy_trace(text, source);
    case TraceFileFormat::nsys_gpu_trace:
      return parse_nsys_gpu_trace(text, source);
    case TraceFileFormat::torch:
    case TraceFileFormat::torch_gzip:  // refused inside with a gunzip hint
      return parse_torch_trace(text, source);
    default:
      break;
  }
  throw UserError(fmt::format("{}: not a per-kernel trace ({})", source, trace_file_format_name(format)));
}

}  // namespace sb::trace
