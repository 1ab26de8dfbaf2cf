// --scrape-metrics / --gpu-telemetry in the reporters: the sweep document's objects read back into
// the model unchanged, the console line and table columns, the HTML charts; the run's host clocks.
#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/analysis.hpp"
#include "report/html_view.hpp"
#include "report/py_json.hpp"
#include "report/sample_stage.hpp"
#include "report/staircase_table.hpp"
#include "report/sweep_json.hpp"
#include "report/telemetry_text.hpp"
#include "results/from_summaries.hpp"
#include "results/result_reader.hpp"

namespace sb::report {
namespace {

StageSummary stage_with_telemetry() {
  StageSummary s = testdata::sample_stage();
  ServerStageMetrics m;
  m.dialect = "vllm";
  m.scrapes = 6;
  m.running = GaugeStats{3.5, 4, 4};
  m.waiting = GaugeStats{2.25, 4, 4};
  m.waiting_share = 0.75;
  m.kv_cache_usage = GaugeStats{0.125, 0.25, 4};
  m.preemptions = 2;
  m.prefix_cache_hit_rate = 0.5;
  m.requests_finished = 100;
  m.queue_time = HistogramWindow{100, 12.5, 10, 40};
  m.ttft = HistogramWindow{100, 30, 25, 90};
  m.queue_side = QueueSide::server_queued;
  s.server = m;
  GpuStageTelemetry g;
  g.tool = "nvidia-smi";
  GpuStageStats g0;
  g0.index = 0;
  g0.name = "NVIDIA H200";
  g0.samples = 3;
  g0.utilization_pct = GaugeStats{90, 99, 3};
  g0.memory_used_mib = GaugeStats{70000, 71000, 3};
  g0.power_w = GaugeStats{600, 650, 3};
  g0.sm_clock_mhz = GaugeStats{1980, 1980, 3};
  g0.memory_total_mib = 143771;
  GpuStageStats g1 = g0;
  g1.index = 1;
  g1.utilization_pct = GaugeStats{70, 80, 3};
  g.gpus = {g0, g1};
  s.gpu = g;
  return s;
}

TEST(TelemetryReport, SweepObjectsReadBackUnchanged) {
  RunContext ctx = testdata::sample_context();
  ctx.clocks_at_start = HostClocks{11, 1'764'470'000'000'000'000, 22, 21, 33};
  const std::vector<StageSummary> stages{stage_with_telemetry()};
  const std::string text = py_json_dump(sweep_json(ctx, stages, {}), {.indent = 2, .nan_as_null = true});
  const results::Run read = results::parse_sweep(text, "/tmp/telemetry-run.json");
  ASSERT_EQ(read.stages.size(), 1u);
  const results::Stage& st = read.stages[0];
  ASSERT_TRUE(st.server && st.gpu);
  EXPECT_EQ(st.server->dialect, "vllm");
  EXPECT_EQ(st.server->waiting->mean, 2.25);
  EXPECT_EQ(st.server->kv_cache_usage->max, 0.25);
  EXPECT_EQ(st.server->preemptions, 2.0);
  EXPECT_EQ(st.server->queue_time->p99_ms, 40);
  EXPECT_EQ(st.server->queue_side, QueueSide::server_queued);
  EXPECT_FALSE(st.server->generation_tokens.has_value());  // null stays absent
  EXPECT_FALSE(st.server->prefill_time.has_value());
  EXPECT_EQ(st.gpu->tool, "nvidia-smi");
  ASSERT_EQ(st.gpu->gpus.size(), 2u);
  EXPECT_EQ(st.gpu->gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(st.gpu->gpus[1].utilization_pct->mean, 70);
  EXPECT_EQ(st.gpu->gpus[0].memory_total_mib, 143771.0);
  EXPECT_FALSE(st.gpu->gpus[0].memory_clock_mhz.has_value());
  ASSERT_TRUE(read.clocks_at_start.has_value());
  EXPECT_EQ(read.clocks_at_start->boottime_ns, 33);
  EXPECT_EQ(read.clocks_at_start->monotonic_raw_ns, 21);
  EXPECT_EQ(read.clocks_at_start->realtime_ns, 1'764'470'000'000'000'000);
  // A stage without either writes neither key (older readers and goldens see no change).
  const std::string plain = py_json_dump(sweep_json(testdata::sample_context(), {testdata::sample_stage()}, {}), {});
  EXPECT_EQ(plain.find("server_metrics"), std::string::npos);
  EXPECT_EQ(plain.find("gpu_telemetry"), std::string::npos);
  EXPECT_EQ(plain.find("clocks_at_start"), std::string::npos);
}

TEST(TelemetryReport, ConsoleLines) {
  const std::string text = format_stage_telemetry(stage_with_telemetry());
  EXPECT_EQ(text,
            "Server (vllm): running 3.5 (max 4.0), waiting 2.2 (max 4.0), KV cache 12.5% (max 25.0%), "
            "preemptions 2, prefix hits 50%, queue mean 12.5 ms, TTFT mean 30.0 ms\n"
            "  note: " +
                queue_side_text(QueueSide::server_queued) +
                "\n"
                "GPU 0 (NVIDIA H200): util 90.0% (max 99.0%), mem 70000 MiB (max 71000), power 600.0 W (max 650.0 W), "
                "clock 1980 MHz\n"
                "GPU 1 (NVIDIA H200): util 70.0% (max 80.0%), mem 70000 MiB (max 71000), power 600.0 W (max 650.0 W), "
                "clock 1980 MHz\n");
  EXPECT_EQ(format_stage_telemetry(testdata::sample_stage()), "");
  EXPECT_EQ(queue_side_text(QueueSide::agree), "");
}

TEST(TelemetryReport, StaircaseTableGainsTwoColumns) {
  StageSummary with = stage_with_telemetry();
  StageSummary without = testdata::sample_stage();
  without.stage_index = 1;
  const std::string table = format_staircase_table(LoadMode::concurrency, {with, without});
  const std::string header = table.substr(0, table.find('\n'));
  EXPECT_NE(header.find("failed  srv wait  GPU %"), std::string::npos) << table;
  const std::string row1 =
      table.substr(table.find('\n') + 1, table.find('\n', table.find('\n') + 1) - table.find('\n') - 1);
  EXPECT_TRUE(row1.ends_with("      2.2     80")) << table;  // GPU %: mean over the two GPUs
  EXPECT_TRUE(table.substr(0, table.size() - 1).ends_with("-      -")) << table;
  const std::string plain = format_staircase_table(LoadMode::concurrency, {without});
  EXPECT_EQ(plain.find("srv wait"), std::string::npos);
}

TEST(TelemetryReport, HtmlChartsOnlyWhenARunHasThem) {
  results::RunInfo info;
  info.source = "/tmp/t.json";
  info.load_mode = LoadMode::concurrency;
  const results::Run with = results::from_summaries(info, {stage_with_telemetry()});
  const results::Run without = results::from_summaries(info, {testdata::sample_stage()});
  const Document d = html_document({with}, analyze::analyze_runs({with}, {}));
  std::vector<std::string> ids;
  for (const ChartSpec& c : d.charts) ids.push_back(c.id);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "server"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "gpu"), ids.end());
  ASSERT_EQ(d.runs.size(), 1u);
  EXPECT_EQ(d.runs[0].metrics.at("server_waiting_mean").at(0), 2.25);
  EXPECT_EQ(d.runs[0].metrics.at("gpu_utilization_mean").at(0), 80);
  const Document plain = html_document({without}, analyze::analyze_runs({without}, {}));
  for (const ChartSpec& c : plain.charts) EXPECT_NE(c.id, "server");
}

}  // namespace
}  // namespace sb::report
