// Gateway profiles as users already write them: one table per gateway ([taotoken] / api_key /
// base_url / default_model / timeout), picked by --profile or by being the only one; every error's
// exact text; the permission check when any table holds a key.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli/config_file.hpp"
#include "core/error.hpp"

namespace sb::cli {
namespace {

const std::string kTwoGateways =
    "[taotoken]\n"                                      // 1
    "api_key = \"tt-secret-0001\"\n"                    // 2
    "base_url = \"https://taotoken.net/api\"\n"         // 3
    "default_model = \"claude-sonnet-4-20250514\"\n"    // 4
    "timeout = 120\n"                                   // 5
    "\n"                                                // 6
    "[local]\n"                                         // 7
    "base_url = \"http://127.0.0.1:8000/v1\"\n"         // 8
    "model = \"llama\"\n";                              // 9

std::map<std::string, ConfigEntry> by_key(const ConfigFile& f) {
  std::map<std::string, ConfigEntry> out;
  for (const ConfigEntry& e : f.entries) out[e.key] = e;
  return out;
}

std::string parse_error(const std::string& text, const std::optional<std::string>& profile) {
  try {
    parse_config_text(text, "gw.toml", profile);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ConfigProfile, NamedTableGivesItsKeysUnderOurNames) {
  const ConfigFile f = parse_config_text(kTwoGateways, "gw.toml", std::string("taotoken"));
  EXPECT_EQ(f.profile, "taotoken");
  const auto keys = by_key(f);
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys.at("api-key").values, std::vector<std::string>{"tt-secret-0001"});
  EXPECT_EQ(keys.at("base-url").values, std::vector<std::string>{"https://taotoken.net/api"});
  EXPECT_EQ(keys.at("model").values, std::vector<std::string>{"claude-sonnet-4-20250514"});  // default_model
  EXPECT_EQ(keys.at("model").where, "gw.toml:4 (default_model)");
  EXPECT_EQ(keys.at("timeout-s").values, std::vector<std::string>{"120"});  // timeout
  EXPECT_EQ(keys.at("timeout-s").where, "gw.toml:5 (timeout)");
  EXPECT_TRUE(keys.at("model").in_profile);
  EXPECT_TRUE(f.holds_credential);
  EXPECT_TRUE(f.warnings.empty());
  const auto local = by_key(parse_config_text(kTwoGateways, "gw.toml", std::string("local")));
  EXPECT_EQ(local.at("model").values, std::vector<std::string>{"llama"});
  EXPECT_EQ(local.count("api-key"), 0u);  // the other table's key is not read
}

TEST(ConfigProfile, TheOnlyTableIsPickedWithoutProfile) {
  const ConfigFile f = parse_config_text("[gw]\nmodel = \"m\"\n", "gw.toml", std::nullopt);
  EXPECT_EQ(f.profile, "gw");
  ASSERT_EQ(f.entries.size(), 1u);
  EXPECT_EQ(f.entries[0].where, "gw.toml:2 (model)");
  const ConfigFile flat = parse_config_text("model = \"m\"\n", "gw.toml", std::nullopt);
  EXPECT_FALSE(flat.profile.has_value());
  EXPECT_FALSE(flat.entries[0].in_profile);
}

TEST(ConfigProfile, ProfileKeysReplaceTopLevelOnes) {
  const ConfigFile f = parse_config_text("num_prompts = 7\nmodel = \"top\"\n[gw]\ndefault_model = \"mine\"\n",
                                         "gw.toml", std::nullopt);
  const auto keys = by_key(f);
  EXPECT_EQ(keys.at("model").values, std::vector<std::string>{"mine"});
  EXPECT_EQ(keys.at("num-prompts").values, std::vector<std::string>{"7"});
  EXPECT_FALSE(keys.at("num-prompts").in_profile);
}

TEST(ConfigProfile, EveryErrorIsOneLineNamingWhatAndWhere) {
  EXPECT_EQ(parse_error(kTwoGateways, std::nullopt),
            "gw.toml has 2 profiles ([local], [taotoken]): choose one with --profile NAME");
  EXPECT_EQ(parse_error(kTwoGateways, std::string("openai")),
            "--profile openai: gw.toml has no table [openai] (its tables: [local], [taotoken])");
  EXPECT_EQ(parse_error("model = \"m\"\n", std::string("openai")),
            "--profile openai: gw.toml has no table [openai] (it has no tables)");
  EXPECT_EQ(parse_error("[gw]\nmodel = \"a\"\ndefault_model = \"b\"\n", std::nullopt),
            "gw.toml:3 (default_model): the same setting as gw.toml:2 (model); keep one");
  EXPECT_EQ(parse_error("[gw]\ntimeout = 5\ntimeout_s = 6\n", std::nullopt),
            "gw.toml:3 (timeout_s): the same setting as gw.toml:2 (timeout); keep one");
  EXPECT_EQ(parse_error("[gw]\nmodel = [[1]]\n", std::nullopt),
            "gw.toml:2 (model): array elements must be strings, numbers or booleans");
  EXPECT_EQ(parse_error("[gw]\nmodel = \n", std::nullopt).rfind("gw.toml:2:", 0), 0u);
}

TEST(ConfigProfile, ATableInsideTheProfileIsWarnedAndIgnored) {
  const ConfigFile f = parse_config_text("[gw]\nmodel = \"m\"\n[gw.limits]\nrpm = 60\n", "gw.toml", std::nullopt);
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0], "gw.toml:3 (limits): a table inside profile [gw], ignored");
  EXPECT_EQ(f.entries.size(), 1u);
}

TEST(ConfigProfile, KeyInAnyTableOfAReadableFileIsWarned) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("sb_cfgprof_" + std::to_string(::getpid()) + ".toml")).string();
  std::ofstream(path) << kTwoGateways;
  ::chmod(path.c_str(), 0640);
  // [local] is read, but the file holds [taotoken]'s key all the same.
  const ConfigFile f = load_config_file(path, std::string("local"));
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0], path + " holds an API key and can be read by its group (mode 0640): chmod 600 " + path);
  ::chmod(path.c_str(), 0600);
  EXPECT_TRUE(load_config_file(path, std::string("local")).warnings.empty());
  std::filesystem::remove(path);
}

// config_toml_fuzz found toml++ quoting the input's line break in its description.
TEST(ConfigProfile, ParserErrorsQuotingTheInputStayOneLine) {
  const std::string err = parse_error("enable = fal\nmodel = \"m\"\n", std::nullopt);
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  EXPECT_NE(err.find("gw.toml:1:"), std::string::npos) << err;
  EXPECT_NE(err.find("\\n"), std::string::npos) << err;  // the break is shown, escaped
}

TEST(ConfigProfile, OneLineEscapesEveryControlByte) {
  EXPECT_EQ(one_line(std::string("a\nb\rc\td\x01" "e\x7f", 10)), "a\\nb\\rc\\td\\x01e\\x7f");
}

}  // namespace
}  // namespace sb::cli
