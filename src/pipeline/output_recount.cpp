#include "pipeline/output_recount.hpp"

namespace sb::pipeline {

bool needs_output_recount(const RequestRecord& r) noexcept {
  return r.ok() && r.token_source == TokenSource::event_count && !r.generated_text.empty();
}

void recount_output_tokens(const Tokenizer& tok, RequestRecord& r, bool keep_text) {
  r.output_tokens = static_cast<int>(tok.count(r.generated_text, /*add_special_tokens=*/false));
  r.token_source = TokenSource::tokenizer;
  if (!keep_text) std::string().swap(r.generated_text);
}

}  // namespace sb::pipeline
