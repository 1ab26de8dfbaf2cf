// `servebench run` against servers that close their keep-alive connections without saying so
// (issue 27): right after each reply or some milliseconds later (llama.cpp closes every streamed
// reply's connection), after every k-th reply, and on an idle timeout (uvicorn, llama.cpp), at
// c = 1, 8 and 64 and in open-loop rate mode. In every mode: no request fails, completed == sent,
// the server read each request exactly once (and the test request before the load), and the
// requests sent again are counted (`resent`). The server answers each reply and then waits
// before its close, reading nothing, so a request written meanwhile meets the close as it does on
// a real server: unread, answered with a reset, or met by the FIN on the way.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

#include "e2e/fault_server.hpp"
#include "e2e/run_process.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;

struct Load {
  const char* name;
  std::vector<std::string> flags;
  int requests;
  int concurrency;  // closed loop: the limit; open loop: 0
  double rate;      // open loop: requests per second
};

const std::vector<Load>& loads() {
  static const std::vector<Load> l = {
      {"c1", {"--max-concurrency", "1"}, 16, 1, 0},
      {"c8", {"--max-concurrency", "8"}, 40, 8, 0},
      {"c64", {"--max-concurrency", "64"}, 160, 64, 0},
      {"rate", {"--request-rate", "300"}, 60, 0, 300},
  };
  return l;
}

// The requests that can be on reused connections before the client has seen the server close any:
// those sent in the close's delay after the first replies (a connection each, closed loop), plus a
// few for the second look the pool needs.
int most_resent(const Load& l, int close_ms) {
  const int in_flight = l.concurrency > 0 ? l.concurrency : static_cast<int>(l.rate * (close_ms + 100) / 1000.0);
  return std::min(l.requests, in_flight + 4);
}

struct RaceCase {
  std::string name;
  KeepAliveClose close;
  Load load;
};

std::ostream& operator<<(std::ostream& os, const RaceCase& c) { return os << c.name; }

std::vector<RaceCase> race_cases() {
  std::vector<RaceCase> out;
  for (int ms : {0, 1, 5, 10, 50, 150}) {
    for (const Load& l : loads()) {
      KeepAliveClose c;
      c.after_reply_ms = ms;
      out.push_back({"close_" + std::to_string(ms) + "ms_" + l.name, c, l});
    }
  }
  for (const Load& l : loads()) {
    KeepAliveClose every3;  // a connection serves three requests, then closes 5 ms after the third reply
    every3.after_reply_ms = 5;
    every3.every_kth = 3;
    out.push_back({std::string("every_3rd_") + l.name, every3, l});
  }
  return out;
}

// What the run left: the first stage, and each check every mode shares.
struct RaceRun {
  Json stage;
  int resent = 0;
};

RaceRun run_against(const FaultServer& server, const std::string& tag, const std::vector<std::string>& load_flags,
                    int requests) {
  TempDir dir(tag);
  std::vector<std::string> args = {"--host", "127.0.0.1", "--port", server.port_text(), "--model", "m1",
                                   "--num-prompts", std::to_string(requests), "--random-input-len", "4",
                                   "--random-output-len", "3", "--output-json", "r.json",
                                   "--request-id-prefix", "race-"};
  args.insert(args.end(), load_flags.begin(), load_flags.end());
  const RunResult r = run_servebench(args, dir.path, {}, 120);
  RaceRun out;
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return out;
  out.stage = Json::parse(slurp(dir.path / "r.json"))["stages"][0];
  const int sent = out.stage["servebench"]["sent"].get<int>();
  out.resent = out.stage["servebench"].value("resent", -1);
  EXPECT_EQ(sent, requests);
  EXPECT_EQ(out.stage["completed"].get<int>(), sent) << out.stage["servebench"]["errors"].dump() << "\n" << r.out;
  EXPECT_EQ(out.stage["failed"].get<int>(), 0);

  // Each request read once by the server, the test request once before them.
  std::map<std::string, int> times;
  for (const std::string& id : server.received_ids()) ++times[id];
  EXPECT_EQ(times["race-preflight"], 1);
  times.erase("race-preflight");
  EXPECT_EQ(static_cast<int>(times.size()), sent) << "requests the server never read";
  for (const auto& [id, n] : times) EXPECT_EQ(n, 1) << id << " reached the server " << n << " times";

  // Resent requests are counted per request in the JSONL too, and said on screen.
  int retries = 0;
  std::istringstream lines(slurp(dir.path / "r.requests.jsonl"));
  for (std::string line; std::getline(lines, line);) retries += Json::parse(line)["retries"].get<int>();
  EXPECT_EQ(retries, out.resent);
  if (out.resent > 0) {
    EXPECT_NE(r.out.find("went again on a fresh connection"), std::string::npos) << r.out;
  }
  return out;
}

class KeepAliveRace : public ::testing::TestWithParam<RaceCase> {};

TEST_P(KeepAliveRace, NoPhantomFailureAndEveryRequestReadOnce) {
  const RaceCase& rc = GetParam();
  FaultServer server(Fault::none, rc.close);
  ASSERT_NE(server.port(), 0);
  const RaceRun run = run_against(server, "race_" + rc.name, rc.load.flags, rc.load.requests);
  // Once the server is seen closing after its replies, requests get connections of their own
  // instead of racing it: only those already on their way race it, once.
  if (rc.close.every_kth == 1) {
    EXPECT_LE(run.resent, most_resent(rc.load, rc.close.after_reply_ms)) << "the pool kept racing the server's close";
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, KeepAliveRace, ::testing::ValuesIn(race_cases()),
                         [](const ::testing::TestParamInfo<RaceCase>& info) { return info.param.name; });

// A server that keeps its connections open (none of the above): nothing resent, and connections
// reused: the load's 8, and what the preparation opens before it (the test request's, the engine
// probes': 8 against this server, before this change as after it).
TEST(KeepAliveRaceBaseline, KeptOpenConnectionsAreReusedAndNothingIsResent) {
  FaultServer server(Fault::none);
  const RaceRun run = run_against(server, "race_keep", {"--max-concurrency", "8", "--client-threads", "1"}, 80);
  EXPECT_EQ(run.resent, 0);
  EXPECT_LE(server.connections(), 8 + 8);
}

// Every 3rd reply closes the connection: the pool keeps reusing (a server that keeps connections
// most of the time is no "closes after every reply" server).
TEST(KeepAliveRaceBaseline, ServerClosingAfterEveryThirdReplyKeepsItsConnectionsReused) {
  KeepAliveClose every3;
  every3.after_reply_ms = 5;
  every3.every_kth = 3;
  FaultServer server(Fault::none, every3);
  run_against(server, "race_every3_reuse", {"--max-concurrency", "4", "--client-threads", "1"}, 60);
  // 60 requests on connections of three requests each: about 20 (and a fresh one for each request
  // that met a close), never one per request as a server closing after every reply gets.
  EXPECT_LE(server.connections(), 60 * 3 / 4);
}

// Idle timeouts. uvicorn (vLLM's server) closes a connection idle for its timeout at once, and says
// nothing of it; llama.cpp's says `Keep-Alive: timeout=N` and keeps to it. Poisson arrivals put
// idle gaps on both sides of the limit.
TEST(KeepAliveRaceIdle, UvicornLikeIdleTimeoutNeverFailsARequest) {
  KeepAliveClose idle;
  idle.idle_timeout_ms = 100;
  idle.shutdown_first = false;
  FaultServer server(Fault::none, idle);
  run_against(server, "race_idle_uvicorn", {"--request-rate", "10"}, 40);
}

TEST(KeepAliveRaceIdle, AdvertisedKeepAliveTimeoutIsKeptClearOf) {
  KeepAliveClose idle;
  idle.idle_timeout_ms = 1000;
  idle.advertise_timeout_s = 1;
  FaultServer server(Fault::none, idle);
  const RaceRun run = run_against(server, "race_idle_advertised", {"--request-rate", "2.5", "--seed", "3"}, 12);
  // A connection idle for half the advertised second is not reused, so none meets the close.
  EXPECT_EQ(run.resent, 0);
}

}  // namespace
}  // namespace sb::e2e
