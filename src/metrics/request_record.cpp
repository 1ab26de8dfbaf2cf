#include "metrics/request_record.hpp"

namespace sb {

const char* to_string(Outcome o) noexcept {
  switch (o) {
    case Outcome::ok: return "ok";
    case Outcome::connect_error: return "connect_error";
    case Outcome::http_error: return "http_error";
    case Outcome::dropped: return "dropped";
    case Outcome::malformed: return "malformed";
    case Outcome::timeout: return "timeout";
    case Outcome::no_tokens: return "no_tokens";
    case Outcome::cancelled: return "cancelled";
  }
  return "unknown";
}

const char* to_string(TokenSource s) noexcept {
  switch (s) {
    case TokenSource::none: return "none";
    case TokenSource::usage_chunk: return "usage_chunk";
    case TokenSource::usage_in_choice: return "usage_in_choice";
    case TokenSource::usage_body: return "usage_body";
    case TokenSource::tokenizer: return "tokenizer";
    case TokenSource::event_count: return "event_count";
  }
  return "unknown";
}

const char* to_string(FinishReason f) noexcept {
  switch (f) {
    case FinishReason::none: return "none";
    case FinishReason::stop: return "stop";
    case FinishReason::length: return "length";
    case FinishReason::other: return "other";
  }
  return "unknown";
}

FinishReason finish_reason_from(std::string_view text) noexcept {
  if (text == "stop" || text == "eos") return FinishReason::stop;  // "eos": some TGI-style servers
  if (text == "length") return FinishReason::length;
  return FinishReason::other;
}

}  // namespace sb
