#include "cli/config_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace sb::cli {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / ("sb_cfg_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(ConfigFile, ValuesBecomeFlagTextWithFileAndLine) {
  const std::string path = temp_file("a.toml",
                                     "# gateway\nbase_url = \"https://gw/api\"\ntimeout_s = 12.5\nnum_prompts = 40\n"
                                     "concurrency = [1, 4, 16]\nignore_eos = true\n");
  ConfigFile f = load_config_file(path);
  std::map<std::string, ConfigEntry> by_key;
  for (const auto& e : f.entries) by_key[e.key] = e;
  EXPECT_EQ(by_key.at("base-url").values, std::vector<std::string>{"https://gw/api"});
  EXPECT_EQ(by_key.at("timeout-s").values, std::vector<std::string>{"12.5"});
  EXPECT_EQ(by_key.at("num-prompts").values, std::vector<std::string>{"40"});
  EXPECT_EQ(by_key.at("concurrency").values, (std::vector<std::string>{"1", "4", "16"}));
  EXPECT_EQ(by_key.at("ignore-eos").values, std::vector<std::string>{"true"});
  EXPECT_EQ(by_key.at("num-prompts").where, path + ":4 (num_prompts)");
  std::filesystem::remove(path);
}

TEST(ConfigFile, ArraysOfTablesAndSyntaxErrorsAreRejected) {
  // A [table] is a profile (config_profile_test.cpp); an array of tables is nothing of ours.
  const std::string tables = temp_file("t.toml", "[[server]]\nport = 1\n");
  EXPECT_THROW(load_config_file(tables), UserError);
  const std::string bad = temp_file("b.toml", "a = \n");
  try {
    load_config_file(bad);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ":1:"), std::string::npos) << e.what();
  }
  std::filesystem::remove(tables);
  std::filesystem::remove(bad);
}

// config_toml_fuzz found "_us" -> "-us", which canonicalised again to "us".
TEST(ConfigFile, CanonicalFlagNamesAreCanonical) {
  for (const char* name : {"_us", "--_x_", "a__b", "-", "__", "num_prompts"}) {
    const std::string once = canonical_flag_name(name);
    EXPECT_EQ(canonical_flag_name(once), once) << name;
    EXPECT_EQ(once.find('_'), std::string::npos) << name;
  }
  EXPECT_EQ(canonical_flag_name("_us"), "us");
}

// config_toml_fuzz: "-" = 9 became an entry with an empty name; a quoted key with a line break
// made the error two lines.
TEST(ConfigFile, KeysThatAreNoSettingNameAreRefusedOnOneLine) {
  try {
    parse_config_text("- = 9\n", "k.toml", std::nullopt);
    ADD_FAILURE() << "no error for an empty setting name";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "k.toml:1 (-): not a setting name");
  }
  try {
    parse_config_text("\"a\\nb\" = [{x = 1}]\n", "k.toml", std::nullopt);
    ADD_FAILURE() << "no error for an array of tables";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(a\\nb)"), std::string::npos) << e.what();
  }
  try {  // a table name spelling a line break, listed in the --profile error
    parse_config_text("[\"x\\ny\"]\nmodel = \"m\"\n", "k.toml", std::string("gw"));
    ADD_FAILURE() << "no error for a missing profile";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "--profile gw: k.toml has no table [gw] (its tables: [x\\ny])");
  }
}

TEST(ConfigFile, CanonicalNamesAndDiscovery) {
  EXPECT_EQ(canonical_flag_name("--num_prompts"), "num-prompts");
  EXPECT_EQ(canonical_flag_name("base_url"), "base-url");
  const auto dir = std::filesystem::temp_directory_path() / ("sb_cfgdir_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(find_config_file(std::nullopt, dir.string()).has_value());
  std::ofstream(dir / "servebench.toml") << "seed = 1\n";
  EXPECT_EQ(find_config_file(std::nullopt, dir.string()), (dir / "servebench.toml").string());
  EXPECT_EQ(find_config_file(std::string("x.toml"), dir.string()), "x.toml");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sb::cli
