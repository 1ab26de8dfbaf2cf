#include "dataset/parallel.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace sb::dataset {
namespace {

TEST(Parallel, VisitsEveryIndexOnce) {
  std::vector<int> hits(1000, 0);
  parallel_for(hits.size(), [&](std::size_t i) { hits[i] += static_cast<int>(i); }, 1);
  for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], static_cast<int>(i));
}

TEST(Parallel, RethrowsTheErrorOfTheLowestIndex) {
  try {
    parallel_for(1000, [](std::size_t i) {
      if (i == 700 || i == 300) throw std::runtime_error(std::to_string(i));
    }, 1);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "300");
  }
}

}  // namespace
}  // namespace sb::dataset
