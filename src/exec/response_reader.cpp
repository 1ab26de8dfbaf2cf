// One of the few translation units that include Beast (its HTTP parser).
#include "exec/response_reader.hpp"

#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <limits>
#include <optional>

namespace sb {
namespace {

namespace http = boost::beast::http;
using boost::system::error_code;
using Parser = http::response_parser<http::buffer_body>;

constexpr std::uint32_t kHeaderLimitBytes = 64 * 1024;

void reset_parser(std::optional<Parser>& p) {
  p.emplace();
  p->body_limit(std::numeric_limits<std::uint64_t>::max());
  // Beast enforces its header limit only once a header arrived in pieces, not in one read; well
  // above any real response head, so where reads split never decides (http_response_fuzz).
  p->header_limit(kHeaderLimitBytes);
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
  std::optional<Parser> parser;
  // No status line yet: empty lines are skipped, however the reads split them (before the first
  // response, and after an interim one).
  bool awaiting_status = true;

  // Runs the buffered bytes through the parser into the sink. False: stop reading (malformed).
  // An interim 1xx response is parsed and dropped: the parser starts over on the bytes after it.
  bool feed(ReadBuffer& buf, ResponseSink& sink, std::vector<char>& scratch, Nanos t_ns, error_code& ec) {
    while (buf.size() > 0 && !parser->is_done()) {
      if (awaiting_status) {
        skip_leading_newlines(buf);
        if (buf.size() == 0) break;
        awaiting_status = false;
      }
      Parser& p = *parser;
      const bool had_header = p.is_header_done();
      p.get().body().data = scratch.data();
      p.get().body().size = scratch.size();
      const std::size_t used = p.put(buf.data(), ec);
      buf.consume(used);
      const std::size_t got = scratch.size() - p.get().body().size;
      if (!had_header && p.is_header_done()) {
        const auto& h = p.get();
        const unsigned status = h.result_int();
        if (status >= 100 && status < 200 && status != 101) {
          reset_parser(parser);
          awaiting_status = true;
          if (ec == http::error::need_more || ec == http::error::need_buffer) ec = {};
          if (ec) return false;
          continue;
        }
        const auto ct = h[http::field::content_type];
        sink.on_headers(static_cast<int>(status), std::string_view(h.reason().data(), h.reason().size()),
                        std::string_view(ct.data(), ct.size()));
      }
      if (got > 0 && !sink.on_body(std::string_view(scratch.data(), got), t_ns)) return false;
      if (ec == http::error::need_buffer) { ec = {}; continue; }
      if (ec == http::error::need_more) { ec = {}; break; }
      if (ec) return false;
      if (used == 0 && got == 0) break;
    }
    return true;
  }
};

ResponseReader::ResponseReader() : impl_(std::make_unique<Impl>()) { reset_parser(impl_->parser); }
ResponseReader::~ResponseReader() = default;

void ResponseReader::start() {
  reset_parser(impl_->parser);
  impl_->awaiting_status = true;
}

ResponseReader::Step ResponseReader::on_read(ReadBuffer& buf, ResponseSink& sink, RequestRecord& rec,
                                             std::vector<char>& scratch, Nanos t_ns, std::string& error) {
  if (rec.first_byte_ns < 0) {
    skip_leading_newlines(buf);  // nothing of the response yet: empty lines are no response byte
    if (buf.size() > 0) rec.first_byte_ns = t_ns;
  }
  error_code ec;
  if (!impl_->feed(buf, sink, scratch, t_ns, ec)) {
    if (ec) error = ec.message();
    return Step::malformed;
  }
  return impl_->parser->is_done() ? Step::done : Step::more;
}

bool ResponseReader::end_at_eof() {
  Parser& p = *impl_->parser;
  if (!p.is_header_done()) return false;
  error_code ec;
  p.put_eof(ec);  // a body delimited by connection close ends here
  return !ec && p.is_done();
}

bool ResponseReader::header_done() const { return impl_->parser->is_header_done(); }
bool ResponseReader::keep_alive() const { return impl_->parser->keep_alive(); }

}  // namespace sb
