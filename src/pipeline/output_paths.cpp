#include "pipeline/output_paths.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "report/vllm_result.hpp"

namespace sb::pipeline {

namespace fs = std::filesystem;

namespace {

// NAME_MAX of the file system holding `dir` (255 on ext4, xfs, tmpfs, btrfs).
long name_max_of(const fs::path& dir) {
  const long n = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return n > 0 ? n : NAME_MAX;
}

// The folder itself, or the nearest of its parents that exists ("" when none does).
fs::path nearest_existing(fs::path dir) {
  std::error_code ec;
  while (!dir.empty() && !fs::exists(dir, ec)) {
    const fs::path up = dir.parent_path();
    if (up == dir) break;
    dir = up;
  }
  return dir.empty() ? fs::path(".") : dir;
}

// A file made and removed at once: access(W_OK) says yes to root on a read-only mount's folder
// and in /proc, where creating a file still fails.
int probe_folder(const fs::path& dir) {
  static std::atomic<unsigned> counter{0};
  const fs::path probe = dir / fmt::format(".servebench-probe-{}-{}", static_cast<long>(::getpid()), counter++);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  ::close(fd);
  ::unlink(probe.c_str());
  return 0;
}

// "" when files can be made in `dir` (made later when missing), else why not.
std::string folder_problem(const fs::path& dir) {
  std::error_code ec;
  const fs::path existing = nearest_existing(dir);
  if (!fs::is_directory(existing, ec))
    return fmt::format("{} is not a folder", existing.string());
  for (const fs::path& part : dir.lexically_relative(existing)) {
    if (part == "." || part.empty()) continue;
    if (static_cast<long>(part.string().size()) > name_max_of(existing))
      return fmt::format("folder name {} is too long ({} bytes, the file system allows {})", part.string(),
                         part.string().size(), name_max_of(existing));
  }
  if (const int err = probe_folder(existing); err != 0)
    return fmt::format("cannot create files in {}: {}", existing.string(), std::strerror(err));
  return "";
}

void add_path(Problems& out, std::map<std::string, std::string>& seen, const std::string& field,
              const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  fs::path resolved = fs::weakly_canonical(absolute, ec);  // links resolved; fails on a name too long
  const std::string key = (ec || resolved.empty() ? absolute : resolved).string();
  if (auto [it, fresh] = seen.emplace(key, field); !fresh) {
    out.push_back({field, fmt::format("{} is also the path of {{{}}}: one would overwrite the other", path, it->second)});
    return;
  }
  if (std::string why = output_path_problem(path); !why.empty()) out.push_back({field, fmt::format("{}: {}", path, why)});
}

}  // namespace

std::string output_path_problem(const std::string& path) {
  if (path.empty()) return "empty path";
  // /dev/stdout, /dev/null, a pipe: written directly, never renamed into (report/atomic_file).
  struct stat st {};
  std::error_code ec;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "is a folder, not a file";
    if (!S_ISREG(st.st_mode)) return ::access(path.c_str(), W_OK) == 0 ? "" : fmt::format("cannot write: {}", std::strerror(errno));
  }
  const fs::path p(path);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (std::string why = folder_problem(dir); !why.empty()) return why;
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..") return "names a folder, not a file";
  // The temporary file beside it needs a few bytes more than the name (report/atomic_file cuts it).
  const long max = name_max_of(nearest_existing(dir));
  if (static_cast<long>(name.size()) > max)
    return fmt::format("file name too long ({} bytes, the file system allows {})", name.size(), max);
  return "";
}

Problems check_output_paths(const RunConfig& cfg) {
  Problems out;
  std::map<std::string, std::string> seen;
  add_path(out, seen, "output_json", cfg.output_json);
  add_path(out, seen, "requests_jsonl", cfg.requests_jsonl);
  add_path(out, seen, "csv", cfg.csv);
  if (!cfg.save_result) return out;
  const fs::path dir = cfg.result_dir.empty() ? fs::path(".") : fs::path(cfg.result_dir);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    out.push_back({"result_dir", fmt::format("{} is not a folder", dir.string())});
  } else if (std::string why = folder_problem(dir); !why.empty()) {
    out.push_back({"result_dir", fmt::format("{}: {}", dir.string(), why)});
  } else if (cfg.result_filename) {
    // The longest name the run may give it: "-stage<N>" before the extension when there are stages.
    const fs::path name(*cfg.result_filename);
    const std::string longest = name.stem().string() + "-stage999" + name.extension().string();
    const fs::path where = (dir / name).parent_path();
    if (std::string why = folder_problem(where); !why.empty())
      out.push_back({"result_filename", fmt::format("{}: {}", *cfg.result_filename, why)});
    else if (static_cast<long>(longest.size()) > name_max_of(nearest_existing(where)))
      out.push_back({"result_filename", fmt::format("{}: file name too long ({} bytes with the stage suffix, the file "
                                                    "system allows {})", *cfg.result_filename, longest.size(),
                                                    name_max_of(nearest_existing(where)))});
  }
  return out;
}

Problems check_result_file_names(const RunConfig& cfg, const report::RunContext& ctx,
                                 const std::vector<StageLoad>& loads) {
  Problems out;
  if (!cfg.save_result || cfg.result_filename) return out;
  const fs::path dir = cfg.result_dir.empty() ? fs::path(".") : fs::path(cfg.result_dir);
  const long max = name_max_of(nearest_existing(dir));
  // The date has a fixed width; a name that repeats gets "-stage<i>" (run_outputs.cpp).
  const std::string date = "00000000-000000";
  std::map<std::string, int> uses;
  for (const StageLoad& load : loads) ++uses[report::vllm_result_filename(ctx, load, date)];
  for (const auto& [name, n] : uses) {
    const std::size_t bytes = name.size() + (n > 1 ? fmt::formatted_size("-stage{}", loads.size()) : 0);
    if (static_cast<long>(bytes) > max) {
      out.push_back({"result_dir", fmt::format("the result file name for the model {} would be too long ({} bytes, the "
                                               "file system allows {}): give --result-filename", ctx.model_id,
                                               bytes, max)});
      break;
    }
  }
  return out;
}

}  // namespace sb::pipeline
