// End-to-end (issue #14, "During every run"): --scrape-metrics against `servebench sim --cost engine`
// gives per stage exactly the simulator's own counters (requests, prompt and generation tokens,
// histogram counts), sees the server queue past --max-num-seqs and says so; --gpu-telemetry reads
// fake nvidia-smi / rocm-smi / amd-smi on PATH that print the documented formats (tests/data/telemetry/).
//
// Sizing: llama-3-8b on H100 at --time-scale 10 decodes a step in ~0.75 ms, so a 128-token output
// takes ~0.1 s. With --max-num-seqs 4, c=2 never queues on the server and c=8 always does; 32
// prompts per stage keep each stage near 1 s (four to six periodic scrapes at 250 ms).
#include <algorithm>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/host_clocks.hpp"
#include "e2e/run_process.hpp"
#include "sim/raw_http_client.hpp"
#include "support/timing_bounds.hpp"
#include "target/prom_text.hpp"

namespace sb::e2e {
namespace {

using sb::sim::get_request;
using sb::sim::http_exchange;
using sb::sim::post_request;

TEST(TelemetryE2e, ScrapeMetricsMatchesTheSimulatorPerStage) {
  TempDir dir("telemetry_scrape");
  Sim sim({"--cost", "engine", "--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--time-scale", "10",
           "--max-num-seqs", "4"},
          dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const RunResult r = run_servebench(
      {"--port", sim.port_text(), "--num-prompts", "32", "--random-input-len", "128", "--random-output-len", "128",
       "--concurrency", "2", "8", "--scrape-metrics", "--output-json", "sweep.json", "--no-preflight-request"},
      dir.path, {}, 60);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(slurp(dir.path / "sweep.json"));
  ASSERT_EQ(doc["stages"].size(), 2u);
  double finished_total = 0, prompt_total = 0;
  for (const auto& s : doc["stages"]) {
    const auto& m = s["servebench"]["server_metrics"];
    ASSERT_TRUE(m.is_object()) << s.dump();
    EXPECT_EQ(m["dialect"], "vllm");
    EXPECT_EQ(m["failed_scrapes"], 0);
    // The stage's deltas are its own requests, no more, no fewer.
    EXPECT_EQ(m["requests_finished"].get<double>(), s["completed"].get<double>());
    EXPECT_EQ(m["prompt_tokens"].get<double>(), s["total_input_tokens"].get<double>());
    EXPECT_EQ(m["generation_tokens"].get<double>(), s["total_output_tokens"].get<double>());
    EXPECT_EQ(m["ttft"]["count"].get<double>(), s["completed"].get<double>());
    EXPECT_EQ(m["queue_time"]["count"].get<double>(), s["completed"].get<double>());
    EXPECT_LE(m["running"]["max"].get<double>(), 4);  // --max-num-seqs
    EXPECT_GT(m["kv_cache_usage"]["max"].get<double>(), 0);
    EXPECT_GE(m["scrapes"].get<int>(), 3);  // two boundaries and at least one periodic scrape
    finished_total += m["requests_finished"].get<double>();
    prompt_total += m["prompt_tokens"].get<double>();
  }
  const auto& low = doc["stages"][0]["servebench"]["server_metrics"];
  const auto& high = doc["stages"][1]["servebench"]["server_metrics"];
  EXPECT_EQ(low["queue_side"], "agree");
  EXPECT_LT(low["waiting_share"].get<double>(), 0.1);
  // c=8 against 4 sequences: about 4 wait all stage long, the client holding none back.
  EXPECT_GE(high["waiting"]["max"].get<double>(), 3);
  EXPECT_GE(high["waiting_share"].get<double>(), 0.5);
  EXPECT_EQ(high["queue_side"], "server_queued");
  EXPECT_GT(high["queue_time"]["mean_ms"].get<double>(), 5 * low["queue_time"]["mean_ms"].get<double>() + 1);
  // The stages' deltas add up to the simulator's own totals (no preflight request, no warm-up).
  const auto metrics = http_exchange(static_cast<std::uint16_t>(sim.port()), get_request("/metrics"));
  ASSERT_EQ(metrics.status, 200);
  const auto scrape = parse_prom_text(metrics.body, "sim /metrics");
  EXPECT_EQ(scrape.sum("vllm:request_success_total"), finished_total);
  EXPECT_EQ(scrape.sum("vllm:prompt_tokens_total"), prompt_total);
  // vLLM sends no per-request timings: TTFT is split from the histograms' stage means. The server's
  // queue + prefill is its own TTFT, so what is left of the client's is loopback and client time.
  for (const auto& s : doc["stages"]) {
    const auto& b = s["servebench"]["ttft_breakdown_ms"];
    ASSERT_TRUE(b.is_object()) << s["servebench"].dump();
    EXPECT_EQ(b["source"], "metrics_histograms");
    EXPECT_EQ(b["requests"].get<double>(), s["completed"].get<double>());
    EXPECT_NEAR(b["client_ttft_mean"].get<double>(), s["mean_ttft_ms"].get<double>(), 1e-9);
    EXPECT_GT(b["server_prefill_mean"].get<double>(), 0);
    EXPECT_NEAR(b["server_queue_mean"].get<double>() + b["server_prefill_mean"].get<double>() +
                    b["rest_mean"].get<double>(),
                b["client_ttft_mean"].get<double>(), 1e-6);
    // Against sim --time-scale 10 the run reports modelled times, the wall-clock rest stretched by 10
    // with them (docs/run.md "Simulated time"): the bound is on the wall clock's.
    // The rest is a few ms of wall clock, or up to a sixth of the TTFT while the sim's one thread is
    // busy delivering (c=8 in CI's suite on a Firecracker VM: 5.4-7.8 ms of a ~78 ms wall TTFT; alone
    // 2.3 ms): far below the server's queue, which is what the split must show.
    const double k = doc["environment"].value("time_factor", 1.0);
    const double rest_bound_ms = std::max(5.0, b["client_ttft_mean"].get<double>() / k / 6);
    EXPECT_GE(b["rest_mean"].get<double>() / k, -0.5);
    EXPECT_LT(b["rest_mean"].get<double>() / k, sb::test_timing::upper_bound(rest_bound_ms));
  }
  EXPECT_GT(doc["stages"][1]["servebench"]["ttft_breakdown_ms"]["server_queue_mean"].get<double>(),
            doc["stages"][0]["servebench"]["ttft_breakdown_ms"]["server_queue_mean"].get<double>());
  // The console says it too, under each stage's block.
  EXPECT_NE(r.out.find("Server (vllm): running"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: the server queued requests"), std::string::npos) << r.out;
}

TEST(TelemetryE2e, ScrapeMetricsWithoutAMetricsPageWarnsAndRuns) {
  TempDir dir("telemetry_scrape_404");
  Sim sim({"--cost", "fixed", "--ttft-ms", "1", "--itl-ms", "1"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const std::string url = "http://127.0.0.1:" + sim.port_text() + "/no-metrics-here";
  const RunResult r =
      run_servebench({"--port", sim.port_text(), "--num-prompts", "4", "--random-input-len", "8", "--random-output-len",
                      "4", "--scrape-metrics", url, "--output-json", "sweep.json"},
                     dir.path, {}, 30);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --scrape-metrics: GET " + url + ": HTTP 404"), std::string::npos) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(slurp(dir.path / "sweep.json"));
  EXPECT_FALSE(doc["stages"][0]["servebench"].contains("server_metrics"));
}

// PATH holds only the fake tool's folder: a real GPU tool elsewhere on the machine is not found.
std::map<std::string, std::string> fake_tool_path(const char* folder) {
  return {{"PATH", std::string(SB_SOURCE_DIR) + "/tests/data/telemetry/" + folder}};
}

// One stage of ~1.2 s (40 tokens 30 ms apart): two or more samples at 500 ms.
std::vector<std::string> gpu_run_args(const Sim& sim, const char* tool) {
  return {"--port",
          sim.port_text(),
          "--num-prompts",
          "2",
          "--random-input-len",
          "8",
          "--random-output-len",
          "40",
          "--concurrency",
          "2",
          "--gpu-telemetry",
          tool,
          "--output-json",
          "sweep.json",
          "--no-preflight-request"};
}

nlohmann::json gpu_block(const fs::path& dir) {
  const nlohmann::json doc = nlohmann::json::parse(slurp(dir / "sweep.json"));
  return doc["stages"][0]["servebench"]["gpu_telemetry"];
}

TEST(TelemetryE2e, GpuTelemetryFromNvidiaSmi) {
  TempDir dir("telemetry_nvidia");
  Sim sim({"--cost", "fixed", "--ttft-ms", "1", "--itl-ms", "30"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const RunResult r = run_servebench(gpu_run_args(sim, "nvidia-smi"), dir.path, fake_tool_path("bin-nvidia"), 30);
  ASSERT_EQ(r.code, 0) << r.err;
  // tests/data/telemetry/nvidia-smi.csv: GPU 1 at 55 % before any load.
  EXPECT_NE(r.err.find("warning: GPU 1 is 55% busy before any load was sent (nvidia-smi)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warning: GPU 0"), std::string::npos) << r.err;
  const nlohmann::json g = gpu_block(dir.path);
  ASSERT_TRUE(g.is_object()) << slurp(dir.path / "sweep.json");
  EXPECT_EQ(g["tool"], "nvidia-smi");
  EXPECT_EQ(g["failed_samples"], 0);
  ASSERT_EQ(g["gpus"].size(), 2u);
  const auto& g0 = g["gpus"][0];
  EXPECT_EQ(g0["name"], "NVIDIA H200");
  EXPECT_GE(g0["samples"].get<int>(), 1);
  EXPECT_EQ(g0["utilization_pct"]["mean"].get<double>(), 3);
  EXPECT_EQ(g0["power_w"]["max"].get<double>(), 118.5);
  EXPECT_EQ(g0["sm_clock_mhz"]["mean"].get<double>(), 1980);
  EXPECT_EQ(g0["memory_total_mib"].get<double>(), 143771);
  EXPECT_TRUE(g["gpus"][1]["power_w"].is_null());  // [N/A]
  EXPECT_NE(r.out.find("GPU 0 (NVIDIA H200): util 3.0% (max 3.0%), mem 1024 MiB"), std::string::npos) << r.out;
}

TEST(TelemetryE2e, GpuTelemetryAutoFindsRocmSmi) {
  TempDir dir("telemetry_rocm");
  Sim sim({"--cost", "fixed", "--ttft-ms", "1", "--itl-ms", "30"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const RunResult r = run_servebench(gpu_run_args(sim, "auto"), dir.path, fake_tool_path("bin-rocm"), 30);
  ASSERT_EQ(r.code, 0) << r.err;
  // tests/data/telemetry/rocm-smi.json: card1 holds 92 % of its memory.
  EXPECT_NE(r.err.find("warning: GPU 1 already holds 180870 MiB, 92% of its memory before the load (rocm-smi)"),
            std::string::npos)
      << r.err;
  const nlohmann::json g = gpu_block(dir.path);
  ASSERT_TRUE(g.is_object());
  EXPECT_EQ(g["tool"], "rocm-smi");
  EXPECT_EQ(g["gpus"][1]["power_w"]["mean"].get<double>(), 612);
  EXPECT_EQ(g["gpus"][0]["memory_used_mib"]["mean"].get<double>(), 2048);
  EXPECT_EQ(g["gpus"][0]["sm_clock_mhz"]["max"].get<double>(), 1700);
}

TEST(TelemetryE2e, GpuTelemetryFromAmdSmiAndAMissingTool) {
  TempDir dir("telemetry_amd");
  Sim sim({"--cost", "fixed", "--ttft-ms", "1", "--itl-ms", "30"}, dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const RunResult r = run_servebench(gpu_run_args(sim, "amd-smi"), dir.path, fake_tool_path("bin-amd"), 30);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json g = gpu_block(dir.path);
  ASSERT_TRUE(g.is_object());
  EXPECT_EQ(g["tool"], "amd-smi");
  EXPECT_EQ(g["gpus"][0]["utilization_pct"]["mean"].get<double>(), 87);
  EXPECT_TRUE(g["gpus"][1]["utilization_pct"].is_null());  // "N/A"
  EXPECT_NE(r.err.find("warning: GPU 0 is 87% busy"), std::string::npos) << r.err;
  // Asked for a tool that is not there: a one-line error before anything is sent, exit 2.
  const RunResult missing = run_servebench(gpu_run_args(sim, "nvidia-smi"), dir.path, fake_tool_path("bin-amd"), 30);
  EXPECT_EQ(missing.code, 2) << missing.err;
  EXPECT_NE(missing.err.find("--gpu-telemetry nvidia-smi: nvidia-smi is not on PATH"), std::string::npos)
      << missing.err;
  const RunResult bad = run_servebench(gpu_run_args(sim, "nvtop"), dir.path, fake_tool_path("bin-amd"), 30);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--gpu-telemetry: 'nvtop' is not one of auto, nvidia-smi, rocm-smi, amd-smi, off"),
            std::string::npos)
      << bad.err;
}

// The run records its host clocks at start; `kernels --results` then places a same-host rocprofv3
// trace (CLOCK_BOOTTIME) with no --trace-offset-ns. The simulator stamps real CLOCK_BOOTTIME and
// writes its own offset in a sidecar: with the sidecar removed the run's clocks must give the same one.
TEST(TelemetryE2e, KernelsAlignsASameHostTraceWithoutAnOffset) {
  TempDir dir("telemetry_clocks");
  Sim sim({"--cost", "engine", "--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--time-scale", "10",
           "--kernel-trace", "kt.csv", "--kernel-trace-format", "rocprofv3"},
          dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  const auto port = static_cast<std::uint16_t>(sim.port());
  // The simulator and the run each read the wall clock once (the one at its start_profile, the
  // other as it starts). A VM whose time sync steps the wall clock (1.5 ms steps seen in CI) can
  // step it between the two reads: no same-host alignment can be closer than such a step, so the
  // bound widens by whatever step this host made while the test ran.
  const std::int64_t wall_before_ns = HostClocks::offset_ns(CLOCK_REALTIME, CLOCK_BOOTTIME);
  ASSERT_EQ(http_exchange(port, post_request("/start_profile", "")).status, 200);
  const RunResult r =
      run_servebench({"--port", sim.port_text(), "--num-prompts", "16", "--random-input-len", "128",
                      "--random-output-len", "16", "--concurrency", "1", "4", "--output-json", "sweep.json"},
                     dir.path, {}, 60);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::int64_t wall_step_ns = std::llabs(HostClocks::offset_ns(CLOCK_REALTIME, CLOCK_BOOTTIME) - wall_before_ns);
  ASSERT_EQ(http_exchange(port, post_request("/stop_profile", "")).status, 200);
  const nlohmann::json sidecar = nlohmann::json::parse(slurp(dir.path / "kt.csv.servebench.json"));
  const std::int64_t sim_offset = sidecar["unix_minus_trace_ns"].get<std::int64_t>();
  fs::remove(dir.path / "kt.csv.servebench.json");
  const RunResult k =
      run_subcommand({"kernels", "kt.csv", "--results", "sweep.json", "--format", "json"}, dir.path, "kernels", {}, 30);
  ASSERT_EQ(k.code, 0) << k.err;
  EXPECT_NE(k.err.find("placed with the run's own clocks"), std::string::npos) << k.err;
  const nlohmann::json j = nlohmann::json::parse(k.out);
  const std::int64_t offset = j["alignment"]["unix_offset_ns"].get<std::int64_t>();
  EXPECT_LT(std::llabs(offset - sim_offset), 1'000'000 + wall_step_ns)
      << offset << " vs " << sim_offset << "; the wall clock stepped " << wall_step_ns << " ns meanwhile";
  ASSERT_EQ(j["alignment"]["stages"].size(), 2u);
  for (const auto& s : j["alignment"]["stages"]) EXPECT_GT(s["events"].get<int>(), 0) << s.dump();
}

}  // namespace
}  // namespace sb::e2e
