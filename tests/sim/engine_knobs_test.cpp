#include "sim/engine_knobs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "sim/engine_toml.hpp"
#include "sim/presets.hpp"

namespace sb::sim {
namespace {

// A value for `k` other than the default config's, inside its range, with digits a sloppy
// conversion would lose.
KnobValue knobs_other_value(const EngineKnob& k) {
  switch (knob_type(k)) {
    case KnobType::integer:
      return static_cast<std::int64_t>(k.min) + 3;
    case KnobType::number:
      return k.min + (std::min(k.max, 1e6) - k.min) * 0.3712345678901;
    case KnobType::boolean: {
      const auto v = knob_value(k, EngineConfig{});
      return !std::get<bool>(*v);
    }
    case KnobType::text:
      return std::string("a \"quoted\" name\\with\ta tab");
  }
  return {};
}

TEST(EngineKnobs, EveryRowIsComplete) {
  std::set<std::string> paths, flags;
  for (const EngineKnob& k : engine_knobs()) {
    const std::string path = knob_path(k);
    EXPECT_FALSE(k.help.empty()) << path;
    EXPECT_NE(std::find(knob_tables().begin(), knob_tables().end(), k.table), knob_tables().end()) << path;
    EXPECT_TRUE(paths.insert(path).second) << path << " twice";
    EXPECT_EQ(find_knob(path), &k);
    EXPECT_EQ(knob_index(k), static_cast<std::size_t>(&k - engine_knobs().data()));
    if (!k.flag.empty()) {
      EXPECT_TRUE(k.flag.starts_with("--")) << path;
      EXPECT_TRUE(flags.insert(std::string(k.flag)).second) << k.flag << " twice";
    }
    const KnobType type = knob_type(k);
    if (type == KnobType::integer || type == KnobType::number) {
      EXPECT_LT(k.min, k.max) << path;
    }
    EXPECT_EQ(k.negatable, k.negatable && type == KnobType::boolean) << path;
    if (k.fit) {
      EXPECT_EQ(k.table, "cost") << path;
      EXPECT_EQ(type, KnobType::number) << path;
      EXPECT_GT(k.fit->lower, 0) << path;  // the fit works on logarithms
      EXPECT_LT(k.fit->lower, k.fit->upper) << path;
      EXPECT_GE(k.fit->lower, k.min) << path;
      EXPECT_LE(k.fit->upper, k.max) << path;
    }
  }
  EXPECT_EQ(find_knob("engine.warp_speed"), nullptr);
  EXPECT_EQ(find_knob("max_num_seqs"), nullptr);
}

// Every preset's numbers are values the flags and the file accept.
TEST(EngineKnobs, PresetsAreInsideTheRanges) {
  for (const ModelPreset& m : model_presets()) {
    for (const GpuPreset& g : gpu_presets()) {
      EngineConfig c;
      c.hardware = {m, g, g.cost, m.default_tensor_parallel};
      for (const EngineKnob& k : engine_knobs()) {
        if (knob_path(k) == "engine.num_gpu_blocks_override") continue;  // 0 unset: derived
        if (const auto v = knob_value(k, c)) {
          EXPECT_FALSE(knob_bounds_problem(k, *v)) << m.name << " on " << g.name << ": " << knob_path(k);
        }
      }
    }
  }
}

TEST(EngineKnobs, EveryKnobRoundTripsThroughTheFile) {
  std::vector<EngineTomlLine> lines;
  for (const EngineKnob& k : engine_knobs()) lines.push_back({&k, knobs_other_value(k), ""});
  const std::string text = write_engine_toml(lines);
  const KnobSettings read = read_engine_toml(text, "all.toml");
  EngineConfig c;
  read.apply(c);
  for (const EngineKnob& k : engine_knobs()) {
    ASSERT_TRUE(read.get(k).has_value()) << knob_path(k) << " in\n" << text;
    EXPECT_EQ(*read.get(k), knobs_other_value(k)) << knob_path(k);
    if (!k.is_preset()) {
      EXPECT_EQ(knob_value(k, c), knobs_other_value(k)) << knob_path(k);
    }
  }
}

TEST(EngineKnobs, EachKnobSetsItsOwnField) {
  for (const EngineKnob& k : engine_knobs()) {
    if (k.is_preset()) continue;
    EngineConfig c;
    set_knob(k, knobs_other_value(k), c);
    for (const EngineKnob& other : engine_knobs()) {
      if (&other != &k) {
        EXPECT_EQ(knob_value(other, c), knob_value(other, EngineConfig{}))
            << knob_path(k) << " moved " << knob_path(other);
      }
    }
  }
}

TEST(EngineKnobs, RangesAreRefusedWithTheLimit) {
  const EngineKnob& sharpness = *find_knob("cost.roofline_sharpness");
  EXPECT_EQ(knob_bounds_problem(sharpness, 0.5), "must be at least 1 (got 0.5)");
  EXPECT_EQ(knob_bounds_problem(sharpness, 2e6), "must be at most 1000000 (got 2000000)");
  EXPECT_EQ(knob_bounds_problem(sharpness, std::nan("")), "must be at least 1 (got nan)");
  EXPECT_FALSE(knob_bounds_problem(sharpness, std::int64_t{3}));
  EXPECT_EQ(knob_bounds_problem(*find_knob("engine.max_num_seqs"), std::int64_t{0}), "must be at least 1 (got 0)");
  EXPECT_FALSE(knob_bounds_problem(*find_knob("model.name"), std::string("x")));
}

TEST(EngineKnobs, SettingsLayerAndTypeCheck) {
  KnobSettings file, flags;
  file.set("engine.max_num_seqs", 64);
  file.set("cost.step_overhead_us", 900);  // an integer for a number: taken as the number
  flags.set("engine.max_num_seqs", 32);
  file.overlay(flags);
  EXPECT_EQ(file.get<std::int64_t>("engine.max_num_seqs"), 32);
  EXPECT_EQ(file.get<double>("cost.step_overhead_us"), 900.0);
  EXPECT_FALSE(file.get<double>("engine.time_scale"));
  EXPECT_THROW(file.set("engine.max_num_seqs", 1.5), std::logic_error);
  EXPECT_THROW(file.set("engine.warp_speed", 1), std::logic_error);
  EngineConfig c;
  file.apply(c);
  EXPECT_EQ(c.scheduler.max_num_seqs, 32);
  EXPECT_EQ(c.hardware.cost.step_overhead_us, 900);
}

}  // namespace
}  // namespace sb::sim
