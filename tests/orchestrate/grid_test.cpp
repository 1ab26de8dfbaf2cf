// The configurations of --grid and of a --configs TOML file: order, names, errors.
#include "orchestrate/grid.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb::orchestrate {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

GridAxis axis_of(std::string_view arg) {
  std::string error;
  GridAxis a = parse_grid_arg(arg, error);
  EXPECT_EQ(error, "") << arg;
  return a;
}

TEST(Grid, ProductInFlagOrderFirstKeySlowestFirstIsAllFirstValues) {
  const auto configs =
      expand_grid({axis_of("max_num_seqs=128,256"), axis_of("max_num_batched_tokens=4096,8192,16384")});
  ASSERT_EQ(configs.size(), 6u);
  EXPECT_EQ(configs[0].name, "max_num_seqs=128,max_num_batched_tokens=4096");
  EXPECT_EQ(configs[0].params, (Params{{"max_num_seqs", "128"}, {"max_num_batched_tokens", "4096"}}));
  EXPECT_EQ(configs[1].name, "max_num_seqs=128,max_num_batched_tokens=8192");
  EXPECT_EQ(configs[2].name, "max_num_seqs=128,max_num_batched_tokens=16384");
  EXPECT_EQ(configs[3].name, "max_num_seqs=256,max_num_batched_tokens=4096");
  EXPECT_EQ(configs[5].params, (Params{{"max_num_seqs", "256"}, {"max_num_batched_tokens", "16384"}}));
}

TEST(Grid, NoAxesIsOneBaseline) {
  const auto configs = expand_grid({});
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].name, "baseline");
  EXPECT_TRUE(configs[0].params.empty());
}

TEST(Grid, EmptyItemIsAnEmptyValue) {
  const GridAxis a = axis_of("chunked=--enable-chunked-prefill,");
  EXPECT_EQ(a.values, (std::vector<std::string>{"--enable-chunked-prefill", ""}));
}

TEST(Grid, BadArgumentsSayWhat) {
  std::string error;
  EXPECT_EQ(parse_grid_arg("max_num_seqs", error).key, "");
  EXPECT_NE(error.find("KEY=VALUE"), std::string::npos) << error;
  parse_grid_arg("max-num-seqs=1,2", error);
  EXPECT_NE(error.find("not a placeholder name"), std::string::npos) << error;
  parse_grid_arg("port=1,2", error);
  EXPECT_NE(error.find("tune fills itself"), std::string::npos) << error;
  parse_grid_arg("block_size=16,8,16", error);
  EXPECT_NE(error.find("listed twice"), std::string::npos) << error;
}

TEST(Grid, TomlTablesInFileOrderWithValuesInFileOrder) {
  const auto configs = parse_configurations_toml(R"(
[zeta_baseline]
max_num_seqs = 256
block_size = 16

[alpha_tuned]
max_num_seqs = 128
block_size = 8
chunked = "--enable-chunked-prefill"
fp8 = true
ratio = 0.5
)",
                                                 "tune.toml");
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].name, "zeta_baseline");  // not sorted by name: the first table is the baseline
  EXPECT_EQ(configs[0].params, (Params{{"max_num_seqs", "256"}, {"block_size", "16"}}));
  EXPECT_EQ(configs[1].name, "alpha_tuned");
  EXPECT_EQ(configs[1].params, (Params{{"max_num_seqs", "128"},
                                       {"block_size", "8"},
                                       {"chunked", "--enable-chunked-prefill"},
                                       {"fp8", "true"},
                                       {"ratio", "0.5"}}));
}

TEST(Grid, TomlErrorsNameFileAndLine) {
  try {
    parse_configurations_toml("[a]\nx = 1\n[b]\ny = [1, 2]\n", "tune.toml");
    FAIL() << "an array value was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("tune.toml:4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_configurations_toml("x = 1\n", "tune.toml"), UserError);  // not a table
  EXPECT_THROW(parse_configurations_toml("", "tune.toml"), UserError);         // no configuration
  EXPECT_THROW(parse_configurations_toml("[a\n", "tune.toml"), UserError);     // not TOML
  EXPECT_THROW(parse_configurations_toml("[a]\nport = 1\n", "tune.toml"), UserError);
}

TEST(Grid, FolderNamesKeepTheNameReadableAndSafe) {
  EXPECT_EQ(config_dir_name("max_num_seqs=128,block_size=16"), "max_num_seqs=128,block_size=16");
  EXPECT_EQ(config_dir_name("model=meta-llama/Llama 3"), "model=meta-llama_Llama_3");
  EXPECT_EQ(config_dir_name(".."), "_..");
}

}  // namespace
}  // namespace sb::orchestrate
