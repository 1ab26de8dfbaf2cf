// The worker's keep-alive pool on stub connections: LIFO reuse, stale connections dropped, and the
// idle count the dispatcher reads staying equal to the idle list through reservations.
#include "exec/conn_pool.hpp"

#include <gtest/gtest.h>

namespace sb {
namespace {

// Only usable() and close() matter to the pool; the I/O members are never called here.
class PoolStub final : public ByteStream {
 public:
  PoolStub(int id, int& closes) : id_(id), closes_(&closes) {}
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
  bool usable() const override { return !closed && !stale; }
  int id() const { return id_; }

  bool stale = false;
  bool closed = false;

 private:
  int id_;
  int* closes_;
};

struct PoolRig {
  StreamDecoder decoder{Api::completions};
  std::atomic<int> idle_count{0};
  int made = 0;
  int closes = 0;
  ConnectionPool pool{[this] { return std::make_unique<PoolStub>(++made, closes); }, decoder, false, idle_count};

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
  auto a = rig.pool.acquire(false);
  auto b = rig.pool.acquire(false);
  EXPECT_EQ(rig.made, 2);
  rig.pool.release(std::move(a), true);
  rig.pool.release(std::move(b), true);
  EXPECT_EQ(rig.idle_count.load(), 2);
  auto c = rig.pool.acquire(false);
  EXPECT_EQ(PoolRig::stub(*c).id(), 2);
  EXPECT_EQ(rig.idle_count.load(), 1);
  auto d = rig.pool.acquire(false);
  EXPECT_EQ(PoolRig::stub(*d).id(), 1);
  EXPECT_EQ(rig.idle_count.load(), 0);
  EXPECT_EQ(rig.made, 2);
  rig.pool.release(std::move(c), false);  // not kept: closed, not idle
  EXPECT_EQ(rig.closes, 1);
  EXPECT_EQ(rig.pool.idle(), 0u);
}

TEST(ConnectionPool, StaleIdleConnectionsAreClosedAndSkipped) {
  PoolRig rig;
  std::vector<std::unique_ptr<PooledConn>> conns;
  for (int i = 0; i < 3; ++i) conns.push_back(rig.pool.acquire(false));
  PoolRig::stub(*conns[0]).stale = true;
  PoolRig::stub(*conns[2]).stale = true;
  for (auto& c : conns) rig.pool.release(std::move(c), true);
  auto got = rig.pool.acquire(false);
  EXPECT_EQ(PoolRig::stub(*got).id(), 2);  // 3 was stale
  EXPECT_EQ(rig.closes, 1);
  EXPECT_EQ(rig.pool.idle(), 1u);
  EXPECT_EQ(rig.idle_count.load(), 1);
  auto next = rig.pool.acquire(false);  // 1 is stale too: a new one
  EXPECT_EQ(PoolRig::stub(*next).id(), 4);
  EXPECT_EQ(rig.closes, 2);
  EXPECT_EQ(rig.idle_count.load(), 0);
}

TEST(ConnectionPool, IdleCountMatchesTheIdleListThroughReservations) {
  PoolRig rig;
  rig.pool.release(rig.pool.acquire(false), true);
  ASSERT_EQ(rig.idle_count.load(), 1);
  // Reserved and served from the list.
  ASSERT_TRUE(rig.reserve());
  auto c = rig.pool.acquire(true);
  EXPECT_EQ(rig.idle_count.load(), 0);
  EXPECT_EQ(rig.made, 1);
  rig.pool.release(std::move(c), true);
  // Reserved, but an unreserved request took the connection first: the unit comes back.
  ASSERT_TRUE(rig.reserve());
  auto other = rig.pool.acquire(false);
  auto mine = rig.pool.acquire(true);
  EXPECT_EQ(rig.made, 2);
  EXPECT_EQ(rig.idle_count.load(), 0);
  rig.pool.release(std::move(other), true);
  rig.pool.release(std::move(mine), true);
  EXPECT_EQ(rig.idle_count.load(), 2);
  EXPECT_EQ(rig.pool.idle(), 2u);
}

TEST(ConnectionPool, ReservedStaleConnectionIsReplacedWithoutLosingCount) {
  PoolRig rig;
  auto a = rig.pool.acquire(false);
  auto b = rig.pool.acquire(false);
  PoolRig::stub(*b).stale = true;
  rig.pool.release(std::move(a), true);
  rig.pool.release(std::move(b), true);  // top of the list, stale
  ASSERT_TRUE(rig.reserve());
  auto got = rig.pool.acquire(true);
  EXPECT_EQ(PoolRig::stub(*got).id(), 1);
  EXPECT_EQ(rig.idle_count.load(), 0);
  EXPECT_EQ(rig.pool.idle(), 0u);
}

TEST(ConnectionPool, CancelClosesOnlyTheConnectionsInUse) {
  PoolRig rig;
  auto busy = rig.pool.acquire(false);
  rig.pool.release(rig.pool.acquire(false), true);
  rig.pool.track(busy.get());
  rig.pool.cancel_active();
  EXPECT_TRUE(busy->cancelled);
  EXPECT_TRUE(PoolRig::stub(*busy).closed);
  EXPECT_EQ(rig.closes, 1);
  rig.pool.untrack(busy.get());
}

}  // namespace
}  // namespace sb
