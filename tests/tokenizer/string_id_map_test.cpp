#include "tokenizer/string_id_map.hpp"

#include <gtest/gtest.h>

namespace sb::tok {
namespace {

TEST(StringIdMap, FindsInsertedKeysAcrossGrowth) {
  StringIdMap m;  // no reserve: forces several grow() rehashes
  for (int i = 0; i < 5000; ++i) m.insert("tok" + std::to_string(i), i);
  EXPECT_EQ(m.size(), 5000u);
  EXPECT_EQ(m.find("tok0"), 0);
  EXPECT_EQ(m.find("tok4999"), 4999);
  EXPECT_FALSE(m.find("tok5000").has_value());
  EXPECT_FALSE(m.find("").has_value());
}

TEST(StringIdMap, LaterInsertWinsAndBinaryKeysWork) {
  StringIdMap m;
  m.reserve(4);
  m.insert("a", 1);
  m.insert("a", 2);
  m.insert(std::string_view("\0b", 2), 3);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.find("a"), 2);
  EXPECT_EQ(m.find(std::string_view("\0b", 2)), 3);
  EXPECT_FALSE(m.find("b").has_value());
}

}  // namespace
}  // namespace sb::tok
