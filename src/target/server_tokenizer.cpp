#include "target/server_tokenizer.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"

namespace sb {
namespace {

constexpr std::string_view kTokenizePath = "/tokenize";
constexpr std::string_view kDetokenizePath = "/detokenize";
// Short and plain, so every tokenizer gives the same count with and without specials apart from
// the specials themselves.
constexpr std::string_view kProbeText = "hello";

// Body snippet for error messages: servers put the reason there ({"detail": ...} / {"error": ...}).
std::string snippet(std::string_view body) {
  constexpr std::size_t kMax = 200;
  std::string s(body.substr(0, kMax));
  std::replace(s.begin(), s.end(), '\n', ' ');
  return body.size() > kMax ? s + "..." : s;
}

std::string status_problem(const Endpoint& ep, std::string_view path, const HttpReply& r) {
  return fmt::format("POST {} answered HTTP {} {}: {}", ep.url(path), r.status, r.reason, snippet(r.body));
}

// An engine answering another engine's request shape may say 200 with no tokens (llama.cpp does
// for vLLM's {"prompt"}): taking that as a length would make every prompt 0 tokens long.
[[noreturn]] void throw_zero_count(const ServerTokenizerOptions& opt, std::string_view text) {
  throw UserError(fmt::format("server tokenizer: POST {} ({} shape) counted 0 tokens for a non-empty text of {} "
                              "bytes, which is no length: is the engine really {}? (--engine names it)",
                              opt.endpoint.url(kTokenizePath), engine_name(opt.engine), text.size(),
                              engine_name(opt.engine)),
                  ExitCode::unreachable);
}

HttpReply post(const ServerTokenizerOptions& opt, std::string_view path, const std::string& body) {
  HttpReply r = http_call(opt.endpoint, "POST", path, opt.headers, body, opt.timeout_s);
  if (r.status != 200) {
    throw UserError("server tokenizer: " + status_problem(opt.endpoint, path, r), ExitCode::unreachable);
  }
  return r;
}

}  // namespace

ServerTokenizer::ServerTokenizer(ServerTokenizerOptions opt, std::size_t num_special_to_add,
                                 std::optional<int> max_model_len)
    : opt_(std::move(opt)), num_special_to_add_(num_special_to_add), max_model_len_(max_model_len) {}

TokenizeReply ServerTokenizer::tokenize(std::string_view text, bool add_special_tokens) const {
  const HttpReply r = post(opt_, kTokenizePath, tokenize_body_for(opt_.engine, opt_.model, text, add_special_tokens));
  const std::string where = "server tokenizer: " + opt_.endpoint.url(kTokenizePath);
  TokenizeReply reply = parse_tokenize_reply_for(opt_.engine, r.body, add_special_tokens, where);
  if (reply.count == 0 && !text.empty()) throw_zero_count(opt_, text);
  return reply;
}

std::vector<std::int32_t> ServerTokenizer::encode(std::string_view text, bool add_special_tokens) const {
  TokenizeReply reply = tokenize(text, add_special_tokens);
  if (reply.tokens.size() != reply.count) {
    throw UserError("server tokenizer: " + opt_.endpoint.url(kTokenizePath) +
                        ": reply has a count but no \"tokens\" list, so ids are unknown",
                    ExitCode::unreachable);
  }
  return std::move(reply.tokens);
}

std::string ServerTokenizer::decode(const std::vector<std::int32_t>& ids, bool /*skip_special_tokens*/) const {
  if (!has_detokenize(opt_.engine)) {
    throw UserError(fmt::format("server tokenizer: {} has no /detokenize", engine_name(opt_.engine)),
                    ExitCode::unreachable);
  }
  const HttpReply r = post(opt_, kDetokenizePath, detokenize_body_for(opt_.engine, opt_.model, ids));
  return parse_detokenize_reply_for(opt_.engine, r.body, "server tokenizer: " + opt_.endpoint.url(kDetokenizePath));
}

std::size_t ServerTokenizer::count(std::string_view text, bool add_special_tokens) const {
  return tokenize(text, add_special_tokens).count;
}

std::vector<std::size_t> ServerTokenizer::count_many(const std::vector<std::string_view>& texts,
                                                     bool add_special_tokens) const {
  std::vector<std::size_t> counts(texts.size(), 0);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::size_t error_index = texts.size();
  std::exception_ptr error;
  // Work is handed out one text at a time: call latencies vary far more than text lengths.
  auto work = [&] {
    for (std::size_t i = next++; i < texts.size() && !failed.load(); i = next++) {
      try {
        counts[i] = count(texts[i], add_special_tokens);
      } catch (...) {
        std::lock_guard<std::mutex> lk(error_mu);
        if (i < error_index) {
          error_index = i;
          error = std::current_exception();
        }
        failed = true;
      }
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::max(opt_.threads, 1), texts.size());
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  return counts;
}

std::string ServerTokenizer::name() const { return opt_.model.empty() ? "server" : "server:" + opt_.model; }

ServerTokenizerProbe probe_server_tokenizer_detailed(const ServerTokenizerOptions& opt) {
  ServerTokenizerProbe out;
  const std::string where = opt.endpoint.url(kTokenizePath);
  try {
    const HttpReply with = http_call(opt.endpoint, "POST", kTokenizePath, opt.headers,
                                     tokenize_body_for(opt.engine, opt.model, kProbeText, true), opt.timeout_s);
    if (with.status == 404 || with.status == 405) {
      out.unavailable_reason = fmt::format("the server has no POST {} (HTTP {})", where, with.status);
      return out;
    }
    if (with.status != 200) {
      out.unavailable_reason = status_problem(opt.endpoint, kTokenizePath, with);
      return out;
    }
    const TokenizeReply a = parse_tokenize_reply_for(opt.engine, with.body, true, where);
    if (a.count == 0) throw_zero_count(opt, kProbeText);
    const std::size_t plain = ServerTokenizer(opt).count(kProbeText, false);
    const std::size_t specials = a.count > plain ? a.count - plain : 0;
    out.tokenizer = std::make_unique<ServerTokenizer>(opt, specials, a.max_model_len);
  } catch (const UserError& e) {
    // Unreachable, not the engine's shape, or no count: the run goes on with approximate lengths
    // and says why.
    out.unavailable_reason = e.what();
  }
  return out;
}

std::unique_ptr<Tokenizer> probe_server_tokenizer(const Endpoint& endpoint, const HeaderList& headers,
                                                  std::string model, double timeout_s) {
  ServerTokenizerOptions opt;
  opt.endpoint = endpoint;
  opt.headers = headers;
  opt.model = std::move(model);
  opt.timeout_s = timeout_s;
  return std::move(probe_server_tokenizer_detailed(opt).tokenizer);
}

}  // namespace sb
