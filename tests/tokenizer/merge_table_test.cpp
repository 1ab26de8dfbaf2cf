#include "tokenizer/merge_table.hpp"

#include <gtest/gtest.h>

namespace sb::tok {
namespace {

TEST(MergeTable, LooksUpOrderedPairs) {
  MergeTable t;
  t.reserve(3);
  t.insert(1, 2, {0, 10});
  t.insert(2, 1, {1, 11});
  EXPECT_EQ(t.find(1, 2).new_id, 10);
  EXPECT_EQ(t.find(2, 1).rank, 1);
  EXPECT_EQ(t.find(1, 3).rank, -1);  // absent pair
}

TEST(MergeTable, DuplicatePairKeepsTheLaterRankLikeHf) {
  MergeTable t;
  t.reserve(2);
  t.insert(5, 6, {0, 7});
  t.insert(5, 6, {4, 7});
  EXPECT_EQ(t.find(5, 6).rank, 4);
}

}  // namespace
}  // namespace sb::tok
