#pragma once
// An in-memory ByteStream for the worker's tests: each connection answers the requests written to
// it with scripted reads (any bytes, split anywhere), and can fail connect, reset, close or time out
// at any point. FakeNetwork hands out the scripted connections in order, as the worker's pool asks
// for them, and logs what the client did (connects, requests written, closes, when each read returned).
#include <boost/asio/awaitable.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "net/connection.hpp"

namespace sb::test {

// One read: the bytes it returns (at most the reader's buffer; the rest stays for the next read),
// or, when `error` is set, the error it fails with.
struct FakeRead {
  std::string bytes;
  boost::system::error_code error;
};

inline FakeRead fake_eof() { return {"", boost::asio::error::eof}; }
inline FakeRead fake_reset() { return {"", boost::asio::error::connection_reset}; }
inline FakeRead fake_timeout() { return {"", timeout_error()}; }

// `bytes` as reads of `step` bytes each (1: split at every byte).
inline std::vector<FakeRead> fake_reads(const std::string& bytes, std::size_t step) {
  std::vector<FakeRead> reads;
  for (std::size_t i = 0; i < bytes.size(); i += step) reads.push_back({bytes.substr(i, step), {}});
  return reads;
}

// What one connection does. responses[i] answers the i-th request written to it; past its reads
// (or with no response scripted) a read fails with end of file, as when the server closes.
struct FakeConnScript {
  std::vector<std::vector<FakeRead>> responses;
  ConnectError connect_error;    // connect() fails like this when set
  bool stale_when_idle = false;  // the server closes it as soon as it has answered: usable() is false
  // After answering this many requests the server has closed it: usable() (the look at the socket)
  // sees the close, open() (this side's view) does not.
  std::size_t closed_after = static_cast<std::size_t>(-1);
  // How many of the requests written to it reached the server (its TCP acknowledged them); later
  // ones met a socket the server had closed (bytes_acked() does not count them).
  std::size_t acked_requests = static_cast<std::size_t>(-1);
  std::size_t fail_writes_from = static_cast<std::size_t>(-1);  // the n-th write and later fail (broken pipe)
  // Reads wait (yielding) until this many connections were opened on the network: requests
  // submitted one after another then overlap however the threads are scheduled.
  int hold_reads_until_connects = 0;
};

struct FakeLog {
  int connects = 0;
  int closes = 0;
  mutable int looks = 0;               // usable() calls: a look at a real socket (a recv)
  std::vector<std::string> requests;   // each request as written (head and body)
  std::vector<Nanos> read_returned_ns;  // now_ns() as each read that returned bytes handed them over
};

class FakeStream final : public ByteStream {
 public:
  FakeStream(FakeConnScript script, FakeLog& log) : script_(std::move(script)), log_(&log) {}

  boost::asio::awaitable<void> connect(Deadline, ConnectError& error) override {
    ++log_->connects;
    error = script_.connect_error;
    connected_ = !error.failed();
    co_return;
  }
  boost::asio::awaitable<std::size_t> write(boost::asio::const_buffer head, boost::asio::const_buffer body,
                                            boost::system::error_code& ec) override {
    ec = {};
    if (closed_ || writes_++ >= script_.fail_writes_from) ec = boost::asio::error::broken_pipe;
    if (!ec) {
      if (served_ < script_.acked_requests) acked_ += head.size() + body.size();
      log_->requests.emplace_back(static_cast<const char*>(head.data()), head.size());
      log_->requests.back().append(static_cast<const char*>(body.data()), body.size());
      pending_.clear();
      if (served_ < script_.responses.size()) {
        const auto& r = script_.responses[served_];
        pending_.assign(r.begin(), r.end());
      }
      ++served_;
    }
    co_return ec ? 0 : head.size() + body.size();
  }
  boost::asio::awaitable<std::size_t> read_some(boost::asio::mutable_buffer into,
                                                boost::system::error_code& ec) override {
    while (log_->connects < script_.hold_reads_until_connects) {
      co_await boost::asio::post(co_await boost::asio::this_coro::executor, boost::asio::use_awaitable);
    }
    ec = {};
    if (closed_) ec = boost::asio::error::operation_aborted;
    else if (pending_.empty()) ec = boost::asio::error::eof;
    else if (pending_.front().error) ec = pending_.front().error;
    if (ec) {
      if (!pending_.empty()) pending_.pop_front();
      co_return 0;
    }
    std::string& bytes = pending_.front().bytes;
    const std::size_t n = std::min(bytes.size(), into.size());
    std::memcpy(into.data(), bytes.data(), n);
    bytes.erase(0, n);
    if (bytes.empty()) pending_.pop_front();
    log_->read_returned_ns.push_back(now_ns());
    co_return n;
  }
  void expires_at(Deadline) override {}
  void close() override {
    if (!closed_) ++log_->closes;
    closed_ = true;
  }
  bool usable() const override {
    ++log_->looks;
    return open() && !(script_.stale_when_idle && served_ > 0) && served_ < script_.closed_after;
  }
  bool open() const override { return connected_ && !closed_; }
  std::uint64_t bytes_acked() const override { return acked_; }

 private:
  FakeConnScript script_;
  FakeLog* log_;
  std::deque<FakeRead> pending_;  // what is left of the current response
  std::size_t served_ = 0;
  std::size_t writes_ = 0;
  std::uint64_t acked_ = 0;
  bool connected_ = false;
  bool closed_ = false;
};

// The connections the worker will get, in order. Past the scripted ones, connect is refused.
class FakeNetwork {
 public:
  void add(FakeConnScript script) { scripts_.push_back(std::move(script)); }
  std::function<std::unique_ptr<ByteStream>()> factory() {
    return [this]() -> std::unique_ptr<ByteStream> {
      ++made_;
      FakeConnScript s;
      if (!scripts_.empty()) {
        s = std::move(scripts_.front());
        scripts_.pop_front();
      } else {
        s.connect_error.step = ConnectError::Step::connect;
        s.connect_error.ec = boost::asio::error::connection_refused;
      }
      return std::make_unique<FakeStream>(std::move(s), log);
    };
  }
  int made() const { return made_; }

  FakeLog log;

 private:
  std::deque<FakeConnScript> scripts_;
  int made_ = 0;
};

}  // namespace sb::test
