// `servebench run --config FILE --profile NAME`: the profile's settings reach RunConfig under our
// names, flags override them, unknown keys are warned about by file and line, and the choice's
// errors come out as the run's one-line errors.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli/run_options.hpp"
#include "core/error.hpp"

namespace sb::cli {
namespace {

const std::string kGatewayToml =
    "[taotoken]\n"                                    // 1
    "api_key = \"tt-PROFILEkey-42\"\n"                // 2
    "base_url = \"https://taotoken.net/api\"\n"       // 3
    "default_model = \"claude-sonnet-4-20250514\"\n"  // 4
    "timeout = 120\n"                                 // 5
    "provider = \"anthropic\"\n"                      // 6: another tool's key
    "\n"
    "[local]\n"
    "base_url = \"http://127.0.0.1:8000/v1/\"\n"
    "model = \"llama\"\n";

struct ProfileRun {
  std::string dir;
  std::map<std::string, std::string> env;

  ProfileRun() {
    dir = (std::filesystem::temp_directory_path() / ("sb_run_profile_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/gw.toml") << kGatewayToml;
    ::chmod((dir + "/gw.toml").c_str(), 0600);  // no permission warning in the captured stderr
  }
  ~ProfileRun() { std::filesystem::remove_all(dir); }

  std::string file() const { return dir + "/gw.toml"; }
  ParseInput input(std::vector<std::string> args) const {
    ParseInput in;
    in.args = std::move(args);
    in.env = [copy = env](const std::string& k) -> std::optional<std::string> {
      auto it = copy.find(k);
      return it == copy.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    in.cwd = dir;
    return in;
  }
  RunConfig parse(std::vector<std::string> args) const {
    std::optional<RunConfig> cfg = parse_run_options(input(std::move(args)));
    EXPECT_TRUE(cfg.has_value());
    return cfg ? *cfg : RunConfig{};
  }
  std::string error_of(std::vector<std::string> args) const {
    try {
      parse_run_options(input(std::move(args)));
    } catch (const UserError& e) {
      EXPECT_EQ(e.code(), ExitCode::config_error);
      return e.what();
    }
    return "no error";
  }
};

TEST(RunProfile, TheProfileSetsModelKeyTimeoutAndUrlAndFlagsOverrideIt) {
  ProfileRun f;
  f.env["OPENAI_API_KEY"] = "sk-from-env-0000";
  ::testing::internal::CaptureStderr();
  RunConfig c = f.parse({"--config", f.file(), "--profile", "taotoken"});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(c.model, "claude-sonnet-4-20250514");
  EXPECT_EQ(c.api_key, "tt-PROFILEkey-42");  // the profile's key beats the environment's
  EXPECT_EQ(c.api_key_source, "config file");
  EXPECT_DOUBLE_EQ(c.client.timeout_s, 120);
  EXPECT_EQ(c.client.endpoint.url(c.client.path), "https://taotoken.net/api/v1/completions");
  EXPECT_EQ(err, "warning: " + f.file() + ":6 (provider): unknown key in profile [taotoken], ignored\n");
  EXPECT_EQ(err.find("PROFILEkey"), std::string::npos);

  ::testing::internal::CaptureStderr();
  c = f.parse({"--config", f.file(), "--profile", "taotoken", "--model", "flag-model", "--timeout-s", "30",
               "--base-url", "http://127.0.0.1:9/v1", "--backend", "openai-chat"});
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(c.model, "flag-model");
  EXPECT_DOUBLE_EQ(c.client.timeout_s, 30);
  EXPECT_EQ(c.client.endpoint.url(c.client.path), "http://127.0.0.1:9/v1/chat/completions");
  EXPECT_EQ(c.api_key, "tt-PROFILEkey-42");  // not overridden: still the profile's

  c = f.parse({"--config", f.file(), "--profile", "local"});
  EXPECT_EQ(c.model, "llama");
  EXPECT_EQ(c.api_key, "sk-from-env-0000");  // [local] has none
  EXPECT_EQ(c.client.endpoint.url(c.client.path), "http://127.0.0.1:8000/v1/completions");
  EXPECT_EQ(c.client.endpoint.url("/v1/models"), "http://127.0.0.1:8000/v1/models");
}

TEST(RunProfile, ChoiceErrorsAreOneLineListingTheTables) {
  ProfileRun f;
  EXPECT_EQ(f.error_of({"--config", f.file()}),
            f.file() + " has 2 profiles ([local], [taotoken]): choose one with --profile NAME");
  EXPECT_EQ(f.error_of({"--config", f.file(), "--profile", "openai"}),
            "--profile openai: " + f.file() + " has no table [openai] (its tables: [local], [taotoken])");
  EXPECT_EQ(f.error_of({"--profile", "openai"}),
            "--profile openai: no config file to read it from (give --config FILE, or put servebench.toml in this "
            "folder)");
  std::ofstream(f.dir + "/servebench.toml") << "profile = \"local\"\n";
  EXPECT_EQ(f.error_of({}), f.dir + "/servebench.toml:1 (profile): the profile is chosen on the command line "
                            "(--profile NAME)");
}

TEST(RunProfile, AKeyWithALineBreakIsRefusedWithoutShowingIt) {
  ProfileRun f;
  std::ofstream(f.dir + "/nl.toml") << "[gw]\napi_key = \"tt-NEWLINEkey\\r\\nX-Injected: 1\"\n";
  const std::string e = f.error_of({"--config", f.dir + "/nl.toml"});
  EXPECT_EQ(e, f.dir + "/nl.toml:2 (api_key): holds a line break or NUL (the key is not shown)");
  f.env["OPENAI_API_KEY"] = "sk-ENVkey\n";
  EXPECT_EQ(f.error_of({"--port", "1"}),
            "--api-key-env: environment variable OPENAI_API_KEY holds a line break or NUL (the key is not shown)");
}

}  // namespace
}  // namespace sb::cli
