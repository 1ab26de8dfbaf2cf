// One of the few translation units that include Beast (its HTTP parser).
#include "exec/response_reader.hpp"

#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>

#include "exec/keep_alive_header.hpp"

namespace sb {
namespace {

namespace http = boost::beast::http;
using boost::system::error_code;
using boost::beast::string_view;

// What a response head said that the sink is told. Kept by the reader across its parsers, so a
// content type longer than a short string's inline room is not allocated again per response.
struct Head {
  int status = 0;
  std::string reason;
  std::string content_type;  // the first Content-Type field of the header, trailers never
  bool has_content_type = false;
  int keep_alive_timeout_s = -1;  // the header's Keep-Alive: timeout=N, -1 = none

  void clear() {
    status = 0;
    reason.clear();
    content_type.clear();
    has_content_type = false;
    keep_alive_timeout_s = -1;
  }
  // 1xx but 101: an interim response (RFC 9110 15.2), skipped; 101 is final.
  bool interim() const { return status >= 100 && status < 200 && status != 101; }
};

// Beast's HTTP/1.1 framing (status line, fields, chunked, Content-Length or close-delimited body,
// keep-alive) with what it finds handed straight on: the head's three values to the sink once the
// header is complete, each run of body bytes where it lies (de-chunked, a view into the read
// buffer). Beast's own http::parser kept every header field in a container of its own (an
// allocation and a tree insert per field per response) for the one field the sink reads.
class SinkParser final : public http::basic_parser<false> {
 public:
  explicit SinkParser(Head& head) : head_(head) {}
  ResponseSink* sink = nullptr;
  Nanos t_ns = 0;        // when the read holding the bytes being parsed returned
  bool refused = false;  // the sink found the body malformed: parsing stopped there

 private:
  void on_request_impl(http::verb, string_view, string_view, int, error_code&) override {}
  void on_response_impl(int code, string_view reason, int, error_code&) override {
    head_.status = code;
    head_.reason.assign(reason.data(), reason.size());
  }
  void on_field_impl(http::field name, string_view, string_view value, error_code&) override {
    // Trailer fields come after the header is done: a trailer Content-Type changes nothing.
    if (is_header_done()) return;
    if (name == http::field::keep_alive) {
      head_.keep_alive_timeout_s = sb::keep_alive_timeout_s(std::string_view(value.data(), value.size()));
      return;
    }
    if (name != http::field::content_type || head_.has_content_type) return;
    head_.content_type.assign(value.data(), value.size());
    head_.has_content_type = true;
  }
  void on_header_impl(error_code&) override {
    if (!head_.interim()) sink->on_headers(head_.status, head_.reason, head_.content_type);
  }
  void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
  std::size_t on_body_impl(string_view body, error_code& ec) override { return deliver(body, ec); }
  void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code& ec) override {
    return deliver(body, ec);
  }
  void on_finish_impl(error_code&) override {}

  std::size_t deliver(string_view body, error_code& ec) {
    if (!sink->on_body(std::string_view(body.data(), body.size()), t_ns)) {
      refused = true;
      ec = http::error::body_limit;  // any error stops the parser; feed() reports the sink's own
      return 0;
    }
    return body.size();
  }

  Head& head_;
};

constexpr std::uint32_t kHeaderLimitBytes = 64 * 1024;

void reset_parser(std::optional<SinkParser>& p, Head& head) {
  p.reset();
  head.clear();
  p.emplace(head);
  p->body_limit(std::numeric_limits<std::uint64_t>::max());
  // Beast enforces its header limit only once a header arrived in pieces, not in one read; well
  // above any real response head, so where reads split never decides (http_response_fuzz).
  p->header_limit(kHeaderLimitBytes);
  // The whole response as far as the bytes go. The sink hears of the head from on_header_impl,
  // before any body byte, with the header's own fields only (trailers cannot change them).
  p->eager(true);
}

void skip_leading_newlines(ReadBuffer& buf) {
  const auto* bytes = static_cast<const char*>(buf.data().data());
  std::size_t n = 0;
  while (n < buf.size() && (bytes[n] == '\r' || bytes[n] == '\n')) ++n;
  buf.consume(n);
}

}  // namespace

struct ResponseReader::Impl {
  Head head;  // before the parser: outlives it
  std::optional<SinkParser> parser;
  // No status line yet: empty lines are skipped, however the reads split them (before the first
  // response, and after an interim one).
  bool awaiting_status = true;

  // Runs the buffered bytes through the parser into the sink. False: stop reading (malformed; `ec`
  // stays clear when it was the sink that refused the body). An interim 1xx response is parsed and
  // dropped: the parser starts over on the bytes after it.
  bool feed(ReadBuffer& buf, ResponseSink& sink, Nanos t_ns, error_code& ec) {
    while (buf.size() > 0 && !parser->is_done()) {
      if (awaiting_status) {
        skip_leading_newlines(buf);
        if (buf.size() == 0) break;
        awaiting_status = false;
      }
      SinkParser& p = *parser;
      p.sink = &sink;
      p.t_ns = t_ns;
      const std::size_t used = p.put(buf.data(), ec);
      buf.consume(used);
      if (p.refused) {
        ec = {};
        return false;
      }
      if (p.is_header_done() && head.interim()) {
        reset_parser(parser, head);
        awaiting_status = true;
        if (ec == http::error::need_more || ec == http::error::need_buffer) ec = {};
        if (ec) return false;
        continue;
      }
      if (ec == http::error::need_more) { ec = {}; break; }
      if (ec) return false;
      if (used == 0) break;
    }
    return true;
  }
};

ResponseReader::ResponseReader() : impl_(std::make_unique<Impl>()) { reset_parser(impl_->parser, impl_->head); }
ResponseReader::~ResponseReader() = default;

void ResponseReader::start() {
  reset_parser(impl_->parser, impl_->head);
  impl_->awaiting_status = true;
}

ResponseReader::Step ResponseReader::on_read(ReadBuffer& buf, ResponseSink& sink, RequestRecord& rec, Nanos t_ns,
                                             std::string& error) {
  if (rec.first_byte_ns < 0) {
    skip_leading_newlines(buf);  // nothing of the response yet: empty lines are no response byte
    if (buf.size() > 0) rec.first_byte_ns = t_ns;
  }
  error_code ec;
  if (!impl_->feed(buf, sink, t_ns, ec)) {
    if (ec) error = ec.message();
    return Step::malformed;
  }
  return impl_->parser->is_done() ? Step::done : Step::more;
}

bool ResponseReader::end_at_eof() {
  SinkParser& p = *impl_->parser;
  if (!p.is_header_done()) return false;
  error_code ec;
  p.put_eof(ec);  // a body delimited by connection close ends here
  return !ec && p.is_done();
}

bool ResponseReader::header_done() const { return impl_->parser->is_header_done(); }
bool ResponseReader::keep_alive() const { return impl_->parser->keep_alive(); }
int ResponseReader::keep_alive_timeout_s() const { return impl_->head.keep_alive_timeout_s; }

}  // namespace sb
