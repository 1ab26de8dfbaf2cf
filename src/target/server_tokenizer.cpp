#include "target/server_tokenizer.hpp"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "protocol/json_text.hpp"

namespace sb {
namespace {

constexpr std::string_view kTokenizePath = "/tokenize";
constexpr std::string_view kDetokenizePath = "/detokenize";
// Short and plain, so every tokenizer gives the same count with and without specials apart from
// the specials themselves.
constexpr std::string_view kProbeText = "hello";

[[noreturn]] void bad_reply(std::string_view where, std::string_view what) {
  throw UserError(fmt::format("{}: {}", where, what), ExitCode::unreachable);
}

simdjson::dom::element parse_object(simdjson::dom::parser& parser, const simdjson::padded_string& padded,
                                    std::string_view where) {
  simdjson::dom::element doc;
  if (parser.parse(padded).get(doc) || !doc.is_object()) bad_reply(where, "reply is not a JSON object");
  return doc;
}

std::vector<std::int32_t> read_ids(simdjson::dom::array arr, std::string_view where) {
  std::vector<std::int32_t> ids;
  ids.reserve(arr.size());
  for (simdjson::dom::element v : arr) {
    std::int64_t id = 0;
    if (v.get_int64().get(id) || id < 0 || id > std::numeric_limits<std::int32_t>::max()) {
      bad_reply(where, "\"tokens\" must hold non-negative integer ids");
    }
    ids.push_back(static_cast<std::int32_t>(id));
  }
  return ids;
}

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

HttpReply post(const ServerTokenizerOptions& opt, std::string_view path, const std::string& body) {
  HttpReply r = http_call(opt.endpoint, "POST", path, opt.headers, body, opt.timeout_s);
  if (r.status != 200) {
    throw UserError("server tokenizer: " + status_problem(opt.endpoint, path, r), ExitCode::unreachable);
  }
  return r;
}

}  // namespace

std::string tokenize_request_body(std::string_view model, std::string_view text, bool add_special_tokens) {
  std::string out = "{";
  if (!model.empty()) {
    out += "\"model\": ";
    append_json_string(out, model);
    out += ", ";
  }
  out += "\"prompt\": ";
  append_json_string(out, text);
  out += add_special_tokens ? ", \"add_special_tokens\": true}" : ", \"add_special_tokens\": false}";
  return out;
}

std::string detokenize_request_body(std::string_view model, const std::vector<std::int32_t>& ids) {
  std::string out = "{";
  if (!model.empty()) {
    out += "\"model\": ";
    append_json_string(out, model);
    out += ", ";
  }
  out += "\"tokens\": [";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(ids[i]);
  }
  out += "]}";
  return out;
}

TokenizeReply parse_tokenize_reply(std::string_view body, std::string_view where) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(body);
  const simdjson::dom::element doc = parse_object(parser, padded, where);
  TokenizeReply out;
  simdjson::dom::array tokens;
  const bool has_tokens = !doc["tokens"].get_array().get(tokens);
  if (has_tokens) out.tokens = read_ids(tokens, where);
  std::uint64_t count = 0;
  if (!doc["count"].get_uint64().get(count)) {
    out.count = static_cast<std::size_t>(count);
  } else if (has_tokens) {
    out.count = out.tokens.size();
  } else {
    bad_reply(where, "reply has neither \"count\" nor \"tokens\" (is this vLLM's /tokenize?)");
  }
  if (has_tokens && out.tokens.size() != out.count) {
    bad_reply(where, fmt::format("\"count\" is {} but \"tokens\" holds {} ids", out.count, out.tokens.size()));
  }
  std::int64_t max_len = 0;
  if (!doc["max_model_len"].get_int64().get(max_len) && max_len > 0 &&
      max_len <= std::numeric_limits<int>::max()) {
    out.max_model_len = static_cast<int>(max_len);
  }
  return out;
}

std::string parse_detokenize_reply(std::string_view body, std::string_view where) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(body);
  const simdjson::dom::element doc = parse_object(parser, padded, where);
  std::string_view prompt;
  if (doc["prompt"].get_string().get(prompt)) bad_reply(where, "reply has no string \"prompt\"");
  return std::string(prompt);
}

ServerTokenizer::ServerTokenizer(ServerTokenizerOptions opt, std::size_t num_special_to_add,
                                 std::optional<int> max_model_len)
    : opt_(std::move(opt)), num_special_to_add_(num_special_to_add), max_model_len_(max_model_len) {}

TokenizeReply ServerTokenizer::tokenize(std::string_view text, bool add_special_tokens) const {
  const HttpReply r = post(opt_, kTokenizePath, tokenize_request_body(opt_.model, text, add_special_tokens));
  return parse_tokenize_reply(r.body, "server tokenizer: " + opt_.endpoint.url(kTokenizePath));
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
  const HttpReply r = post(opt_, kDetokenizePath, detokenize_request_body(opt_.model, ids));
  return parse_detokenize_reply(r.body, "server tokenizer: " + opt_.endpoint.url(kDetokenizePath));
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
                                     tokenize_request_body(opt.model, kProbeText, true), opt.timeout_s);
    if (with.status == 404 || with.status == 405) {
      out.unavailable_reason = fmt::format("the server has no POST {} (HTTP {})", where, with.status);
      return out;
    }
    if (with.status != 200) {
      out.unavailable_reason = status_problem(opt.endpoint, kTokenizePath, with);
      return out;
    }
    const TokenizeReply a = parse_tokenize_reply(with.body, where);
    const std::size_t plain = ServerTokenizer(opt).count(kProbeText, false);
    const std::size_t specials = a.count > plain ? a.count - plain : 0;
    out.tokenizer = std::make_unique<ServerTokenizer>(opt, specials, a.max_model_len);
  } catch (const UserError& e) {
    // Unreachable or not vLLM's shape: the run goes on with approximate lengths and says why.
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
