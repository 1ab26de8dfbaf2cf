#include "tokenizer/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdexcept>

namespace sb::tok {

namespace {

// One match block, match context and JIT stack per thread. The 1 MiB JIT stack covers patterns like
// \s+(?!\S) on very long whitespace runs, which overflow PCRE2's 32 KiB default.
struct ThreadMatchState {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  pcre2_jit_stack* stack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, nullptr);

  ThreadMatchState() { pcre2_jit_stack_assign(context, nullptr, stack); }
  ~ThreadMatchState() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
};

ThreadMatchState& thread_state() {
  thread_local ThreadMatchState state;
  return state;
}

}  // namespace

Regex::Regex(const std::string& pattern, bool literal) {
  int err = 0;
  PCRE2_SIZE err_offset = 0;
  // PCRE2 rejects UCP together with LITERAL (and a literal needs no character classes).
  const std::uint32_t options = PCRE2_UTF | PCRE2_NO_UTF_CHECK | (literal ? PCRE2_LITERAL : PCRE2_UCP);
  auto* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options, &err,
                             &err_offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    throw std::invalid_argument("regex error at offset " + std::to_string(err_offset) + ": " +
                                reinterpret_cast<const char*>(msg));
  }
  jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  code_ = code;
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

void Regex::find_all(std::string_view text, std::vector<Match>& out) const {
  out.clear();
  auto& st = thread_state();
  auto* code = static_cast<pcre2_code*>(code_);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const int rc = jit_ ? pcre2_jit_match(code, subject, text.size(), pos, 0, st.data, st.context)
                        : pcre2_match(code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, st.data, st.context);
    if (rc < 0) break;  // no match (or a resource limit: the rest stays one unmatched piece)
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(st.data);
    if (ov[1] == ov[0]) {
      // Empty match: step over one whole UTF-8 character.
      pos = ov[0] + 1;
      while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
      continue;
    }
    out.push_back({ov[0], ov[1]});
    pos = ov[1];
  }
}

}  // namespace sb::tok
