// Sharded runs end to end (issue 16 "Done when", docs/distributed.md): 4 `servebench run --shard I/4`
// processes and, before them, one single-process run of the same plan against one fixed-cost
// `servebench sim`, then `servebench merge`. The merged sweep must equal the single run exactly in
// what is planned (completed, token totals, each request's intended send time and prompt) and
// within 3 % in what is measured (throughput, latency percentiles).
//
// Sizing: TTFT 100 ms + 2 x 20 ms ITL = 140 ms per request (3 output tokens): 3 % is 3 ms or more of
// every latency compared, above what the client's own event handling adds on a loaded 2-core
// machine (a single process serialises 32 streams' events that 4 shards handle side by side);
// 8 warm-ups open the connections first. 128 requests per stage: rate stages 200 and 400 req/s
// (0.64 s and 0.32 s of arrivals), concurrency stages 16 and 32 (8 and 4 waves of 140 ms). About
// 1.5 s per staircase and run.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/types.h>
#include <cstdlib>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "e2e/run_process.hpp"
#include "support/timing_bounds.hpp"

namespace sb::e2e {
namespace {

using Json = nlohmann::json;
using ShardRecordKey = std::pair<int, int>;  // (stage, index)

constexpr int kShardCount = 4;

struct ShardedSweep {
  Json single, merged;
  std::map<ShardRecordKey, Json> single_records;
  std::map<ShardRecordKey, std::vector<Json>> shard_records;  // a key in two shards would have 2 entries
  RunResult merge;
};

std::map<ShardRecordKey, std::vector<Json>> shard_read_records(const fs::path& jsonl) {
  std::map<ShardRecordKey, std::vector<Json>> out;
  std::istringstream in(slurp(jsonl));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    Json j = Json::parse(line);
    out[{j["stage"].get<int>(), j["index"].get<int>()}].push_back(std::move(j));
  }
  return out;
}

std::vector<std::string> shard_plan_args(const std::string& port, const std::vector<std::string>& load) {
  std::vector<std::string> a = {"run", "--port", port, "--no-preflight-request", "--num-prompts", "128", "--num-warmups", "8",
                                "--random-input-len", "16", "--random-output-len", "3", "--seed", "11",
                                "--disable-tqdm", "--client-threads", "1"};
  a.insert(a.end(), load.begin(), load.end());
  return a;
}

ShardedSweep run_sharded(const fs::path& dir, const std::vector<std::string>& load) {
  fs::create_directories(dir / "shards");
  // A 300 ms TTFT: the 3 % of a tail percentile (9 ms) is above the few ms one process can stall on a
  // loaded 2-core machine, which a 100 ms TTFT (3 ms) was not.
  Sim sim({"--ttft-ms", "300", "--itl-ms", "20"}, dir);
  EXPECT_NE(sim.port(), 0) << slurp(dir / "sim.err");
  // The single run first, then the shards: run side by side they would load each other's CPU (and
  // the simulator) differently, stage by stage, and the tails would differ by that.
  // --start-at gives it the shards' timing: its first stage 0.3 s after start-up, the barrier's
  // pause between stages (otherwise its first stage would start while the process is still warm).
  std::vector<std::string> single = shard_plan_args(sim.port_text(), load);
  const double start_at_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() + 0.3;
  single.insert(single.end(), {"--output-json", "single.json", "--start-at", std::to_string(start_at_s)});
  EXPECT_EQ(wait_exit(spawn(single, dir, "single"), 60), 0) << slurp(dir / "single.err");
  std::vector<pid_t> pids;
  for (int i = 0; i < kShardCount; ++i) {
    std::vector<std::string> a = shard_plan_args(sim.port_text(), load);
    a.insert(a.end(), {"--shard", std::to_string(i) + "/" + std::to_string(kShardCount), "--output-json",
                       "shards/s" + std::to_string(i) + ".json"});
    pids.push_back(spawn(a, dir, "shard" + std::to_string(i)));
  }
  for (std::size_t k = 0; k < pids.size(); ++k) {
    const std::string tag = "shard" + std::to_string(k);
    EXPECT_EQ(wait_exit(pids[k], 60), 0) << tag << ": " << slurp(dir / (tag + ".err"));
  }
  ShardedSweep s;
  s.merge = run_subcommand({"merge", "shards", "-o", "merged.json"}, dir, "merge");
  EXPECT_EQ(s.merge.code, 0) << s.merge.err;
  s.single = Json::parse(slurp(dir / "single.json"));
  s.merged = Json::parse(slurp(dir / "merged.json"));
  for (auto& [k, v] : shard_read_records(dir / "single.requests.jsonl")) s.single_records[k] = v.front();
  for (int i = 0; i < kShardCount; ++i)
    for (auto& [k, v] : shard_read_records(dir / "shards" / ("s" + std::to_string(i) + ".requests.jsonl")))
      for (Json& j : v) s.shard_records[k].push_back(std::move(j));
  return s;
}

// Planned quantities: equal exactly, request for request.
void shard_expect_same_plan(const ShardedSweep& s) {
  ASSERT_EQ(s.merged["stages"].size(), s.single["stages"].size());
  for (std::size_t k = 0; k < s.single["stages"].size(); ++k) {
    const Json& a = s.single["stages"][k];
    const Json& b = s.merged["stages"][k];
    for (const char* key : {"num_prompts", "completed", "failed", "total_input_tokens", "total_output_tokens"})
      EXPECT_EQ(a[key], b[key]) << "stage " << k << " " << key;
    EXPECT_EQ(a["completed"], 128) << "stage " << k;
    EXPECT_EQ(a["max_concurrency"], b["max_concurrency"]) << "stage " << k;
  }
  ASSERT_EQ(s.shard_records.size(), s.single_records.size());
  for (const auto& [key, single] : s.single_records) {
    const auto it = s.shard_records.find(key);
    ASSERT_NE(it, s.shard_records.end()) << "stage " << key.first << " request " << key.second << " in no shard";
    ASSERT_EQ(it->second.size(), 1u) << "stage " << key.first << " request " << key.second << " in two shards";
    const Json& shard = it->second.front();
    EXPECT_EQ(shard["intended_ms"], single["intended_ms"]) << key.first << "/" << key.second;
    EXPECT_EQ(shard["prompt_tokens"], single["prompt_tokens"]) << key.first << "/" << key.second;
    EXPECT_EQ(shard["expected_output_tokens"], single["expected_output_tokens"]) << key.first << "/" << key.second;
    EXPECT_TRUE(shard["shard"].is_number_integer());
    EXPECT_FALSE(single.contains("shard"));
  }
}

// "" when within `rel`, else what differs.
std::string shard_miss(const Json& a, const Json& b, const std::string& key, double rel, std::size_t stage) {
  if (!a[key].is_number() || !b[key].is_number()) return "stage " + std::to_string(stage) + " " + key + ": missing";
  const double x = a[key].get<double>(), y = b[key].get<double>();
  if (std::abs(x - y) <= rel * std::abs(x)) return "";
  std::ostringstream o;
  o << "stage " << stage << " " << key << ": single " << x << ", merged " << y;
  return o.str();
}

// Under AddressSanitizer (the asan preset; SB_UNDER_ASAN, support/timing_bounds.hpp) five instrumented
// processes share two cores and the sharded run's tails come out a few % longer, every time (p99
// TTFT +3-5 % in CI's asan pass): there the tails get 10 %, and the closed-loop stages' TPOT, whose
// 20 ms steps the sim keeps only as well as the starved host lets it, 8 % (seen: 4-7 % apart, in
// either direction, twice in a row, beside other engineers' builds). The 3 % goal is checked by
// the default build.
#ifdef SB_UNDER_ASAN
constexpr double kShardTailRel = 0.10;
constexpr double kShardMeasuredRel = 0.08;
#else
constexpr double kShardTailRel = 0.03;
constexpr double kShardMeasuredRel = 0.03;
#endif

// Measured quantities: within 3 % (the union's throughput is over its own wall time; 8 % under ASan).
std::vector<std::string> shard_measurement_misses(const ShardedSweep& s) {
  std::vector<std::string> misses;
  const auto check = [&](const Json& a, const Json& b, const std::string& key, std::size_t k) {
    const bool tail = key.rfind("p90_", 0) == 0 || key.rfind("p99_", 0) == 0;
    if (std::string m = shard_miss(a, b, key, tail ? kShardTailRel : kShardMeasuredRel, k); !m.empty())
      misses.push_back(std::move(m));
  };
  for (std::size_t k = 0; k < s.single["stages"].size(); ++k) {
    const Json& a = s.single["stages"][k];
    const Json& b = s.merged["stages"][k];
    for (const char* key : {"request_throughput", "output_throughput", "total_token_throughput", "duration"}) check(a, b, key, k);
    for (const char* metric : {"ttft", "e2el"})
      for (const char* stat : {"mean", "median", "p90", "p99"}) check(a, b, std::string(stat) + "_" + metric + "_ms", k);
    for (const char* key : {"median_tpot_ms", "median_itl_ms", "mean_tpot_ms"}) check(a, b, key, k);
  }
  return misses;
}

// On a shared 2-core machine a 5-150 ms stall of one process (the single run's or one shard's) moves a
// p90/p99 by more than 3 %, in either direction. Such a pair is measured again, single run and shards
// afresh, up to twice, and one pair must agree: a real difference shows in all three. (On a
// Firecracker VM in CI's suite the first two pairs of the closed-loop staircase both missed, by a
// p99 TTFT 6 % apart; the retry of the whole test agreed.)
void shard_expect_measurements(const ShardedSweep& s, const std::function<ShardedSweep()>& again) {
  std::vector<std::string> misses = shard_measurement_misses(s);
  std::string text;
  for (int pair = 1; !misses.empty(); ++pair) {
    for (const auto& m : misses) text += "\n  pair " + std::to_string(pair) + ": " + m;
    if (pair == 3) break;
    misses = shard_measurement_misses(again());
  }
  EXPECT_TRUE(misses.empty()) << text;
}

class ShardMerge : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rate_dir_ = new TempDir("shard_rate");
    rate_ = new ShardedSweep(run_sharded(rate_dir_->path, {"--request-rate", "200", "400"}));
  }
  static void TearDownTestSuite() {
    delete rate_;
    delete rate_dir_;
  }
  static TempDir* rate_dir_;
  static ShardedSweep* rate_;
};

TempDir* ShardMerge::rate_dir_ = nullptr;
ShardedSweep* ShardMerge::rate_ = nullptr;

TEST_F(ShardMerge, RateStaircaseEqualsTheSingleRun) {
  shard_expect_same_plan(*rate_);
  shard_expect_measurements(*rate_, [] {
    // A fresh folder each time: the shards' barrier files of an earlier pair would let them through.
    static int pair = 0;
    const TempDir again("shard_rate_again" + std::to_string(++pair));
    return run_sharded(again.path, {"--request-rate", "200", "400"});
  });
  // The open-loop stages' schedule is a real one: the last request is intended at 128 / 200 s.
  EXPECT_NEAR(rate_->single_records.at({0, 127})["intended_ms"].get<double>(), 640.0, 1e-6);
}

TEST_F(ShardMerge, MergedDocumentKeepsPerShardFigures) {
  const Json& shards = rate_->merged["shards"];
  EXPECT_EQ(shards["count"], kShardCount);
  ASSERT_EQ(shards["stages"].size(), 2u);
  int requests = 0, completed = 0;
  for (const Json& f : shards["stages"][0]["shards"]) {
    requests += f["requests"].get<int>();
    completed += f["completed"].get<int>();
    EXPECT_LT(std::abs(f["start_offset_ms"].get<double>()), 1e3 * sb::test_timing::prompt_s(0.05)) << f.dump();  // one barrier start
  }
  EXPECT_EQ(requests, 128);
  EXPECT_EQ(completed, 128);
  EXPECT_TRUE(rate_->merged["merge_warnings"].is_array());
  EXPECT_TRUE(rate_->merged["analysis"].is_object());  // the knee, as for a single run
}

TEST_F(ShardMerge, RefusesAMissingShard) {
  const fs::path dir = rate_dir_->path;
  const RunResult r = run_subcommand({"merge", "shards/s0.json", "shards/s1.json", "shards/s3.json", "-o", "x.json"},
                                     dir, "merge_missing");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("shards 2 of 4 are missing"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
  EXPECT_FALSE(fs::exists(dir / "x.json"));
}

TEST_F(ShardMerge, RefusesShardsOfAnotherPlan) {
  const fs::path dir = rate_dir_->path;
  fs::create_directories(dir / "other");
  for (int i = 0; i < kShardCount; ++i) {
    const std::string s = "s" + std::to_string(i);
    Json doc = Json::parse(slurp(dir / "shards" / (s + ".json")));
    if (i == 2) doc["shard"]["plan_hash"] = "0123456789abcdef";  // as a shard of another plan records it
    std::ofstream(dir / "other" / (s + ".json")) << doc.dump();
    fs::copy_file(dir / "shards" / (s + ".requests.jsonl"), dir / "other" / (s + ".requests.jsonl"));
  }
  const RunResult r = run_subcommand({"merge", "other", "-o", "y.json"}, dir, "merge_other");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not one run"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "y.json"));
}

TEST(ShardMergeClosedLoop, ConcurrencyStaircaseEqualsTheSingleRun) {
  const TempDir dir("shard_conc");
  const ShardedSweep s = run_sharded(dir.path, {"--concurrency", "16", "32"});
  shard_expect_same_plan(s);
  shard_expect_measurements(s, [] {
    // A fresh folder each time: the shards' barrier files of an earlier pair would let them through.
    static int pair = 0;
    const TempDir again("shard_conc_again" + std::to_string(++pair));
    return run_sharded(again.path, {"--concurrency", "16", "32"});
  });
  // Each shard ran its share of the slots: 4 of 16 and 8 of 32, and of the prompts.
  const Json shard1 = Json::parse(slurp(dir.path / "shards" / "s1.json"));
  EXPECT_EQ(shard1["stages"][0]["max_concurrency"], 4);
  EXPECT_EQ(shard1["stages"][1]["max_concurrency"], 8);
  EXPECT_EQ(shard1["stages"][1]["num_prompts"], 32);
  EXPECT_EQ(shard1["shard"]["stages"][1]["plan_max_concurrency"], 32);
}

// A shard whose partners never come: one line naming them, after --barrier-timeout-s.
TEST(ShardBarrier, MissingShardTimesOutNamingIt) {
  const TempDir dir("shard_alone");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  std::vector<std::string> a = shard_plan_args(sim.port_text(), {"--concurrency", "2"});
  a.erase(a.begin());  // run_servebench adds "run"
  a.insert(a.end(), {"--shard", "0/2", "--output-json", "s0.json", "--barrier-timeout-s", "0.3"});
  const RunResult r = run_servebench(a, dir.path, {}, 30);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("stage barrier ready: shards 1 of 2 did not arrive within 0.3 s"), std::string::npos) << r.err;
}

TEST(ShardFlags, IndexedJobEnvironmentGivesTheShard) {
  const TempDir dir("shard_env");
  Sim sim({"--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  std::vector<std::string> a = shard_plan_args(sim.port_text(), {"--concurrency", "2"});
  a.erase(a.begin());
  a.insert(a.end(), {"--shards", "2", "--output-json", "s.json", "--barrier-timeout-s", "0.2"});
  // JOB_COMPLETION_INDEX out of range: refused before any request, naming the variable.
  const RunResult bad = run_servebench(a, dir.path, {{"JOB_COMPLETION_INDEX", "2"}}, 30);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("JOB_COMPLETION_INDEX='2' is not a shard index in 0..1"), std::string::npos) << bad.err;
  // In range: shard 1 of 2, which then waits for shard 0 (absent here) at the barrier.
  const RunResult ok = run_servebench(a, dir.path, {{"JOB_COMPLETION_INDEX", "1"}}, 30);
  EXPECT_NE(ok.err.find("shards 0 of 2 did not arrive"), std::string::npos) << ok.err;
}

// The realistic case: each shard in its own network namespace (its own interface and address, as
// a pod has), reaching the one simulator over a veth pair. Needs root and `ip netns`; skipped
// (with the reason) where the machine does not allow it, so CI never depends on it.
class ShardNetns : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces";
    tag_ = std::to_string(::getpid() % 100000);
    for (int i = 0; i < 2; ++i) {
      const std::string ns = netns(i), host = "sbh" + tag_ + std::to_string(i), peer = "sbp" + tag_ + std::to_string(i);
      const std::string net = "10.213." + std::to_string(i);
      const std::string cmd = "ip netns add " + ns + " && ip link add " + host + " type veth peer name " + peer +
                              " && ip link set " + peer + " netns " + ns + " && ip addr add " + net + ".1/30 dev " +
                              host + " && ip link set " + host + " up && ip netns exec " + ns + " ip addr add " + net +
                              ".2/30 dev " + peer + " && ip netns exec " + ns + " ip link set " + peer +
                              " up && ip netns exec " + ns + " ip link set lo up";
      if (std::system((cmd + " 2>/dev/null").c_str()) != 0)
        GTEST_SKIP() << "cannot create network namespace " << ns << " with a veth pair (ip netns, CAP_NET_ADMIN)";
      made_ = i + 1;
    }
  }
  void TearDown() override {
    // Deleting a namespace destroys its end of the veth pair, and with it the host's end.
    for (int i = 0; i < made_; ++i) (void)std::system(("ip netns del " + netns(i) + " 2>/dev/null").c_str());
    if (made_ == 0 && !tag_.empty()) (void)std::system(("ip netns del " + netns(0) + " 2>/dev/null").c_str());
  }
  std::string netns(int i) const { return "sbns" + tag_ + "-" + std::to_string(i); }
  std::string tag_;
  int made_ = 0;
};

TEST_F(ShardNetns, ShardsInTheirOwnNamespacesMergeToThePlan) {
  const TempDir dir("shard_netns");
  fs::create_directories(dir.path / "shards");
  Sim sim({"--host", "0.0.0.0", "--ttft-ms", "5", "--itl-ms", "5"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  std::string cmd = "cd " + dir.path.string() + " || exit 1; ";  // then both shards in the background
  for (int i = 0; i < 2; ++i) {
    const std::string n = std::to_string(i);
    cmd += "env -u OPENAI_API_KEY ip netns exec " + netns(i) + " " + SB_BINARY + " run --base-url http://10.213." + n +
           ".1:" + sim.port_text() + " --no-selftest --no-preflight-request --num-prompts 32 --random-input-len 8"
           " --random-output-len 3 --concurrency 2 4 --disable-tqdm --shard " + n + "/2 --output-json shards/s" + n +
           ".json --barrier-timeout-s 20 > ns" + n + ".out 2> ns" + n + ".err & ";
  }
  cmd += "wait";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(fs::exists(dir.path / "shards" / ("s" + std::to_string(i) + ".json")))
        << slurp(dir.path / ("ns" + std::to_string(i) + ".err"));
  const RunResult m = run_subcommand({"merge", "shards", "-o", "merged.json"}, dir.path, "merge");
  ASSERT_EQ(m.code, 0) << m.err;
  const Json merged = Json::parse(slurp(dir.path / "merged.json"));
  ASSERT_EQ(merged["stages"].size(), 2u);
  for (const Json& st : merged["stages"]) {
    EXPECT_EQ(st["completed"], 32);
    EXPECT_EQ(st["total_output_tokens"], 96);
  }
  // Each shard spoke to the simulator from its own namespace's address.
  const Json s1 = Json::parse(slurp(dir.path / "shards" / "s1.json"));
  EXPECT_EQ(s1["config"]["base_url"], "http://10.213.1.1:" + sim.port_text());
  std::map<ShardRecordKey, std::vector<Json>> all = shard_read_records(dir.path / "shards" / "s0.requests.jsonl");
  for (auto& [k, v] : shard_read_records(dir.path / "shards" / "s1.requests.jsonl"))
    for (Json& j : v) all[k].push_back(std::move(j));
  EXPECT_EQ(all.size(), 64u);  // 2 stages x 32 requests, each in exactly one shard
  for (const auto& [k, v] : all) EXPECT_EQ(v.size(), 1u) << k.first << "/" << k.second;
}

}  // namespace
}  // namespace sb::e2e
