// One of the few translation units that include Beast (its HTTP parser).
#include "exec/response_reader.hpp"

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <array>
#include <cstddef>
#include <limits>
#include <memory_resource>
#include <optional>
#include <tuple>

namespace sb {
namespace {

namespace http = boost::beast::http;
using boost::system::error_code;
// The parser keeps each header field in its own allocation: with the default allocator that was a
// malloc and a free per field per response (~2,000 instructions per response, glibc's malloc the
// worker's largest user-space cost after the JSON parse). A per-connection arena, released when the
// next response starts, holds them instead.
using FieldAlloc = std::pmr::polymorphic_allocator<char>;

// A Beast body that hands each run of body bytes to the sink where the parser found it (de-chunked,
// a view into the read buffer). Beast's buffer_body copied every body byte into a scratch buffer
// first, and the sink read them from there: 13 KB per 64-token response.
struct SinkBody {
  struct value_type {
    ResponseSink* sink = nullptr;
    Nanos t_ns = 0;        // when the read holding these bytes returned
    bool refused = false;  // the sink found the body malformed: parsing stopped there
  };
  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(http::header<isRequest, Fields>&, value_type& body) : body_(body) {}
    void init(const boost::optional<std::uint64_t>&, error_code& ec) { ec = {}; }
    std::size_t put(boost::asio::const_buffer bytes, error_code& ec) {
      ec = {};
      if (!body_.sink->on_body(std::string_view(static_cast<const char*>(bytes.data()), bytes.size()), body_.t_ns)) {
        body_.refused = true;
        ec = http::error::body_limit;  // any error stops the parser; feed() reports the sink's own
        return 0;
      }
      return bytes.size();
    }
    void finish(error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

using Parser = http::response_parser<SinkBody, FieldAlloc>;

constexpr std::uint32_t kHeaderLimitBytes = 64 * 1024;
constexpr std::size_t kFieldArenaBytes = 4 * 1024;  // a usual response head; longer ones use the heap too

struct FieldArena {
  std::array<std::byte, kFieldArenaBytes> bytes;
  std::pmr::monotonic_buffer_resource resource{bytes.data(), bytes.size(), std::pmr::new_delete_resource()};
};

void reset_parser(std::optional<Parser>& p, FieldArena& arena) {
  p.reset();  // its fields go back to the arena (a no-op) before the arena starts over
  arena.resource.release();
  p.emplace(std::piecewise_construct, std::make_tuple(), std::make_tuple(FieldAlloc(&arena.resource)));
  p->body_limit(std::numeric_limits<std::uint64_t>::max());
  // Beast enforces its header limit only once a header arrived in pieces, not in one read; well
  // above any real response head, so where reads split never decides (http_response_fuzz).
  p->header_limit(kHeaderLimitBytes);
  // Not eager until the header is done: the first put stops there, so the header's fields are read
  // before the body is parsed. Eager from the start, one read holding a whole chunked response let
  // Beast merge its trailer fields (a trailer "Content-Type: text/event-stream") into the header
  // before we read it, and whether the response was a stream depended on how reads split it
  // (http_response_fuzz's long run).
  p->eager(false);
}

void skip_leading_newlines(ReadBuffer& buf) {
  const auto* bytes = static_cast<const char*>(buf.data().data());
  std::size_t n = 0;
  while (n < buf.size() && (bytes[n] == '\r' || bytes[n] == '\n')) ++n;
  buf.consume(n);
}

}  // namespace

struct ResponseReader::Impl {
  FieldArena arena;  // before the parser: outlives its fields
  std::optional<Parser> parser;
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
      Parser& p = *parser;
      const bool had_header = p.is_header_done();
      p.get().body() = SinkBody::value_type{&sink, t_ns, false};
      const std::size_t used = p.put(buf.data(), ec);
      buf.consume(used);
      if (p.get().body().refused) {
        ec = {};
        return false;
      }
      if (!had_header && p.is_header_done()) {
        const auto& h = p.get();
        const unsigned status = h.result_int();
        if (status >= 100 && status < 200 && status != 101) {
          reset_parser(parser, arena);
          awaiting_status = true;
          if (ec == http::error::need_more || ec == http::error::need_buffer) ec = {};
          if (ec) return false;
          continue;
        }
        p.eager(true);  // the header is read: parse the body as far as the bytes go
        const auto ct = h[http::field::content_type];
        sink.on_headers(static_cast<int>(status), std::string_view(h.reason().data(), h.reason().size()),
                        std::string_view(ct.data(), ct.size()));
      }
      if (ec == http::error::need_more) { ec = {}; break; }
      if (ec) return false;
      if (used == 0) break;
    }
    return true;
  }
};

ResponseReader::ResponseReader() : impl_(std::make_unique<Impl>()) { reset_parser(impl_->parser, impl_->arena); }
ResponseReader::~ResponseReader() = default;

void ResponseReader::start() {
  reset_parser(impl_->parser, impl_->arena);
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
  Parser& p = *impl_->parser;
  if (!p.is_header_done()) return false;
  error_code ec;
  p.put_eof(ec);  // a body delimited by connection close ends here
  return !ec && p.is_done();
}

bool ResponseReader::header_done() const { return impl_->parser->is_header_done(); }
bool ResponseReader::keep_alive() const { return impl_->parser->keep_alive(); }

}  // namespace sb
