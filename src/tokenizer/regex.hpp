#pragma once
// PCRE2 (JIT, UTF + UCP) wrapper for the Split / ByteLevel pre-tokenizer patterns. The compiled
// pattern is shared; per-thread match data lives in thread_local storage, so find_all is
// thread-safe and does not allocate after a thread's first call.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sb::tok {

struct Match {
  std::size_t begin = 0, end = 0;
};

class Regex {
 public:
  // Throws std::invalid_argument with PCRE2's message (the loader turns it into a UserError).
  Regex(const std::string& pattern, bool literal);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // All non-overlapping matches in text, left to right (empty matches are skipped).
  void find_all(std::string_view text, std::vector<Match>& out) const;

 private:
  void* code_ = nullptr;  // pcre2_code_8*, kept opaque so the header stays PCRE2-free
  bool jit_ = false;
};

}  // namespace sb::tok
