#pragma once
// Output token counts when the server sends no usage: vLLM re-tokenizes the generated text with
// its tokenizer (no special tokens added); we do the same when --tokenizer is given, else the
// count stays one per token event (TokenSource::event_count).
#include "metrics/request_record.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::pipeline {

// A successful request whose count came from token events, with its text kept.
bool needs_output_recount(const RequestRecord& r) noexcept;

// Sets output_tokens from `tok` and token_source = tokenizer; drops the text unless `keep_text`.
void recount_output_tokens(const Tokenizer& tok, RequestRecord& r, bool keep_text);

}  // namespace sb::pipeline
