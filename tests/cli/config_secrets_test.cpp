// The config file as people keep it: a byte order mark from a Windows editor, a key in a file
// others can read (warned, with the fix); and --header in curl's colon form, whose values never
// appear in an error message.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/config_file.hpp"
#include "cli/header_arg.hpp"

namespace sb::cli {
namespace {

struct SecretToml {
  std::string path;
  SecretToml(const std::string& name, const std::string& text, mode_t mode)
      : path((std::filesystem::temp_directory_path() / ("sb_cfgsec_" + std::to_string(::getpid()) + "_" + name))
                 .string()) {
    std::ofstream(path, std::ios::binary) << text;
    ::chmod(path.c_str(), mode);
  }
  ~SecretToml() { std::filesystem::remove(path); }
};

TEST(ConfigFileBom, MarkAtTheStartIsAcceptedAndLinesStayTheSame) {
  const SecretToml f("bom.toml", "\xEF\xBB\xBFnum_prompts = 4\nmodel = \"m\"\n", 0600);
  const ConfigFile cfg = load_config_file(f.path);
  ASSERT_EQ(cfg.entries.size(), 2u);
  EXPECT_EQ(cfg.entries[0].key, "model");
  EXPECT_EQ(cfg.entries[0].where, f.path + ":2 (model)");
  EXPECT_EQ(cfg.entries[1].values, std::vector<std::string>{"4"});
}

TEST(ConfigFileSecrets, KeyInAFileOthersCanReadIsWarnedWithTheFix) {
  const SecretToml f("open.toml", "api_key = \"sk-abcdefgh12345\"\n", 0644);
  const ConfigFile cfg = load_config_file(f.path);
  ASSERT_EQ(cfg.warnings.size(), 1u);
  EXPECT_EQ(cfg.warnings[0], f.path + " holds an API key and can be read by everyone (mode 0644): chmod 600 " + f.path);
  EXPECT_EQ(cfg.warnings[0].find("sk-abcdefgh12345"), std::string::npos);
}

TEST(ConfigFileSecrets, GroupReadableAuthorizationHeaderIsWarned) {
  const SecretToml f("group.toml", "header = [\"Authorization=Bearer tok\"]\n", 0640);
  const ConfigFile cfg = load_config_file(f.path);
  ASSERT_EQ(cfg.warnings.size(), 1u);
  EXPECT_NE(cfg.warnings[0].find("can be read by its group (mode 0640)"), std::string::npos) << cfg.warnings[0];
}

TEST(ConfigFileSecrets, PrivateFileOrNoKeyIsNotWarned) {
  const SecretToml private_key("private.toml", "api_key = \"sk-abcdefgh12345\"\n", 0600);
  EXPECT_TRUE(load_config_file(private_key.path).warnings.empty());
  const SecretToml no_key("nokey.toml", "num_prompts = 3\n", 0644);
  EXPECT_TRUE(load_config_file(no_key.path).warnings.empty());
}

TEST(HeaderArg, BothFormsGiveNameAndValue) {
  const HeaderArg eq = parse_header_arg("X-Trace=a=b");
  ASSERT_TRUE(eq.header);
  EXPECT_EQ(eq.header->first, "X-Trace");
  EXPECT_EQ(eq.header->second, "a=b");
  const HeaderArg colon = parse_header_arg("Authorization: Bearer sk-abc==");
  ASSERT_TRUE(colon.header);
  EXPECT_EQ(colon.header->first, "Authorization");
  EXPECT_EQ(colon.header->second, "Bearer sk-abc==");
  const HeaderArg url = parse_header_arg("X-Origin=http://a:1");  // '=' first: KEY=VALUE
  ASSERT_TRUE(url.header);
  EXPECT_EQ(url.header->second, "http://a:1");
}

TEST(HeaderArg, ErrorsNeverShowTheValue) {
  const std::string key = "sk-SECRETVALUE123456";
  for (const std::string& bad : {"Authorization Bearer " + key, "Bad Name: Bearer " + key,
                                 "Authorization: Bearer " + key + "\r\nX-Injected: 1", key}) {
    const HeaderArg h = parse_header_arg(bad);
    EXPECT_FALSE(h.header) << bad;
    EXPECT_FALSE(h.error.empty());
    EXPECT_EQ(h.error.find("SECRETVALUE"), std::string::npos) << h.error;
  }
}

}  // namespace
}  // namespace sb::cli
