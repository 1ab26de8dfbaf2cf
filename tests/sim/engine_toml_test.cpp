#include "sim/engine_toml.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace sb::sim {
namespace {

std::string engine_toml_error(const std::string& text) {
  try {
    read_engine_toml(text, "e.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(EngineToml, ReadsEveryTableItsKeysAndTheirTypes) {
  const KnobSettings s = read_engine_toml(
      "[engine]\nmodel_preset = \"mistral-7b\"\nmax_num_seqs = 12\nenable_chunked_prefill = false\n"
      "[model]\nname = \"m\"\n[gpu]\nmem_gib = 40\n[cost]\nstep_overhead_us = 650.5\n",
      "e.toml");
  EXPECT_EQ(s.get<std::string>("engine.model_preset"), "mistral-7b");
  EXPECT_EQ(s.get<std::int64_t>("engine.max_num_seqs"), 12);
  EXPECT_EQ(s.get<bool>("engine.enable_chunked_prefill"), false);
  EXPECT_EQ(s.get<std::string>("model.name"), "m");
  EXPECT_EQ(s.get<double>("gpu.mem_gib"), 40.0);  // an integer where a number goes
  EXPECT_EQ(s.get<double>("cost.step_overhead_us"), 650.5);
  EXPECT_FALSE(s.get<double>("cost.seq_overhead_us"));
}

TEST(EngineToml, BadInputNamesFileLineAndKey) {
  EXPECT_EQ(engine_toml_error("[cost]\nwarp_speed = 9\n"), "e.toml:2 (cost.warp_speed): unknown key");
  EXPECT_EQ(engine_toml_error("[engine]\nmax_num_seqs = 1.5\n"), "e.toml:2 (engine.max_num_seqs): expected an integer");
  EXPECT_EQ(engine_toml_error("[cost]\n\nstep_overhead_us = \"x\"\n"),
            "e.toml:3 (cost.step_overhead_us): expected a number");
  EXPECT_EQ(engine_toml_error("[model]\ntie_word_embeddings = 1\n"),
            "e.toml:2 (model.tie_word_embeddings): expected true or false");
  EXPECT_EQ(engine_toml_error("[engine]\ngpu_preset = 3\n"), "e.toml:2 (engine.gpu_preset): expected a string");
  EXPECT_EQ(engine_toml_error("max_num_seqs = 3\n"),
            "e.toml:1: 'max_num_seqs' must be a table: [engine], [model], [gpu] or [cost]");
  EXPECT_EQ(engine_toml_error("[scheduler]\nmax_num_seqs = 3\n"), "e.toml:2 (scheduler.max_num_seqs): unknown key");
  const std::string syntax = engine_toml_error("[engine]\nmax_num_seqs = \n");
  EXPECT_EQ(syntax.rfind("e.toml:2:", 0), 0u) << syntax;
  EXPECT_EQ(syntax.find('\n'), std::string::npos) << syntax;
}

TEST(EngineToml, WritesTablesLinesAndComments) {
  const std::vector<EngineTomlLine> lines{
      {find_knob("engine.gpu_preset"), std::string("h\"1\\00"), ""},
      {find_knob("engine.max_num_seqs"), std::int64_t{64}, ""},
      {find_knob("engine.enable_chunked_prefill"), true, ""},
      {find_knob("cost.compute_efficiency"), 0.3812345678901, "fitted (start 0.5)"},
      {find_knob("cost.step_overhead_us"), 800.0, ""},
  };
  EXPECT_EQ(write_engine_toml(lines),
            "\n[engine]\ngpu_preset = \"h\\\"1\\\\00\"\nmax_num_seqs = 64\nenable_chunked_prefill = true\n"
            "\n[cost]\ncompute_efficiency = 0.3812345678901  # fitted (start 0.5)\nstep_overhead_us = 800\n");
  const std::string control =
      write_engine_toml(std::vector<EngineTomlLine>{{find_knob("model.name"), std::string("a\nb\x7f"), ""}});
  EXPECT_EQ(control, "\n[model]\nname = \"a\\u000Ab\\u007F\"\n");
  EXPECT_EQ(read_engine_toml(control, "c.toml").get<std::string>("model.name"), "a\nb\x7f");
}

}  // namespace
}  // namespace sb::sim
