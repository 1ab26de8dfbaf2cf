#include "cli/sim_engine_flags.hpp"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <fstream>
#include <vector>

#include "core/error.hpp"
#include "sim/engine_backend.hpp"

namespace sb::cli {
namespace {

const std::string kData = std::string(SB_SOURCE_DIR) + "/tests/data/sim/";

EngineFlags parse(std::vector<std::string> args) {
  CLI::App app("test");
  EngineFlags flags;
  add_engine_flags(app, flags);
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector in reverse order
  app.parse(args);
  return flags;
}

std::string error_of(const EngineFlags& flags) {
  try {
    resolve_engine_config(flags);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SimEngineFlags, DefaultsAreVllmsOnLlama3OnH100) {
  const sim::EngineConfig c = resolve_engine_config(parse({}));
  EXPECT_EQ(c.hardware.model.name, "llama-3-8b");
  EXPECT_EQ(c.hardware.gpu.name, "h100");
  EXPECT_EQ(c.scheduler.max_num_seqs, 256);
  EXPECT_EQ(c.scheduler.max_num_batched_tokens, 8192);
  EXPECT_TRUE(c.scheduler.chunked_prefill);
  EXPECT_EQ(c.block_size, 16);
  EXPECT_DOUBLE_EQ(c.gpu_memory_utilization, 0.9);
  EXPECT_EQ(c.hardware.tensor_parallel, 1);
  // No fixed reserve: the engine derives it from the model and the limits (sim/activation_reserve).
  EXPECT_FALSE(c.hardware.cost.activation_reserve_gib.has_value());
}

TEST(SimEngineFlags, ActivationReserveFlagFixesTheReserve) {
  const sim::EngineConfig c = resolve_engine_config(parse({"--activation-reserve-gib", "1.5"}));
  ASSERT_TRUE(c.hardware.cost.activation_reserve_gib.has_value());
  EXPECT_DOUBLE_EQ(*c.hardware.cost.activation_reserve_gib, 1.5);
}

TEST(SimEngineFlags, FlagsOverridePresets) {
  const sim::EngineConfig c = resolve_engine_config(parse(
      {"--model-preset", "llama-3-70b", "--gpu-preset", "h200", "--max-num-seqs", "64", "--no-enable-chunked-prefill",
       "--step-overhead-us", "2500", "--gpu-mem-gib", "100", "--time-scale", "20"}));
  EXPECT_EQ(c.hardware.model.name, "llama-3-70b");
  EXPECT_EQ(c.hardware.tensor_parallel, 4);  // the 70b preset's default
  EXPECT_EQ(c.scheduler.max_num_seqs, 64);
  EXPECT_FALSE(c.scheduler.chunked_prefill);
  EXPECT_DOUBLE_EQ(c.hardware.cost.step_overhead_us, 2500);
  EXPECT_DOUBLE_EQ(c.hardware.gpu.mem_gib, 100);
  EXPECT_DOUBLE_EQ(c.time_scale, 20);
}

TEST(SimEngineFlags, TomlFileSitsBetweenPresetAndFlags) {
  const sim::EngineConfig c =
      resolve_engine_config(parse({"--engine-config", kData + "engine_override.toml", "--step-overhead-us", "1200"}));
  EXPECT_EQ(c.hardware.gpu.name, "mi300x");
  EXPECT_EQ(c.hardware.model.name, "my-8b-variant");
  EXPECT_EQ(c.hardware.model.num_layers, 36);
  EXPECT_EQ(c.hardware.model.hidden_size, 4096);  // untouched preset value
  EXPECT_TRUE(c.hardware.model.tied_embeddings);  // the preset's Llama-3-8B is untied
  EXPECT_EQ(c.scheduler.max_num_seqs, 128);
  EXPECT_FALSE(c.scheduler.chunked_prefill);
  EXPECT_EQ(c.hardware.tensor_parallel, 2);
  EXPECT_DOUBLE_EQ(c.hardware.gpu.mem_gib, 180);
  EXPECT_DOUBLE_EQ(c.hardware.cost.compute_efficiency, 0.6);
  EXPECT_DOUBLE_EQ(c.hardware.cost.step_overhead_us, 1200);  // the flag wins over the file
}

TEST(SimEngineFlags, BadInputIsNamedWithItsLocation) {
  EngineFlags unknown;
  unknown.engine_config = kData + "unknown_key.toml";
  EXPECT_EQ(error_of(unknown), kData + "unknown_key.toml:3 (cost.warp_speed): unknown key");
  EngineFlags bad_type;
  bad_type.engine_config = kData + "bad_type.toml";
  EXPECT_EQ(error_of(bad_type), kData + "bad_type.toml:2 (engine.max_num_seqs): expected an integer");
  EngineFlags preset;
  preset.knobs.set("engine.gpu_preset", std::string("tpu-v5"));
  EXPECT_EQ(error_of(preset), "--gpu-preset tpu-v5: unknown (servebench sim --list-presets)");
  EXPECT_THROW(parse({"--max-num-seqs", "0"}), CLI::ValidationError);
  EXPECT_THROW(parse({"--kernel-trace-format", "perfetto"}), CLI::ValidationError);
}

TEST(SimEngineFlags, TheGpuPresetBringsItsOwnCostNumbers) {
  // MI300X's set (sim/presets.cpp), not the H100 defaults of sim/cost_params.hpp.
  const sim::EngineConfig c = resolve_engine_config(parse({"--gpu-preset", "mi300x"}));
  EXPECT_DOUBLE_EQ(c.hardware.cost.compute_efficiency, 0.45);
  EXPECT_DOUBLE_EQ(c.hardware.cost.bandwidth_efficiency, 0.79);
  EXPECT_DOUBLE_EQ(c.hardware.cost.allreduce_latency_us, 28);
}

TEST(SimEngineFlags, EveryCostFieldIsSettableFromTheFile) {
  const sim::CostParams k = resolve_engine_config(parse({"--engine-config", kData + "engine_cost_all.toml"})).hardware.cost;
  EXPECT_DOUBLE_EQ(k.compute_efficiency, 0.51);
  EXPECT_DOUBLE_EQ(k.bandwidth_efficiency, 0.72);
  EXPECT_DOUBLE_EQ(k.roofline_sharpness, 2.5);
  EXPECT_DOUBLE_EQ(k.step_overhead_us, 650);
  EXPECT_DOUBLE_EQ(k.seq_overhead_us, 33);
  EXPECT_DOUBLE_EQ(k.allreduce_latency_us, 17);
  EXPECT_DOUBLE_EQ(k.link_efficiency, 0.66);
  EXPECT_DOUBLE_EQ(k.tp_bandwidth_falloff, 0.21);
  ASSERT_TRUE(k.activation_reserve_gib.has_value());
  EXPECT_DOUBLE_EQ(*k.activation_reserve_gib, 3.5);
}

TEST(SimEngineFlags, NewCostFlagsOverrideTheFile) {
  const sim::CostParams k =
      resolve_engine_config(parse({"--engine-config", kData + "engine_cost_all.toml", "--roofline-sharpness", "4",
                                   "--seq-overhead-us", "5", "--link-efficiency", "0.9", "--tp-bandwidth-falloff", "0"}))
          .hardware.cost;
  EXPECT_DOUBLE_EQ(k.roofline_sharpness, 4);
  EXPECT_DOUBLE_EQ(k.seq_overhead_us, 5);
  EXPECT_DOUBLE_EQ(k.link_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(k.tp_bandwidth_falloff, 0);
  EXPECT_DOUBLE_EQ(k.step_overhead_us, 650);  // from the file
  EXPECT_THROW(parse({"--roofline-sharpness", "0.5"}), CLI::ValidationError);
  EXPECT_THROW(parse({"--link-efficiency", "1.5"}), CLI::ValidationError);
  EngineFlags bad;
  bad.engine_config = kData + "bad_sharpness.toml";
  EXPECT_EQ(error_of(bad), "engine config: cost.roofline_sharpness must be at least 1 (got 0.5)");
}

// vLLM V0's scheduling (prompt-only steps, multi-step blocks, no prefix caching) from the file or the
// flags, V1's by default.
TEST(SimEngineFlags, V0SchedulingFromTheFileAndTheFlags) {
  const sim::SchedulerConfig none = resolve_engine_config(parse({})).scheduler;
  EXPECT_FALSE(none.prefill_only_steps);
  EXPECT_EQ(none.num_scheduler_steps, 1);
  EXPECT_TRUE(none.prefix_caching);  // V1's default
  const sim::SchedulerConfig file = resolve_engine_config(parse({"--engine-config", kData + "engine_v0.toml"})).scheduler;
  EXPECT_TRUE(file.prefill_only_steps);
  EXPECT_EQ(file.num_scheduler_steps, 10);
  EXPECT_FALSE(file.chunked_prefill);
  EXPECT_FALSE(file.prefix_caching);
  const sim::SchedulerConfig flags =
      resolve_engine_config(parse({"--engine-config", kData + "engine_v0.toml", "--num-scheduler-steps", "4"})).scheduler;
  EXPECT_EQ(flags.num_scheduler_steps, 4);
  EXPECT_TRUE(resolve_engine_config(parse({"--prefill-only-steps", "--no-enable-chunked-prefill"})).scheduler.prefill_only_steps);
  EXPECT_FALSE(resolve_engine_config(parse({"--no-enable-prefix-caching"})).scheduler.prefix_caching);
  EXPECT_TRUE(
      resolve_engine_config(parse({"--engine-config", kData + "engine_v0.toml", "--enable-prefix-caching"})).scheduler.prefix_caching);
  EXPECT_THROW(parse({"--num-scheduler-steps", "0"}), CLI::ValidationError);
}

TEST(SimEngineFlags, BackendWritesTheChosenTraceFormat) {
  EngineFlags flags = parse({"--model-preset", "llama-3.2-1b", "--kernel-trace",
                             ::testing::TempDir() + "/sb_flags_trace.csv", "--kernel-trace-format", "nsys"});
  auto backend = make_engine_backend(flags);
  ASSERT_TRUE(backend->start_profile(0));
  std::vector<sim::TokenEvent> events;
  backend->submit({1, 8, 2, true, 0}, 0);
  for (auto t = backend->advance(0, events); t; t = backend->advance(*t, events)) {
  }
  ASSERT_TRUE(backend->stop_profile(0));
  EXPECT_EQ(events.size(), 2u);

  flags.kernel_trace = "/nonexistent-dir/trace.csv";
  std::string message = "no error";
  try {
    make_engine_backend(flags);
  } catch (const UserError& e) {
    message = e.what();
  }
  // One line naming the file and the system's reason.
  EXPECT_EQ(message, "--kernel-trace /nonexistent-dir/trace.csv: cannot open for writing: No such file or directory");
}

// Every knob of sim/engine_knobs with a flag gets it; the others are the file's alone.
TEST(SimEngineFlags, EveryKnobHasItsFlag) {
  CLI::App app("test");
  EngineFlags flags;
  add_engine_flags(app, flags);
  std::vector<std::string> file_only;
  for (const sim::EngineKnob& k : sim::engine_knobs()) {
    if (k.flag.empty()) {
      file_only.push_back(sim::knob_path(k));
    } else {
      EXPECT_NE(app.get_option_no_throw(std::string(k.flag)), nullptr) << k.flag;
    }
  }
  EXPECT_EQ(file_only, (std::vector<std::string>{"engine.max_model_len", "model.name", "model.num_layers",
                                                 "model.hidden_size", "model.num_heads", "model.num_kv_heads",
                                                 "model.head_dim", "model.intermediate_size", "model.vocab_size",
                                                 "model.tie_word_embeddings", "model.dtype_bytes", "gpu.name",
                                                 "gpu.device_name", "gpu.amd"}));
}

std::string flag_text(double v) { return fmt::format("{}", v); }

// A flag sets the field its knob's file key sets, with the value given.
TEST(SimEngineFlags, EachFlagSetsItsKnob) {
  const sim::EngineConfig base = resolve_engine_config(parse({}));
  for (const sim::EngineKnob& k : sim::engine_knobs()) {
    if (k.flag.empty() || k.is_preset()) continue;
    const std::string flag(k.flag);
    std::vector<std::string> args;
    sim::KnobValue want;
    switch (sim::knob_type(k)) {
      case sim::KnobType::integer:
        want = static_cast<std::int64_t>(k.min) + 3;
        args = {flag, std::to_string(std::get<std::int64_t>(want))};
        break;
      case sim::KnobType::number:
        want = k.min + (std::min(k.max, 1e6) - k.min) * 0.3712345678901;
        args = {flag, flag_text(std::get<double>(want))};
        break;
      case sim::KnobType::boolean:
        want = !std::get<bool>(*sim::knob_value(k, base));
        args = {std::get<bool>(want) ? flag : "--no-" + flag.substr(2)};
        break;
      case sim::KnobType::text:
        continue;
    }
    EXPECT_EQ(sim::knob_value(k, resolve_engine_config(parse(args))), want) << flag;
  }
  EXPECT_EQ(resolve_engine_config(parse({"--model-preset", "mistral-7b", "--gpu-preset", "l4"})).hardware.gpu.name, "l4");
}

// Out of range: the flag is refused by name as it is parsed, the file's value by its table.key.
TEST(SimEngineFlags, RangesAreRefusedNamingTheFlagOrTheKey) {
  for (const sim::EngineKnob& k : sim::engine_knobs()) {
    const sim::KnobType type = sim::knob_type(k);
    if (type != sim::KnobType::integer && type != sim::KnobType::number) continue;
    const double below = k.min > 0 ? k.min / 2 : k.min - 1;
    const std::string low = type == sim::KnobType::integer ? std::to_string(static_cast<std::int64_t>(k.min) - 1)
                                                           : flag_text(below);
    const std::string path = sim::knob_path(k);
    if (!k.flag.empty()) {
      std::string message = "no error";
      try {
        parse({std::string(k.flag), low});
      } catch (const CLI::ValidationError& e) {
        message = e.what();
      }
      EXPECT_NE(message.find(k.flag), std::string::npos) << message;
    }
    const std::string file = ::testing::TempDir() + "/sb_knob_range.toml";
    std::ofstream(file) << "[" << k.table << "]\n" << k.key << " = " << low << "\n";
    EngineFlags flags;
    flags.engine_config = file;
    const std::string message = error_of(flags);
    EXPECT_EQ(message.rfind("engine config: " + path + " must be at least ", 0), 0u) << message;
  }
  EngineFlags high;
  high.knobs.set("engine.time_scale", 1e7);  // a command's own value is checked as the flag's would be
  EXPECT_EQ(error_of(high), "engine config: engine.time_scale must be at most 1000000 (got 10000000)");
}

}  // namespace
}  // namespace sb::cli
