#include "sim/token_log.hpp"

#include <cinttypes>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace sb::sim {

TokenLog::TokenLog(const std::filesystem::path& file) {
  file_ = std::fopen(file.c_str(), "w");
  if (!file_) throw UserError("--token-log: cannot create " + file.string());
  std::fputs("# servebench-sim token-log v1: send_ns request_id token_index\n", file_);
  cur_.records.reserve(kBatchRecords);
  writer_ = std::thread([this] { writer_loop(); });
}

TokenLog::~TokenLog() {
  hand_over();
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  writer_.join();
  std::fclose(file_);
}

void TokenLog::begin(std::uint64_t id, std::string_view request_id) {
  cur_.records.push_back({0, id, -1, static_cast<std::uint32_t>(cur_.names.size())});
  // Ids are whitespace-free in the file so each line splits into exactly three fields.
  std::string& name = cur_.names.emplace_back(request_id);
  for (char& c : name) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = '_';
  }
  if (name.empty()) name = "-";
}

void TokenLog::token(std::uint64_t id, int index, Nanos send_ns) noexcept {
  cur_.records.push_back({send_ns, id, index, 0});
  if (cur_.records.size() >= kBatchRecords) hand_over();
}

void TokenLog::end(std::uint64_t id) { cur_.records.push_back({0, id, -2, 0}); }

void TokenLog::flush() {
  hand_over();
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return !has_pending_; });
  std::fflush(file_);
}

void TokenLog::hand_over() {
  if (cur_.records.empty()) return;
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return !has_pending_; });
  std::swap(pending_, cur_);
  has_pending_ = true;
  lock.unlock();
  cv_.notify_all();
  // The swapped-in batch was written and cleared by the writer; keep its capacity.
  cur_.records.clear();
  cur_.names.clear();
  cur_.records.reserve(kBatchRecords);
}

void TokenLog::writer_loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return has_pending_ || stop_; });
    if (has_pending_) {
      lock.unlock();
      write_batch(pending_);
      lock.lock();
      has_pending_ = false;
      cv_.notify_all();
      continue;
    }
    if (stop_) return;
  }
}

void TokenLog::write_batch(Batch& b) {
  for (const Record& r : b.records) {
    if (r.index == -1) {
      names_[r.id] = std::move(b.names[r.name]);
    } else if (r.index == -2) {
      names_.erase(r.id);
    } else {
      auto it = names_.find(r.id);
      const char* name = it == names_.end() ? "?" : it->second.c_str();
      std::fprintf(file_, "%" PRId64 " %s %d\n", r.send_ns, name, r.index);
    }
  }
  b.records.clear();
  b.names.clear();
}

std::vector<TokenLogRow> read_token_log(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw UserError("cannot open token log " + file.string());
  std::vector<TokenLogRow> rows;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    TokenLogRow row;
    if (!(fields >> row.send_ns >> row.request_id >> row.token_index)) {
      throw UserError(file.string() + ":" + std::to_string(line_no) + ": malformed token-log line");
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace sb::sim
