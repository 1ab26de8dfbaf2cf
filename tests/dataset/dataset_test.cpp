// load_dataset() dispatch: names, path rules, timing.
#include "dataset/dataset.hpp"

#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb {
namespace {

std::string dataset_error_of(const DatasetConfig& cfg) {
  try {
    load_dataset(cfg, nullptr);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Dataset, UnknownNameIsRejectedNamingTheField) {
  DatasetConfig cfg;
  cfg.name = "sonnet";
  EXPECT_EQ(dataset_error_of(cfg), "name: 'sonnet' is not one of random, sharegpt, custom");
}

TEST(Dataset, RandomRejectsAPathAndFileDatasetsNeedOne) {
  DatasetConfig random;
  random.path = "x.json";
  EXPECT_EQ(dataset_error_of(random), "path: the random dataset takes no file");
  DatasetConfig sharegpt;
  sharegpt.name = "sharegpt";
  EXPECT_EQ(dataset_error_of(sharegpt), "path: the sharegpt dataset needs a file");
  DatasetConfig custom;
  custom.name = "custom";
  custom.path = "/nonexistent/rows.jsonl";
  EXPECT_EQ(dataset_error_of(custom), "--dataset-path: /nonexistent/rows.jsonl: no such file");
}

TEST(Dataset, FillsLoadSeconds) {
  DatasetConfig cfg;
  cfg.num_prompts = 3;
  cfg.random_input_len = 5;
  Dataset ds = load_dataset(cfg, nullptr);
  EXPECT_EQ(ds.requests.size(), 3u);
  EXPECT_GT(ds.load_seconds, 0.0);
  EXPECT_LT(ds.load_seconds, 5.0);
}

TEST(Dataset, ValidateReportsEveryProblemByField) {
  DatasetConfig cfg;
  cfg.name = "sharegpt";
  cfg.num_prompts = 0;
  cfg.random_output_len = 0;
  cfg.random_range_ratio_input = 1.5;
  cfg.random_prefix_len = -1;
  cfg.sharegpt_output_len = 0;
  cfg.custom_output_len = 0;
  std::vector<std::string> fields;
  for (const Problem& p : validate(cfg)) fields.push_back(p.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"path", "num_prompts", "random_output_len", "random_range_ratio_input",
                                              "random_prefix_len", "sharegpt_output_len", "custom_output_len"}));
  EXPECT_EQ(validate(cfg)[1].message, "must be > 0, got 0");
  EXPECT_TRUE(validate(DatasetConfig{}).empty());
  DatasetConfig every_row;  // custom: num_prompts <= 0 reads every row
  every_row.name = "custom";
  every_row.path = "rows.jsonl";
  every_row.num_prompts = 0;
  EXPECT_TRUE(validate(every_row).empty());
}

}  // namespace
}  // namespace sb
