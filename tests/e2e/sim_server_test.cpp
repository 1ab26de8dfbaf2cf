// End-to-end: the real `servebench sim` binary on a free port, driven over raw HTTP.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "e2e/run_process.hpp"
#include "sim/raw_http_client.hpp"
#include "sim/token_log.hpp"
#include "support/timing_bounds.hpp"

namespace {

using sb::sim::get_request;
using sb::sim::http_exchange;
using sb::sim::post_request;
using sb::sim::RawResponse;

// Starts `servebench sim --port 0 ARGS...`, reads "listening on http://127.0.0.1:PORT" from its stdout.
class SimProcess {
 public:
  explicit SimProcess(std::vector<std::string> args) {
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::close(out[0]);
      std::vector<std::string> all = {SB_BINARY, "sim", "--port", "0"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(SB_BINARY, argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    stdout_ = ::fdopen(out[0], "r");
    char line[256] = {};
    if (!std::fgets(line, sizeof line, stdout_)) return;  // port_ stays 0: the test fails on it
    first_line_ = line;
    const auto colon = first_line_.rfind(':');
    if (first_line_.rfind("listening on http://127.0.0.1:", 0) == 0) port_ = static_cast<std::uint16_t>(std::stoi(first_line_.substr(colon + 1)));
  }
  ~SimProcess() {
    if (pid_ > 0 && !stopped_) stop();
    if (stdout_) std::fclose(stdout_);
  }
  std::uint16_t port() const { return port_; }
  // SIGTERM; returns the exit status (or -1 when killed by a signal).
  int stop() {
    stopped_ = true;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  std::FILE* stdout_ = nullptr;
  std::string first_line_;
  std::uint16_t port_ = 0;
  bool stopped_ = false;
};

const std::string kBody =
    R"({"model":"sim-model","prompt":"hello there","max_tokens":4,"stream":true,"stream_options":{"include_usage":true}})";

TEST(SimE2e, StreamsCompletionsAndExitsCleanlyOnSigterm) {
  SimProcess sim({"--ttft-ms", "5", "--itl-ms", "2"});
  ASSERT_NE(sim.port(), 0);
  const RawResponse models = http_exchange(sim.port(), get_request("/v1/models"));
  EXPECT_EQ(nlohmann::json::parse(models.body)["data"][0]["id"], "sim-model");
  const RawResponse r = http_exchange(sim.port(), post_request("/v1/completions", kBody));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("Content-Type"), "text/event-stream");
  EXPECT_TRUE(r.complete);
  ASSERT_EQ(r.events.size(), 6u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(nlohmann::json::parse(r.events[i])["choices"].size(), 1u);
  const auto usage = nlohmann::json::parse(r.events[4]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["completion_tokens"], 4);
  EXPECT_EQ(r.events[5], "[DONE]");
  EXPECT_EQ(sim.stop(), 0);
}

TEST(SimE2e, UsageInLastChunkFlag) {
  SimProcess sim({"--ttft-ms", "1", "--itl-ms", "1", "--usage-in-last-chunk"});
  const RawResponse r = http_exchange(sim.port(), post_request("/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":3,"stream":true,"stream_options":{"include_usage":true}})"));
  ASSERT_EQ(r.events.size(), 4u);  // 3 chunks + [DONE]
  const auto last = nlohmann::json::parse(r.events[2]);
  EXPECT_EQ(last["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(last["usage"]["completion_tokens"], 3);
}

TEST(SimE2e, ApiKeyAndUnknownModel) {
  SimProcess sim({"--api-key", "sekret", "--served-model-name", "llama"});
  EXPECT_EQ(http_exchange(sim.port(), get_request("/v1/models")).status, 401);
  const std::string auth = "Authorization: Bearer sekret\r\n";
  EXPECT_EQ(http_exchange(sim.port(), get_request("/v1/models", auth)).status, 200);
  const RawResponse r = http_exchange(sim.port(), post_request("/v1/completions", kBody, auth));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["message"], "The model `sim-model` does not exist.");
}

TEST(SimE2e, EngineServesThePresetNameUnlessTold) {
  SimProcess sim({"--cost", "engine", "--model-preset", "llama-3.2-1b", "--gpu-preset", "l4", "--time-scale", "100"});
  ASSERT_NE(sim.port(), 0);
  const RawResponse models = http_exchange(sim.port(), get_request("/v1/models"));
  EXPECT_EQ(nlohmann::json::parse(models.body)["data"][0]["id"], "llama-3.2-1b");
  EXPECT_EQ(nlohmann::json::parse(models.body)["data"][0]["max_model_len"], 8192);  // the preset's context
  EXPECT_EQ(http_exchange(sim.port(), post_request("/v1/completions",
      R"({"model":"llama-3.2-1b","prompt":"hi","max_tokens":9000})")).status, 400);
  const RawResponse r = http_exchange(sim.port(), post_request("/v1/completions",
      R"({"model":"llama-3.2-1b","prompt":"a \"quoted\" prompt","max_tokens":3,"ignore_eos":true,"stream":false})"));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["model"], "llama-3.2-1b");
  EXPECT_EQ(body["usage"]["completion_tokens"], 3);
  SimProcess named({"--cost", "engine", "--model-preset", "llama-3.2-1b", "--served-model-name", "mine"});
  const RawResponse m2 = http_exchange(named.port(), get_request("/v1/models"));
  EXPECT_EQ(nlohmann::json::parse(m2.body)["data"][0]["id"], "mine");
}

// Each cost model's flags belong to it: never ignored in silence.
TEST(SimE2e, FlagsOfTheOtherCostModelAreRefusedNamingTheFlag) {
  sb::e2e::TempDir dir("sim_cost_flags");
  const auto engine_flag_on_fixed = sb::e2e::run_subcommand(
      {"sim", "--port", "0", "--cost", "fixed", "--model-preset", "llama-3-8b", "--max-num-seqs", "32"}, dir.path, "a", {}, 20);
  EXPECT_EQ(engine_flag_on_fixed.code, 2);
  EXPECT_NE(engine_flag_on_fixed.err.find("--model-preset is a flag of the engine model: it needs --cost engine"),
            std::string::npos) << engine_flag_on_fixed.err;
  const auto fixed_flag_on_engine =
      sb::e2e::run_subcommand({"sim", "--port", "0", "--cost", "engine", "--ttft-ms", "500"}, dir.path, "b", {}, 20);
  EXPECT_EQ(fixed_flag_on_engine.code, 2);
  EXPECT_NE(fixed_flag_on_engine.err.find("--ttft-ms is a flag of --cost fixed"), std::string::npos)
      << fixed_flag_on_engine.err;
  const auto both = sb::e2e::run_subcommand({"sim", "--port", "0", "--itl-ms", "5", "--gpu-preset", "h100"},
                                            dir.path, "c", {}, 20);
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("--itl-ms is a flag of --cost fixed and --gpu-preset one of --cost engine"),
            std::string::npos) << both.err;
}

TEST(SimE2e, AnEngineFlagWithoutCostSelectsTheEngine) {
  SimProcess sim({"--model-preset", "llama-3.2-1b", "--max-num-seqs", "32", "--time-scale", "100"});
  ASSERT_NE(sim.port(), 0);
  const RawResponse models = http_exchange(sim.port(), get_request("/v1/models"));
  EXPECT_EQ(nlohmann::json::parse(models.body)["data"][0]["id"], "llama-3.2-1b");  // the engine's name, not sim-model
}

TEST(SimE2e, EngineDrawsOutputLengthsWhenEosIsAllowed) {
  SimProcess sim({"--cost", "engine", "--model-preset", "llama-3.2-1b", "--time-scale", "100",
                  "--eos-mean-output-tokens", "8", "--seed", "3"});
  ASSERT_NE(sim.port(), 0);
  std::set<int> lengths;
  int stops = 0;
  for (int i = 0; i < 8; ++i) {
    const RawResponse r = http_exchange(sim.port(), post_request("/v1/completions",
        R"({"model":"llama-3.2-1b","prompt":"hi","max_tokens":1000,"stream":false})"));
    ASSERT_EQ(r.status, 200) << r.body;
    const auto body = nlohmann::json::parse(r.body);
    lengths.insert(body["usage"]["completion_tokens"].get<int>());
    stops += body["choices"][0]["finish_reason"] == "stop" ? 1 : 0;
  }
  EXPECT_EQ(stops, 8);              // exponential, mean 8: P(length >= 1000) is nil
  EXPECT_GE(lengths.size(), 3u);    // drawn, not constant
  EXPECT_LT(*lengths.rbegin(), 1000);
  const RawResponse fixed = http_exchange(sim.port(), post_request("/v1/completions",
      R"({"model":"llama-3.2-1b","prompt":"hi","max_tokens":40,"ignore_eos":true,"stream":false})"));
  EXPECT_EQ(nlohmann::json::parse(fixed.body)["usage"]["completion_tokens"], 40);
}

TEST(SimE2e, ListPresetsPrintsEveryModelAndGpu) {
  const std::string cmd = std::string(SB_BINARY) + " sim --list-presets 2>&1";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  EXPECT_EQ(WEXITSTATUS(::pclose(p)), 0);
  for (const char* name : {"llama-3-8b", "llama-3-70b", "qwen3-32b", "llama-3.2-1b", "h100", "h200", "mi300x",
                           "mi250", "a100", "l4", "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X"}) {
    EXPECT_NE(text.find(name), std::string::npos) << name << "\n" << text;
  }
}

// Outcome of one request as a client would classify it.
std::string classify(const RawResponse& r) {
  if (r.status != 200) return "http_" + std::to_string(r.status);
  if (!r.complete) return "dropped";
  for (const auto& e : r.events) {
    if (e != "[DONE]" && nlohmann::json::parse(e, nullptr, false).is_discarded()) return "malformed";
  }
  return "ok";
}

TEST(SimE2e, FaultsAreSeededAndEveryKindOccurs) {
  const std::vector<std::string> args = {"--ttft-ms", "0", "--itl-ms", "0", "--seed", "9", "--fail-ratio", "0.25",
                                         "--fail-status", "429", "--drop-ratio", "0.25", "--malformed-ratio", "0.25"};
  std::vector<std::string> first, second;
  for (auto* out : {&first, &second}) {
    SimProcess sim(args);
    for (int i = 0; i < 60; ++i) {
      const std::string id = "x-request-id: req-" + std::to_string(i) + "\r\n";
      out->push_back(classify(http_exchange(sim.port(), post_request("/v1/completions", kBody, id))));
    }
  }
  EXPECT_EQ(first, second);  // same seed and request ids: same faults
  std::map<std::string, int> count;
  for (const auto& c : first) ++count[c];
  EXPECT_GT(count["ok"], 3);
  EXPECT_GT(count["http_429"], 3);
  EXPECT_GT(count["dropped"], 3);
  EXPECT_GT(count["malformed"], 3);
  EXPECT_EQ(count.size(), 4u);
}

TEST(SimE2e, MetricsCountTokens) {
  SimProcess sim({"--ttft-ms", "0", "--itl-ms", "0"});
  for (int i = 0; i < 3; ++i) http_exchange(sim.port(), post_request("/v1/completions", kBody));
  const RawResponse m = http_exchange(sim.port(), get_request("/metrics"));
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("vllm:generation_tokens_total{model_name=\"sim-model\"} 12\n"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("vllm:request_success_total{model_name=\"sim-model\",finished_reason=\"length\"} 3\n"),
            std::string::npos);
}

TEST(SimE2e, MaxConcurrencyQueuesTheSecondRequest) {
  SimProcess sim({"--ttft-ms", "100", "--itl-ms", "1", "--max-concurrency", "1"});
  const std::string body = R"({"prompt":"x","max_tokens":2,"stream":true})";
  std::vector<sb::Nanos> ttft(2);
  std::vector<std::thread> clients;
  const sb::Nanos t0 = sb::now_ns();
  for (int i = 0; i < 2; ++i) {
    clients.emplace_back([&, i] {
      const RawResponse r = http_exchange(sim.port(), post_request("/v1/completions", body));
      ttft[i] = r.event_ns.empty() ? 0 : r.event_ns[0] - t0;
    });
  }
  for (auto& c : clients) c.join();
  const auto [fast, slow] = std::minmax(ttft[0], ttft[1]);
  EXPECT_GE(fast, 100'000'000);
  EXPECT_GE(slow, 200'000'000);  // waited for the first one's 100 ms + 1 ms in the FIFO
}

TEST(SimE2e, TokenLogMatchesClientTimes) {
  const auto log = std::filesystem::temp_directory_path() / ("sim_e2e_tokens_" + std::to_string(::getpid()));
  std::vector<RawResponse> responses(4);
  {
    SimProcess sim({"--ttft-ms", "5", "--itl-ms", "5", "--token-log", log.string()});
    std::vector<std::thread> clients;
    for (int i = 0; i < 4; ++i) {
      clients.emplace_back([&, i] {
        const std::string body = R"({"prompt":"x","max_tokens":20,"stream":true})";
        responses[i] = http_exchange(sim.port(), post_request("/v1/completions", body,
                                                              "x-request-id: t" + std::to_string(i) + "\r\n"));
      });
    }
    for (auto& c : clients) c.join();
    ASSERT_EQ(sim.stop(), 0);  // the log is flushed on exit
  }
  std::ifstream in(log);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "# servebench-sim token-log v1: send_ns request_id token_index");
  std::map<std::string, std::vector<sb::Nanos>> sent;
  sb::Nanos ns = 0;
  std::string id;
  int index = 0;
  while (in >> ns >> id >> index) {
    EXPECT_EQ(index, static_cast<int>(sent[id].size()));
    sent[id].push_back(ns);
  }
  std::filesystem::remove(log);
  for (int i = 0; i < 4; ++i) {
    const auto& s = sent["t" + std::to_string(i)];
    const auto& r = responses[i].event_ns;
    ASSERT_EQ(s.size(), 20u);
    ASSERT_GE(r.size(), 20u);
    for (int k = 0; k < 20; ++k) {
      EXPECT_GE(r[k], s[k]);
      EXPECT_LT(r[k] - s[k], 1e9 * sb::test_timing::prompt_s(0.02));  // recv follows send closely on loopback (lenient for busy CI)
    }
  }
}

// Request ids of a token log, each once.
std::set<std::string> token_log_ids(const std::filesystem::path& log) {
  std::set<std::string> ids;
  for (const sb::sim::TokenLogRow& row : sb::sim::read_token_log(log)) ids.insert(row.request_id);
  return ids;
}

// Two simulators with --reuse-port share one port: the kernel spreads the client's connections over
// both, each logs the requests it served, and together they served every request once. A third
// without the flag cannot bind the port.
TEST(SimE2e, ReusePortSharesOnePortBetweenSimulators) {
  namespace fs = std::filesystem;
  sb::e2e::TempDir dir("sim_reuse_port");
  fs::create_directories(dir.path / "a");
  fs::create_directories(dir.path / "b");
  std::set<std::string> served_a, served_b;
  std::string run_err;
  int run_code = -1;
  {
    sb::e2e::Sim a({"--reuse-port", "--ttft-ms", "1", "--itl-ms", "1", "--token-log", "tokens.log"}, dir.path / "a");
    ASSERT_NE(a.port(), 0) << sb::e2e::slurp(dir.path / "a" / "sim.err");
    const pid_t b = sb::e2e::spawn({"sim", "--port", a.port_text(), "--reuse-port", "--ttft-ms", "1", "--itl-ms", "1",
                                    "--token-log", "tokens.log"},
                                   dir.path / "b", "sim");
    for (int i = 0; i < 500 && sb::e2e::slurp(dir.path / "b" / "sim.out").find('\n') == std::string::npos; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_NE(sb::e2e::slurp(dir.path / "b" / "sim.out").find("listening on"), std::string::npos)
        << sb::e2e::slurp(dir.path / "b" / "sim.err");
    const sb::e2e::RunResult taken = sb::e2e::run_subcommand({"sim", "--port", a.port_text()}, dir.path, "taken", {}, 10);
    EXPECT_EQ(taken.code, 2);
    EXPECT_NE(taken.err.find("cannot listen on 127.0.0.1:" + a.port_text()), std::string::npos) << taken.err;
    // 64 connections (one per request in flight): all on one of the two listeners has odds 2^-63.
    const sb::e2e::RunResult r = sb::e2e::run_servebench(
        {"--port", a.port_text(), "--concurrency", "64", "--num-prompts", "128", "--random-input-len", "8",
         "--random-output-len", "4", "--ignore-eos", "--no-preflight-request", "--requests-jsonl", "r.jsonl"},
        dir.path);
    run_code = r.code;
    run_err = r.err;
    ::kill(b, SIGTERM);
    EXPECT_EQ(sb::e2e::wait_exit(b, 10), 0);
  }  // a's destructor stops it: both logs are complete now
  ASSERT_EQ(run_code, 0) << run_err;
  served_a = token_log_ids(dir.path / "a" / "tokens.log");
  served_b = token_log_ids(dir.path / "b" / "tokens.log");
  EXPECT_GT(served_a.size(), 0u);
  EXPECT_GT(served_b.size(), 0u);
  std::set<std::string> sent;
  std::ifstream jsonl(dir.path / "r.jsonl");
  for (std::string line; std::getline(jsonl, line);) sent.insert(nlohmann::json::parse(line)["request_id"].get<std::string>());
  EXPECT_EQ(sent.size(), 128u);
  EXPECT_EQ(served_a.size() + served_b.size(), sent.size());  // no request served twice
  std::set<std::string> served = served_a;
  served.insert(served_b.begin(), served_b.end());
  EXPECT_EQ(served, sent);
}

TEST(SimE2e, BadFlagIsAConfigError) {
  const std::string cmd = std::string(SB_BINARY) + " sim --fail-status 404 2>&1";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  char buf[512] = {};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, p);
  const int status = ::pclose(p);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(std::string(buf, n).find("--fail-status"), std::string::npos) << buf;
}

}  // namespace
