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

TEST(Dataset, UnknownNameIsRejectedNamingTheFlag) {
  DatasetConfig cfg;
  cfg.name = "sonnet";
  EXPECT_EQ(dataset_error_of(cfg), "--dataset-name: unknown dataset 'sonnet' (expected random, sharegpt or custom)");
}

TEST(Dataset, RandomRejectsAPathAndFileDatasetsNeedOne) {
  DatasetConfig random;
  random.path = "x.json";
  EXPECT_NE(dataset_error_of(random).find("--dataset-path"), std::string::npos);
  DatasetConfig sharegpt;
  sharegpt.name = "sharegpt";
  EXPECT_EQ(dataset_error_of(sharegpt), "--dataset-path: required by --dataset-name sharegpt");
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

}  // namespace
}  // namespace sb
