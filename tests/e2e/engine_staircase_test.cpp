// End-to-end (issue #4 "Done when"): `servebench run --concurrency 1 2 4 … 256` against
// `servebench sim --cost engine` with the llama-3-8b / H100 preset shows a capacity knee, the kernel
// trace written while profiling parses as real rocprofv3, and /metrics parsed back by the
// Prometheus-text parser agrees with the run's token totals.
//
// Sizing (docs/simulator.md §4): a decode step of llama-3-8b on H100 is ~7.5 ms (weights read +
// overhead) and a 512-token prompt costs ~17 ms of prefill compute. At --time-scale 10, one request
// alone takes ~14 ms (~70 req/s), while prefill compute caps the server near 600 req/s: linear at
// first, flat from a concurrency of ~8. 128 prompts per stage keep the whole test near 6 s.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <vector>

#include "analyze/knee.hpp"
#include "e2e/run_process.hpp"
#include "results/result_reader.hpp"
#include "sim/raw_http_client.hpp"
#include "trace/categories.hpp"
#include "target/prom_text.hpp"
#include "trace/load.hpp"

namespace sb::e2e {
namespace {

using sb::sim::get_request;
using sb::sim::http_exchange;
using sb::sim::post_request;

int post(const Sim& sim, const char* path) {
  return http_exchange(static_cast<std::uint16_t>(sim.port()), post_request(path, "")).status;
}

TEST(EngineE2e, StaircaseShowsKneeTraceParsesAndMetricsMatch) {
  TempDir dir("engine_staircase");
  Sim sim({"--cost", "engine", "--model-preset", "llama-3-8b", "--gpu-preset", "h100", "--time-scale", "10",
           "--kernel-trace", "kt.csv", "--kernel-trace-format", "rocprofv3", "--kernel-trace-max-rows", "20000"},
          dir.path);
  ASSERT_NE(sim.port(), 0) << slurp(dir.path / "sim.err");
  // A first, empty profile takes kt.csv; the one around the run must go to kt.csv.1, not overwrite it.
  ASSERT_EQ(post(sim, "/start_profile"), 200);
  ASSERT_EQ(post(sim, "/stop_profile"), 200);
  ASSERT_EQ(post(sim, "/start_profile"), 200);
  RunResult r = run_servebench({"--port", sim.port_text(), "--num-prompts", "128", "--random-input-len", "512",
                                "--random-output-len", "16", "--concurrency", "1", "2", "4", "8", "16", "32", "64",
                                "128", "256", "--output-json", "sweep.json",
                                "--no-preflight-request"},  // the server's counters must equal the stages' sums
                               dir.path, {}, 120);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(post(sim, "/stop_profile"), 200);

  // The knee, by the analyzer's own method on the sweep document.
  const auto runs = results::read_runs({(dir.path / "sweep.json").string()});
  ASSERT_EQ(runs.size(), 1u);
  const auto& stages = runs[0].stages;
  ASSERT_EQ(stages.size(), 9u);
  std::vector<double> load, rps, ttft_p99;
  for (const auto& s : stages) {
    EXPECT_EQ(s.failed, 0);
    load.push_back(s.load_value);
    rps.push_back(s.request_throughput);
    ttft_p99.push_back(s.percentile(results::Metric::ttft, 99).value_or(-1));
  }
  const analyze::CurveAnalysis a = analyze::analyze_curve({load, rps, ttft_p99});
  ASSERT_TRUE(a.knee.has_value()) << a.knee_reason;
  EXPECT_GT(*a.knee, 0u) << a.knee_reason;
  EXPECT_LT(*a.knee, stages.size() - 1) << a.knee_reason;
  // Linear at first (doubling the load gains at least half of it), flat at the end (256 streams give
  // far less than 256x one stream), and TTFT p99 after the knee is many times its low-load value.
  EXPECT_GT(rps[1], 1.5 * rps[0]);
  EXPECT_LT(rps.back(), 0.1 * 256 * rps[0]);
  EXPECT_GT(ttft_p99.back(), 10 * ttft_p99[0]);
  // Past the knee the extra load queues: c = 256 is saturated, its TTFT well above the knee's.
  EXPECT_EQ(a.regions.back().region, analyze::Region::saturated);
  EXPECT_GT(ttft_p99.back(), 1.2 * ttft_p99[*a.knee]);
  ASSERT_TRUE(a.ttft_rise.has_value());
  EXPECT_GT(*a.ttft_rise, 0u);

  // The trace of the second profile: real rocprofv3 kernel_trace.csv, marked simulated by its sidecar.
  EXPECT_TRUE(fs::exists(dir.path / "kt.csv"));
  const trace::KernelTrace kt = trace::load_trace_file((dir.path / "kt.csv.1").string());
  EXPECT_EQ(kt.source_format, "rocprofv3");
  EXPECT_EQ(kt.clock_domain, trace::kClockBoottime);
  EXPECT_TRUE(kt.simulated);
  EXPECT_TRUE(kt.unix_offset_ns.has_value());
  EXPECT_GT(kt.events.size(), 10'000u);
  EXPECT_LE(kt.events.size(), 20'000u);  // --kernel-trace-max-rows
  std::set<std::string_view> seen;
  for (const auto& e : kt.events) {
    EXPECT_GT(e.end_ns, e.start_ns);
    seen.insert(trace::category_name(trace::categorize(e)));
  }
  for (const char* c : {"attention", "gemm", "kv_cache_write", "norm_activation", "sampling", "memcpy"})
    EXPECT_TRUE(seen.count(c)) << c;

  // /metrics after the run: the engine's token counters equal what the run received (usage).
  const auto metrics = http_exchange(static_cast<std::uint16_t>(sim.port()), get_request("/metrics"));
  ASSERT_EQ(metrics.status, 200);
  const auto scrape = parse_prom_text(metrics.body, "sim /metrics");
  const nlohmann::json doc = nlohmann::json::parse(slurp(dir.path / "sweep.json"));
  double input_tokens = 0, output_tokens = 0, completed = 0;
  for (const auto& s : doc["stages"]) {
    input_tokens += s["total_input_tokens"].get<double>();
    output_tokens += s["total_output_tokens"].get<double>();
    completed += s["completed"].get<double>();
  }
  EXPECT_EQ(output_tokens, 9 * 128 * 16);
  EXPECT_EQ(scrape.sum("vllm:prompt_tokens_total"), input_tokens);
  EXPECT_EQ(scrape.sum("vllm:generation_tokens_total"), output_tokens);
  EXPECT_EQ(scrape.sum("vllm:request_success_total"), completed);
  EXPECT_EQ(scrape.sum("vllm:num_requests_running"), 0.0);
  const auto ttft = scrape.histogram("vllm:time_to_first_token_seconds");
  ASSERT_TRUE(ttft.has_value());
  EXPECT_EQ(ttft->count, completed);
}

}  // namespace
}  // namespace sb::e2e
