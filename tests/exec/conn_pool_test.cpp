// The worker's keep-alive pool on stub connections: LIFO reuse, stale connections dropped, and the
// idle count the dispatcher reads staying equal to the idle list through reservations.
#include "exec/conn_pool.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

// Only usable() and close() matter to the pool; the I/O members are never called here.
class PoolStub final : public ByteStream {
 public:
  PoolStub(int id, int& closes, int& looks) : id_(id), closes_(&closes), looks_(&looks) {}
  boost::asio::awaitable<void> connect(Deadline, ConnectError&) override { co_return; }
  boost::asio::awaitable<std::size_t> write(boost::asio::const_buffer, boost::asio::const_buffer,
                                            boost::system::error_code&) override { co_return 0; }
  boost::asio::awaitable<std::size_t> read_some(boost::asio::mutable_buffer, boost::system::error_code&) override {
    co_return 0;
  }
  void expires_at(Deadline) override {}
  void close() override {
    if (!closed) ++*closes_;
    closed = true;
  }
  bool usable() const override {
    ++*looks_;
    return !closed && !stale;
  }
  bool open() const override { return !closed; }
  int id() const { return id_; }

  bool stale = false;
  bool closed = false;

 private:
  int id_;
  int* closes_;
  int* looks_;
};

struct PoolRig {
  StreamDecoder decoder{Api::completions};
  std::atomic<int> idle_count{0};
  int made = 0;
  int closes = 0;
  int looks = 0;  // usable() calls: a recv on a real socket
  static constexpr Nanos kTrustedIdleNs = 1'000'000;
  ConnectionPool pool{[this] { return std::make_unique<PoolStub>(++made, closes, looks); }, decoder, false, idle_count,
                      kTrustedIdleNs};

  static PoolStub& stub(PooledConn& c) { return static_cast<PoolStub&>(*c.stream); }
  // What Worker::submit does before the worker thread runs the request.
  bool reserve() {
    int idle = idle_count.load();
    while (idle > 0 && !idle_count.compare_exchange_weak(idle, idle - 1)) {}
    return idle > 0;
  }
};

TEST(ConnectionPool, ReusesTheMostRecentlyReleasedConnectionFirst) {
  PoolRig rig;
  auto a = rig.pool.acquire(false, 0);
  auto b = rig.pool.acquire(false, 0);
  EXPECT_EQ(rig.made, 2);
  rig.pool.release(std::move(a), true, 0);
  rig.pool.release(std::move(b), true, 0);
  EXPECT_EQ(rig.idle_count.load(), 2);
  auto c = rig.pool.acquire(false, 0);
  EXPECT_EQ(PoolRig::stub(*c).id(), 2);
  EXPECT_EQ(rig.idle_count.load(), 1);
  auto d = rig.pool.acquire(false, 0);
  EXPECT_EQ(PoolRig::stub(*d).id(), 1);
  EXPECT_EQ(rig.idle_count.load(), 0);
  EXPECT_EQ(rig.made, 2);
  rig.pool.release(std::move(c), false, 0);  // not kept: closed, not idle
  EXPECT_EQ(rig.closes, 1);
  EXPECT_EQ(rig.pool.idle(), 0u);
}

TEST(ConnectionPool, StaleIdleConnectionsAreClosedAndSkipped) {
  PoolRig rig;
  std::vector<std::unique_ptr<PooledConn>> conns;
  for (int i = 0; i < 3; ++i) conns.push_back(rig.pool.acquire(false, 0));
  PoolRig::stub(*conns[0]).stale = true;
  PoolRig::stub(*conns[2]).stale = true;
  for (auto& c : conns) rig.pool.release(std::move(c), true, 0);
  auto got = rig.pool.acquire(false, 0);
  EXPECT_EQ(PoolRig::stub(*got).id(), 2);  // 3 was stale
  EXPECT_EQ(rig.closes, 1);
  EXPECT_EQ(rig.pool.idle(), 1u);
  EXPECT_EQ(rig.idle_count.load(), 1);
  auto next = rig.pool.acquire(false, 0);  // 1 is stale too: a new one
  EXPECT_EQ(PoolRig::stub(*next).id(), 4);
  EXPECT_EQ(rig.closes, 2);
  EXPECT_EQ(rig.idle_count.load(), 0);
}

TEST(ConnectionPool, IdleCountMatchesTheIdleListThroughReservations) {
  PoolRig rig;
  rig.pool.release(rig.pool.acquire(false, 0), true, 0);
  ASSERT_EQ(rig.idle_count.load(), 1);
  // Reserved and served from the list.
  ASSERT_TRUE(rig.reserve());
  auto c = rig.pool.acquire(true, 0);
  EXPECT_EQ(rig.idle_count.load(), 0);
  EXPECT_EQ(rig.made, 1);
  rig.pool.release(std::move(c), true, 0);
  // Reserved, but an unreserved request took the connection first: the unit comes back.
  ASSERT_TRUE(rig.reserve());
  auto other = rig.pool.acquire(false, 0);
  auto mine = rig.pool.acquire(true, 0);
  EXPECT_EQ(rig.made, 2);
  EXPECT_EQ(rig.idle_count.load(), 0);
  rig.pool.release(std::move(other), true, 0);
  rig.pool.release(std::move(mine), true, 0);
  EXPECT_EQ(rig.idle_count.load(), 2);
  EXPECT_EQ(rig.pool.idle(), 2u);
}

TEST(ConnectionPool, ReservedStaleConnectionIsReplacedWithoutLosingCount) {
  PoolRig rig;
  auto a = rig.pool.acquire(false, 0);
  auto b = rig.pool.acquire(false, 0);
  PoolRig::stub(*b).stale = true;
  rig.pool.release(std::move(a), true, 0);
  rig.pool.release(std::move(b), true, 0);  // top of the list, stale
  ASSERT_TRUE(rig.reserve());
  auto got = rig.pool.acquire(true, 0);
  EXPECT_EQ(PoolRig::stub(*got).id(), 1);
  EXPECT_EQ(rig.idle_count.load(), 0);
  EXPECT_EQ(rig.pool.idle(), 0u);
}

// A connection kept open across a reused request and idle for less than kTrustedIdleNs is taken
// without a look at its socket; one that has not proved itself, or idled longer, is looked at.
TEST(ConnectionPool, TrustsOnlyAProvenConnectionIdleForLessThanTheLimit) {
  PoolRig rig;
  constexpr Nanos t = 5'000'000'000;
  // Not proven yet (no reused request kept it): looked at however soon it is taken again, and a
  // stale one is dropped.
  auto c = rig.pool.acquire(false, t);
  PoolRig::stub(*c).stale = true;
  rig.pool.release(std::move(c), true, t);
  auto fresh = rig.pool.acquire(false, t + 1000);
  EXPECT_EQ(rig.looks, 1);
  EXPECT_EQ(PoolRig::stub(*fresh).id(), 2);
  EXPECT_EQ(rig.closes, 1);
  // Proven (the worker sets kept_before): taken within the limit without a look, even though a
  // look would have found it stale; the request would then fail unacknowledged and go again.
  fresh->kept_before = true;
  PoolRig::stub(*fresh).stale = true;
  rig.pool.release(std::move(fresh), true, t);
  auto trusted = rig.pool.acquire(false, t + PoolRig::kTrustedIdleNs - 1);
  EXPECT_EQ(rig.looks, 1);
  EXPECT_EQ(PoolRig::stub(*trusted).id(), 2);
  // At the limit: looked at again, found stale, replaced.
  rig.pool.release(std::move(trusted), true, t);
  auto after = rig.pool.acquire(false, t + PoolRig::kTrustedIdleNs);
  EXPECT_EQ(rig.looks, 2);
  EXPECT_EQ(PoolRig::stub(*after).id(), 3);
  // Closed on this side: never taken, trusted or not.
  after->kept_before = true;
  PoolRig::stub(*after).closed = true;
  rig.pool.release(std::move(after), true, t);
  EXPECT_EQ(PoolRig::stub(*rig.pool.acquire(false, t + 1)).id(), 4);
  EXPECT_EQ(rig.looks, 2);
}

TEST(ConnectionPool, CancelClosesOnlyTheConnectionsInUse) {
  PoolRig rig;
  auto busy = rig.pool.acquire(false, 0);
  rig.pool.release(rig.pool.acquire(false, 0), true, 0);
  rig.pool.track(busy.get());
  rig.pool.cancel_active();
  EXPECT_TRUE(busy->cancelled);
  EXPECT_TRUE(PoolRig::stub(*busy).closed);
  EXPECT_EQ(rig.closes, 1);
  rig.pool.untrack(busy.get());
}

TEST(ConnectionPool, UntrackInAnyOrderLeavesExactlyTheOthersToCancel) {
  PoolRig rig;
  std::vector<std::unique_ptr<PooledConn>> c;
  for (int i = 0; i < 4; ++i) c.push_back(rig.pool.acquire(false, 0));
  for (auto& x : c) rig.pool.track(x.get());
  rig.pool.untrack(c[1].get());  // from the middle: the last takes its place
  rig.pool.untrack(c[3].get());  // the one that moved
  rig.pool.cancel_active();
  EXPECT_TRUE(c[0]->cancelled);
  EXPECT_FALSE(c[1]->cancelled);
  EXPECT_TRUE(c[2]->cancelled);
  EXPECT_FALSE(c[3]->cancelled);
  EXPECT_EQ(rig.closes, 2);
  rig.pool.untrack(c[0].get());
  rig.pool.untrack(c[2].get());
  rig.pool.track(c[3].get());
  rig.pool.cancel_active();
  EXPECT_TRUE(c[3]->cancelled);
  EXPECT_EQ(rig.closes, 3);
  rig.pool.untrack(c[3].get());
}

// A pool that judges the server's keep-alive: reply closes within 300 ms of the reply.
struct JudgingPoolRig : PoolRig {
  static constexpr Nanos kWindowNs = 300'000'000;
  ConnectionPool judging{[this] { return std::make_unique<PoolStub>(++made, closes, looks); }, decoder, false,
                         idle_count, kTrustedIdleNs, kWindowNs};
};

constexpr Nanos kPoolMs = 1'000'000;

// Two connections that served a request each and went idle at `t`; their stubs, to close them
// from the server's side later.
std::pair<PoolStub*, PoolStub*> two_served_idle(ConnectionPool& pool, Nanos t) {
  auto a = pool.acquire(false, t);
  auto b = pool.acquire(false, t);
  std::pair<PoolStub*, PoolStub*> stubs{&PoolRig::stub(*a), &PoolRig::stub(*b)};
  a->used = b->used = true;
  pool.release(std::move(a), true, t);
  pool.release(std::move(b), true, t);
  return stubs;
}

TEST(ConnectionPool, ServerClosingRightAfterEveryReplyGetsANewConnectionPerRequest) {
  JudgingPoolRig rig;
  ConnectionPool& pool = rig.judging;
  const Nanos t = 1000 * kPoolMs;
  const auto [pa, pb] = two_served_idle(pool, t);
  pa->stale = pb->stale = true;  // the server closed both a millisecond after its reply (llama.cpp)
  auto x = pool.acquire(false, t + 2 * kPoolMs);
  EXPECT_EQ(PoolRig::stub(*x).id(), 3);  // both looked at, found closed, dropped
  EXPECT_EQ(rig.closes, 2);
  EXPECT_TRUE(pool.fresh_per_request());

  // From now on a served connection waits for the server's close instead of going idle...
  PoolStub* px = &PoolRig::stub(*x);
  x->used = true;
  pool.release(std::move(x), true, t + 3 * kPoolMs);
  EXPECT_EQ(pool.idle(), 0u);
  EXPECT_EQ(pool.closing(), 1u);
  EXPECT_EQ(rig.idle_count.load(), 0);
  // ...and each request gets a new one, however soon it comes.
  auto y = pool.acquire(false, t + 4 * kPoolMs);
  EXPECT_EQ(PoolRig::stub(*y).id(), 4);
  EXPECT_EQ(rig.closes, 2);  // x is still open: not closed from this side
  px->stale = true;          // the server closes x: this side closes it next (no TIME_WAIT here)
  pool.release(std::move(y), true, t + 5 * kPoolMs);
  EXPECT_EQ(rig.closes, 3);
  EXPECT_EQ(pool.closing(), 1u);
  // One the server keeps open is closed from this side after two seconds.
  auto z = pool.acquire(false, t + 3000 * kPoolMs);
  EXPECT_EQ(PoolRig::stub(*z).id(), 5);
  EXPECT_EQ(pool.closing(), 0u);
  EXPECT_EQ(rig.closes, 4);
}

TEST(ConnectionPool, ServerClosingAfterEveryThirdReplyKeepsItsConnectionsReused) {
  JudgingPoolRig rig;
  ConnectionPool& pool = rig.judging;
  for (int conn = 0; conn < 20; ++conn) {  // each connection: two kept reuses, then a close
    pool.saw_kept_reuse();
    pool.saw_kept_reuse();
    pool.saw_reply_close();
  }
  EXPECT_FALSE(pool.fresh_per_request());
  // Every reply closing from then on tips it once closes outnumber kept reuses twice over.
  for (int i = 0; i < 60; ++i) pool.saw_reply_close();
  EXPECT_FALSE(pool.fresh_per_request());  // 80 closes, 40 kept: not yet more than twice
  pool.saw_reply_close();
  EXPECT_TRUE(pool.fresh_per_request());
}

TEST(ConnectionPool, IdleTimeoutClosesDoNotMakeItANewConnectionPerRequestServer) {
  JudgingPoolRig rig;
  ConnectionPool& pool = rig.judging;
  const Nanos t = 1000 * kPoolMs;
  for (int round = 0; round < 3; ++round) {
    auto c = pool.acquire(false, t);
    PoolStub* p = &PoolRig::stub(*c);
    c->used = true;
    pool.release(std::move(c), true, t);
    p->stale = true;  // closed by the server's 5 s idle timeout
    auto next = pool.acquire(false, t + 5000 * kPoolMs);
    pool.release(std::move(next), false, t);
  }
  EXPECT_EQ(rig.made, 6);
  EXPECT_FALSE(pool.fresh_per_request());
}

TEST(ConnectionPool, AdvertisedKeepAliveTimeoutIsKeptClearOf) {
  JudgingPoolRig rig;
  ConnectionPool& pool = rig.judging;
  const Nanos t = 1000 * kPoolMs;
  auto c = pool.acquire(false, t);
  c->used = true;
  c->server_idle_limit_ns = 1000 * kPoolMs;  // Keep-Alive: timeout=1
  pool.release(std::move(c), true, t);
  auto same = pool.acquire(false, t + 499 * kPoolMs);
  EXPECT_EQ(PoolRig::stub(*same).id(), 1);
  pool.release(std::move(same), true, t + 500 * kPoolMs);
  rig.looks = 0;
  auto next = pool.acquire(false, t + 1000 * kPoolMs);  // idle for half the server's limit: not reused
  EXPECT_EQ(PoolRig::stub(*next).id(), 2);
  EXPECT_EQ(rig.closes, 1);
  EXPECT_EQ(rig.looks, 0);  // closed without a look: its age decided
  EXPECT_FALSE(pool.fresh_per_request());
}

TEST(ConnectionPool, SwitchingToNewConnectionsKeepsTheIdleCountThroughReservations) {
  JudgingPoolRig rig;
  ConnectionPool& pool = rig.judging;
  const Nanos t = 1000 * kPoolMs;
  two_served_idle(pool, t);
  ASSERT_EQ(rig.idle_count.load(), 2);
  const bool reserved = rig.reserve();  // a request on its way to this worker counted one of them
  ASSERT_TRUE(reserved);
  pool.saw_reply_close();
  pool.saw_reply_close();
  ASSERT_TRUE(pool.fresh_per_request());
  EXPECT_EQ(pool.idle(), 0u);
  auto c = pool.acquire(reserved, t + kPoolMs);
  EXPECT_EQ(PoolRig::stub(*c).id(), 3);
  EXPECT_EQ(rig.idle_count.load(), 0);  // the reservation's unit came back; none is idle
  EXPECT_FALSE(rig.reserve());
}

}  // namespace
}  // namespace sb
