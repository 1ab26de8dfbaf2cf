// Tests for src/report/engine_text.cpp: the engine line printed before the load.
#include "report/engine_text.hpp"

#include <gtest/gtest.h>

namespace sb::report {
namespace {

TEST(EngineLine, SaysHowTheEngineWasKnown) {
  EXPECT_EQ(format_engine_line("llama.cpp", "models.owned_by", ""), "engine: llama.cpp (from owned_by in GET /v1/models)");
  EXPECT_EQ(format_engine_line("tgi", "info", "3.3.6"), "engine: tgi (from GET /info, version 3.3.6)");
  EXPECT_EQ(format_engine_line("sglang", "given", ""), "engine: sglang (given by --engine)");
  EXPECT_EQ(format_engine_line("openai", "none", ""),
            "engine: openai (generic: no engine-specific answer; --engine names one)");
}

}  // namespace
}  // namespace sb::report
