// `servebench tune` option parsing: tune's flags out, the rest through run's parser, the flags tune
// sets refused, placeholders checked against the configurations, every problem at once.
#include "cli/tune_options.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace sb::cli {
namespace {

struct TuneOptsDir {
  std::string path = (std::filesystem::temp_directory_path() / ("sb_tune_opts_" + std::to_string(::getpid()))).string();
  TuneOptsDir() { std::filesystem::create_directories(path); }
  ~TuneOptsDir() { std::filesystem::remove_all(path); }
};

ParseInput tune_input(std::vector<std::string> args, const std::string& cwd) {
  ParseInput in;
  in.args = std::move(args);
  in.env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  in.cwd = cwd;
  return in;
}

std::string tune_problems(std::vector<std::string> args, const std::string& cwd) {
  try {
    parse_tune_options(tune_input(std::move(args), cwd));
  } catch (const UserError& e) {
    EXPECT_EQ(e.code(), ExitCode::config_error);
    return e.what();
  }
  return "";
}

TEST(TuneOptions, TuneFlagsOutRunFlagsThrough) {
  TuneOptsDir d;
  const auto t = parse_tune_options(
      tune_input({"--server-cmd", "vllm serve m --port {port} --max-num-seqs {seqs}", "--concurrency", "1", "4",
                  "--grid=seqs=64,128", "--num-prompts", "16", "--server_profile", "--output-dir", d.path + "/out",
                  "--port-base", "9000", "--slo", "ttft_p99_ms=500", "--stop-timeout-s", "2.5"},
                 d.path));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->params.server_cmd, "vllm serve m --port {port} --max-num-seqs {seqs}");
  ASSERT_EQ(t->params.configs.size(), 2u);
  EXPECT_EQ(t->params.configs[0].name, "seqs=64");
  EXPECT_TRUE(t->params.server_profile);
  EXPECT_EQ(t->params.port_base, 9000);
  EXPECT_DOUBLE_EQ(t->params.stop.sigint_s, 2.5);
  EXPECT_EQ(t->params.output_dir, std::filesystem::path(d.path + "/out"));
  EXPECT_EQ(t->params.run.load.concurrency, (std::vector<int>{1, 4}));
  EXPECT_EQ(t->params.run.dataset.num_prompts, 16);
  ASSERT_EQ(t->slos.size(), 1u);
  EXPECT_EQ(t->slos[0].metric, "ttft_p99_ms");
}

TEST(TuneOptions, EveryProblemAtOnceTuneAndRunAlike) {
  TuneOptsDir d;
  const std::string msg = tune_problems({"--server-cmd", "vllm serve m --port {port} {typo}", "--grid", "seqs=1,2",
                                         "--port", "8000", "--output-json", "x.json", "--num-prompts", "-3"},
                                        d.path);
  EXPECT_NE(msg.find("--port: tune sets it"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--output-json: tune sets it"), std::string::npos) << msg;
  EXPECT_NE(msg.find("{typo} is neither a grid key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--grid seqs: {seqs} appears in neither"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--num-prompts"), std::string::npos) << msg;  // run's own check
}

TEST(TuneOptions, ServerCommandPortAndConfigurationSources) {
  TuneOptsDir d;
  EXPECT_NE(tune_problems({"--concurrency", "1"}, d.path).find("--server-cmd: required"), std::string::npos);
  EXPECT_NE(tune_problems({"--server-cmd", "vllm serve m"}, d.path).find("no {port}"), std::string::npos);
  EXPECT_EQ(tune_problems({"--server-cmd", "vllm serve m", "--port-base", "8000"}, d.path), "");
  EXPECT_NE(tune_problems({"--server-cmd", "vllm serve 'm --port {port}"}, d.path).find("unterminated"),
            std::string::npos);
  std::ofstream(d.path + "/c.toml") << "[a]\nseqs = 1\n";
  EXPECT_NE(tune_problems(
                {"--server-cmd", "x --port {port} {seqs}", "--configs", d.path + "/c.toml", "--grid", "seqs=1"}, d.path)
                .find("give one of them"),
            std::string::npos);
  const auto t = parse_tune_options(
      tune_input({"--server-cmd", "x --port {port} {seqs}", "--configs", d.path + "/c.toml"}, d.path));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->params.configs[0].name, "a");
  EXPECT_NE(tune_problems({"--server-cmd", "x --port {port}", "--configs", d.path + "/none.toml"}, d.path)
                .find("cannot read"),
            std::string::npos);
}

}  // namespace
}  // namespace sb::cli
