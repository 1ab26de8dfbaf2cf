// The presets against published measurements of real servers, uncalibrated: every row of kFigures
// is a number someone published (the source says where, the configuration says how it was run),
// and the engine reproduces that run in virtual time (sim/virtual_clock.hpp) with the preset's
// numbers unchanged. Only the run's own configuration is applied: TP, the engine's documented
// defaults of that version (max_num_seqs, token budget, chunked prefill), FP8 weights where the
// model was FP8. The table in docs/simulator.md ("Published comparison") is this table.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <fmt/format.h>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_util.hpp"
#include "sim/engine_backend.hpp"
#include "sim/virtual_clock.hpp"

namespace sb::sim {
namespace {

enum class Measure {
  tpot_median_ms,    // median over requests of (last − first token) / (tokens − 1), vLLM's TPOT
  ttft_median_ms,    // median time to first token
  output_tok_per_s,  // output tokens / (first arrival → last finish)
  batch_latency_ms,  // a static batch (vLLM benchmark_latency): first arrival → last finish
  gain_over_one,     // output tok/s at this concurrency over the same workload at concurrency 1
};

enum class Arrivals { closed_loop, poisson, all_at_once };

struct Workload {
  Arrivals arrivals = Arrivals::closed_loop;
  double level = 1;  // concurrency (closed loop) or requests per second (poisson)
  int num_requests = 1;
  int prompt_tokens = 0;
  int output_tokens = 0;  // fixed (ignore_eos), or the mean of a ShareGPT-like spread
  bool spread = false;    // output lengths drawn (EOS allowed) with that mean, capped at 1024
  // The run's own (prompt, output) tokens per request, where the source lists them: replaces the
  // count and lengths above, each output fixed (as generated in the published run).
  std::vector<std::pair<int, int>> lengths = {};
};

// The published run's engine settings: configuration, not calibration.
struct EngineSetup {
  int max_num_seqs = 256;
  int max_num_batched_tokens = 8192;
  bool chunked_prefill = true;
  int max_model_len = 0;  // 0: the model preset's
  bool fp8 = false;       // FP8 weights and KV cache: 1 byte each, twice the dense peak
  bool prefill_only_steps = false;  // vLLM V0: prompts run in steps of their own, decodes wait
  int num_scheduler_steps = 1;      // vLLM V0 --num-scheduler-steps: decode blocks
  bool prefix_caching = true;       // V1's and SGLang's default; vLLM V0 had it off
};

struct Figure {
  const char* id;
  const char* model;
  const char* gpu;
  int tp;
  EngineSetup engine;
  Workload load;
  Measure measure;
  double published;
  // 15 % is the bar; a row that misses it says why here and is held to the bound it does reach,
  // so the miss stays visible and a regression beyond it still fails.
  double max_error = 0.15;
  const char* miss_reason = nullptr;
};

// vLLM V1 defaults on a GPU under 70 GiB or an A100 (vllm/engine/arg_utils.py: API server 2048
// tokens, 256 sequences); vLLM 0.6.0 with --max_model_len 4096 (no chunked prefill below 32k
// context, budget max(max_model_len, 2048)); ROCm vLLM 0.6.7 benchmark_latency (one static batch).
constexpr EngineSetup kV1SmallGpu{256, 2048, true, 0, false};
constexpr EngineSetup kV060{256, 4096, false, 4096, false, true, 10, false};
// vLLM 0.6.0 as LambdaLabsML/vllm-benchmark ran it: --max-model-len 2000 (budget 2048, no chunked
// prefill), V0 steps, --num-scheduler-steps 10, the script's --max-num-seqs 1024.
constexpr EngineSetup kV060Lambda{1024, 2048, false, 2000, false, true, 10, false};
constexpr EngineSetup kSglang030{256, 8192, true, 4096, false};
constexpr EngineSetup kRocm067Fp8{256, 16384, false, 0, true, false, 1, false};

// ShareGPT as the runs sampled it: 215 prompt tokens on average (1000 ShareGPT prompts through the
// Llama-3 tokenizer gave 215,196 input tokens, arc53/llm-price-compass#6) and 194 output tokens
// (the published output tok/s over req/s of the offline rows below: 3700.64/19.04, 4132.37/21.27).
constexpr int kShareGptPrompt = 215;
constexpr int kShareGptOutput = 194;

const std::vector<Figure>& published_figures() {
  static const std::vector<Figure> figures = {
      // johnmusgrave.com/p/vllm-throughput-latency-sweep-on: A100 40GB, Llama-3.1-8B-Instruct BF16,
      // vLLM 0.23.0, random 1024 in / 128 out, --ignore-eos, --max-concurrency C, C·20 prompts:
      // "decode at one request per time runs at about 75 tokens/sec" (TPOT 1000/75 ms) and
      // "a 6.6x gain" in throughput from C=1 to C=8.
      {"a100_40gb_8b_c1_tpot", "llama-3-8b", "a100-40gb", 1, kV1SmallGpu,
       {Arrivals::closed_loop, 1, 20, 1024, 128}, Measure::tpot_median_ms, 1000.0 / 75},
      {"a100_40gb_8b_c8_gain", "llama-3-8b", "a100-40gb", 1, kV1SmallGpu,
       {Arrivals::closed_loop, 8, 160, 1024, 128}, Measure::gain_over_one, 6.6},
      // sgl-project/sglang benchmark/benchmark_vllm_060/README.md: vLLM 0.6.0
      // (--num-scheduler-steps 10 --max_model_len 4096), ShareGPT, Poisson arrivals; median TPOT
      // and offline (all requests at once) output token throughput.
      {"a100_8b_rps4_tpot", "llama-3-8b", "a100", 1, kV060,
       {Arrivals::poisson, 4, 1200, kShareGptPrompt, kShareGptOutput, true}, Measure::tpot_median_ms, 14.14},
      {"a100_8b_rps8_tpot", "llama-3-8b", "a100", 1, kV060,
       {Arrivals::poisson, 8, 2400, kShareGptPrompt, kShareGptOutput, true}, Measure::tpot_median_ms, 17.09},
      {"a100_8b_offline_tput", "llama-3-8b", "a100", 1, kV060,
       {Arrivals::all_at_once, 0, 5000, kShareGptPrompt, kShareGptOutput, true}, Measure::output_tok_per_s, 4132.37},
      // Same README, SGLang v0.3.0 on the same A100 and workload (no multi-step delay, so its TTFT
      // is the prefill physics; vLLM 0.6.0's 100.48 ms waits for a 10-step decode batch first).
      {"a100_8b_rps4_ttft_sglang", "llama-3-8b", "a100", 1, kSglang030,
       {Arrivals::poisson, 4, 1200, kShareGptPrompt, kShareGptOutput, true}, Measure::ttft_median_ms, 31.98},
      {"h100x4_70b_rps4_tpot", "llama-3-70b", "h100", 4, kV060,
       {Arrivals::poisson, 4, 1200, kShareGptPrompt, kShareGptOutput, true}, Measure::tpot_median_ms, 23.58},
      {"h100x4_70b_rps8_tpot", "llama-3-70b", "h100", 4, kV060,
       {Arrivals::poisson, 8, 2400, kShareGptPrompt, kShareGptOutput, true}, Measure::tpot_median_ms, 29.15},
      {"h100x4_70b_offline_tput", "llama-3-70b", "h100", 4, kV060,
       {Arrivals::all_at_once, 0, 5000, kShareGptPrompt, kShareGptOutput, true}, Measure::output_tok_per_s,
       3700.64},
      // LambdaLabsML/vllm-benchmark results/prompt_10/1xA100-80GB-SXM/Mistral-7B-Instruct-v0.3_tp1_len2000.json
      // (2024-09-07): 10 ShareGPT prompts sent at once, the file's own input_lens and output_lens
      // (the empty answer is one EOS token); its ~108 ms ITLs are bursts of 10 tokens, the
      // report's "v0.6.0 + num-scheduler-steps 10" configuration.
      {"a100_mistral7b_sharegpt10_tpot", "mistral-7b", "a100", 1, kV060Lambda,
       {Arrivals::all_at_once, 0, 10, 0, 0, false,
        {{14, 129}, {30, 883}, {28, 273}, {12, 165}, {375, 1}, {29, 928}, {487, 10}, {369, 26}, {5, 8}, {236, 18}}},
       Measure::tpot_median_ms, 11.348},
      // ROCm/rocm-blogs blogs/artificial-intelligence/LLM_Inference/README.md ("vLLM Latency
      // Benchmark Results"): MI300X, Llama 3.1 70B FP8 (FP8 KV), TP 8, rocm/vllm-dev:20250112,
      // benchmark_latency, 128 in / 2048 out, end-to-end latency of one batch.
      {"mi300x8_70b_fp8_bs1_latency", "llama-3-70b", "mi300x", 8, kRocm067Fp8,
       {Arrivals::closed_loop, 1, 1, 128, 2048}, Measure::batch_latency_ms, 19089},
      {"mi300x8_70b_fp8_bs64_latency", "llama-3-70b", "mi300x", 8, kRocm067Fp8,
       {Arrivals::closed_loop, 64, 64, 128, 2048}, Measure::batch_latency_ms, 32548},
      {"mi300x8_70b_fp8_bs128_latency", "llama-3-70b", "mi300x", 8, kRocm067Fp8,
       {Arrivals::closed_loop, 128, 128, 128, 2048}, Measure::batch_latency_ms, 45216},
      // gpustack/gpustack docs/performance-lab/qwen3-32b/a100.md ("Choosing the Inference Engine",
      // vLLM): Qwen3-32B BF16 on one A100 (80 GB: the 65.5 GB of weights fit no smaller one), vLLM
      // v0.11.0 `--max-model-len 32768`, otherwise its V1 defaults on an A100; `vllm bench serve`
      // with 1000 ShareGPT prompts sent at once (request rate inf) to /v1/chat/completions: 217,393
      // input and 201,396 generated tokens. About 8.6 GiB of KV cache is left beside the weights and
      // the 1.5 GiB vLLM's profiling keeps at 2048 tokens and 256 sequences (sim/activation_reserve),
      // so only ~100 sequences run at a time, the rest queue, and preemptions recompute the newest,
      // less the blocks of its own that V1's prefix caching still holds when it resumes.
      {"a100_qwen32b_sharegpt_tput", "qwen3-32b", "a100", 1, kV1SmallGpu,
       {Arrivals::all_at_once, 0, 1000, 217, 201, true}, Measure::output_tok_per_s, 832.43},
      {"a100_qwen32b_sharegpt_ttft", "qwen3-32b", "a100", 1, kV1SmallGpu,
       {Arrivals::all_at_once, 0, 1000, 217, 201, true}, Measure::ttft_median_ms, 105990.93},
      {"a100_qwen32b_sharegpt_tpot", "qwen3-32b", "a100", 1, kV1SmallGpu,
       {Arrivals::all_at_once, 0, 1000, 217, 201, true}, Measure::tpot_median_ms, 123.31},
  };
  return figures;
}

EngineConfig figure_config(const Figure& f) {
  EngineConfig c = testing_util::make_config(f.model, f.gpu, f.tp);
  c.scheduler.max_num_seqs = f.engine.max_num_seqs;
  c.scheduler.max_num_batched_tokens = f.engine.max_num_batched_tokens;
  c.scheduler.chunked_prefill = f.engine.chunked_prefill;
  c.scheduler.prefill_only_steps = f.engine.prefill_only_steps;
  c.scheduler.num_scheduler_steps = f.engine.num_scheduler_steps;
  c.scheduler.prefix_caching = f.engine.prefix_caching;
  c.max_model_len = f.engine.max_model_len;
  if (f.engine.fp8) {
    c.hardware.model.dtype_bytes = 1;
    c.hardware.gpu.peak_tflops *= 2;  // FP8 dense tensor throughput is twice bf16 on Hopper and CDNA3
  }
  c.eos_mean_output_tokens = f.load.output_tokens;
  return c;
}

std::uint64_t figures_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Poisson (or simultaneous) arrivals with a fixed seed, so every run is the same run.
std::vector<TimedRequest> figures_arrivals(const Workload& w) {
  std::vector<TimedRequest> out;
  out.reserve(static_cast<std::size_t>(w.num_requests));
  double t_s = 0;
  for (std::size_t i = 0; i < w.lengths.size(); ++i) {
    const auto id = static_cast<std::uint64_t>(i);
    out.push_back({{id, w.lengths[i].first, w.lengths[i].second, true, id * 7919 + 1}, 0});
  }
  if (!w.lengths.empty()) return out;
  for (int i = 0; i < w.num_requests; ++i) {
    const auto id = static_cast<std::uint64_t>(i);
    if (w.arrivals == Arrivals::poisson && i > 0) {
      const double u = (static_cast<double>(figures_mix(id) >> 11) + 0.5) * 0x1.0p-53;
      t_s += -std::log(u) / w.level;
    }
    const int max_tokens = w.spread ? 1024 : w.output_tokens;
    out.push_back({{id, w.prompt_tokens, max_tokens, !w.spread, id * 7919 + 1}, static_cast<Nanos>(t_s * 1e9)});
  }
  return out;
}

VirtualRun figures_run(const Figure& f, const Workload& w) {
  EngineBackend backend(figure_config(f), {});
  if (w.arrivals == Arrivals::closed_loop && w.lengths.empty()) {
    return run_closed_loop(backend,
                           {static_cast<int>(w.level), w.num_requests, w.prompt_tokens, w.output_tokens, !w.spread});
  }
  const std::vector<TimedRequest> reqs = figures_arrivals(w);
  return run_open_loop(backend, reqs);
}

double figures_median_tpot_ms(const VirtualRun& run) {
  std::vector<double> tpot;
  for (const RequestTiming& r : run.requests) {
    if (r.output_tokens > 1) {
      tpot.push_back(static_cast<double>(r.finish_ns - r.first_token_ns) / 1e6 / (r.output_tokens - 1));
    }
  }
  return percentile(tpot, 50);
}

double simulate(const Figure& f) {
  const VirtualRun run = figures_run(f, f.load);
  switch (f.measure) {
    case Measure::tpot_median_ms: return figures_median_tpot_ms(run);
    case Measure::ttft_median_ms: return percentile(run.ttft_s(), 50) * 1e3;
    case Measure::output_tok_per_s: return run.output_tokens_per_s();
    case Measure::batch_latency_ms: return static_cast<double>(run.duration_ns) / 1e6;
    case Measure::gain_over_one: {
      Workload one = f.load;
      one.level = 1;
      one.num_requests = 20;  // C·20 prompts, as the sweep ran it
      return run.output_tokens_per_s() / figures_run(f, one).output_tokens_per_s();
    }
  }
  return 0;
}

// GoogleTest names a failing parameter by this, not by a byte dump.
void PrintTo(const Figure& f, std::ostream* os) { *os << f.id; }

class PublishedFigure : public ::testing::TestWithParam<Figure> {};

// The acceptance bar of issue 15: every cited figure within 15 % with the presets as shipped.
TEST_P(PublishedFigure, PresetIsWithin15PercentUncalibrated) {
  const Figure& f = GetParam();
  const double simulated = simulate(f);
  const double error = simulated / f.published - 1;
  RecordProperty("simulated", fmt::format("{:.4g}", simulated));
  RecordProperty("error_percent", fmt::format("{:+.1f}", error * 100));
  EXPECT_LT(std::abs(error), f.max_error) << f.id << ": published " << f.published << ", simulated " << simulated
                                         << (f.miss_reason != nullptr ? f.miss_reason : "");
}

INSTANTIATE_TEST_SUITE_P(Presets, PublishedFigure, ::testing::ValuesIn(published_figures()),
                         [](const ::testing::TestParamInfo<Figure>& info) { return std::string(info.param.id); });

// The table must cover what it claims to: each model and GPU it names exists as a preset, and
// every figure's configuration is one the engine accepts (a typo would otherwise throw above).
TEST(PublishedFigures, NameOnlyPresetsAndCiteTheTensorParallelCases) {
  int tensor_parallel = 0;
  for (const Figure& f : published_figures()) {
    EXPECT_NE(find_model_preset(f.model), nullptr) << f.id;
    EXPECT_NE(find_gpu_preset(f.gpu), nullptr) << f.id;
    EXPECT_GT(f.published, 0) << f.id;
    tensor_parallel += f.tp > 1 ? 1 : 0;
    // A wider bound is an admitted miss, never a silent one.
    if (f.max_error > 0.15) {
      EXPECT_NE(f.miss_reason, nullptr) << f.id;
    }
    EXPECT_LE(f.max_error, 0.20) << f.id;
  }
  EXPECT_GE(tensor_parallel, 2);  // 70B TP4 decode and offline throughput are in the table
}

}  // namespace
}  // namespace sb::sim
