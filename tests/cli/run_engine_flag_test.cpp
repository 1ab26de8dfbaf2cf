// `servebench run --engine`: auto (the default) leaves the engine to preflight's detection; a named
// engine is taken as given, from the flag or the config file; anything else is one config error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/run_options.hpp"
#include "core/error.hpp"

namespace sb::cli {
namespace {

struct EngineFlagFixture {
  std::string dir = (std::filesystem::temp_directory_path() / ("sb_engine_flag_" + std::to_string(::getpid()))).string();
  EngineFlagFixture() { std::filesystem::create_directories(dir); }
  ~EngineFlagFixture() { std::filesystem::remove_all(dir); }

  std::optional<RunConfig> parse(std::vector<std::string> args) const {
    ParseInput in;
    in.args = std::move(args);
    in.env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
    in.cwd = dir;
    return parse_run_options(in);
  }
};

TEST(RunEngineFlag, AutoByDefaultNamedEnginesGiven) {
  EngineFlagFixture f;
  EXPECT_EQ(f.parse({})->engine, std::nullopt);
  EXPECT_EQ(f.parse({"--engine", "auto"})->engine, std::nullopt);
  EXPECT_EQ(f.parse({"--engine", "llama.cpp"})->engine, Engine::llamacpp);
  EXPECT_EQ(f.parse({"--engine", "tgi", "--backend", "openai-chat"})->engine, Engine::tgi);
  std::ofstream(f.dir + "/servebench.toml") << "engine = \"sglang\"\n";
  EXPECT_EQ(f.parse({})->engine, Engine::sglang);
}

TEST(RunEngineFlag, UnknownEngineIsAConfigError) {
  EngineFlagFixture f;
  try {
    f.parse({"--engine", "trtllm"});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.code(), ExitCode::config_error);
    EXPECT_NE(std::string(e.what()).find("--engine: 'trtllm' is not one of auto, vllm, sglang, tgi, llama.cpp, openai"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sb::cli
