#include "sim/token_log.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"

namespace sb::sim {
namespace {

std::filesystem::path temp_file(const char* name) {
  return std::filesystem::temp_directory_path() / (std::string(name) + "_" + std::to_string(::getpid()));
}

TEST(TokenLog, WritesDocumentedLinesAcrossBatches) {
  const auto path = temp_file("token_log_test");
  {
    TokenLog log(path);
    log.begin(1, "req one");  // whitespace becomes '_'
    log.begin(2, "b");
    for (int i = 0; i < 40000; ++i) log.token(i % 2 ? 2 : 1, i / 2, 1000 + i);  // > one batch
    log.end(1);
    log.end(2);
  }
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "# servebench-sim token-log v1: send_ns request_id token_index");
  const auto rows = read_token_log(path);
  ASSERT_EQ(rows.size(), 40000u);
  EXPECT_EQ(rows[0].send_ns, 1000);
  EXPECT_EQ(rows[0].request_id, "req_one");
  EXPECT_EQ(rows[0].token_index, 0);
  EXPECT_EQ(rows[39999].request_id, "b");
  EXPECT_EQ(rows[39999].token_index, 19999);
  EXPECT_EQ(rows[39999].send_ns, 1000 + 39999);
  std::filesystem::remove(path);
}

TEST(TokenLog, FlushMakesRowsVisible) {
  const auto path = temp_file("token_log_flush");
  TokenLog log(path);
  log.begin(5, "x");
  log.token(5, 0, 42);
  log.flush();
  const auto rows = read_token_log(path);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].send_ns, 42);
  std::filesystem::remove(path);
}

TEST(TokenLog, ErrorsNameTheFileAndLine) {
  EXPECT_THROW(TokenLog("/nonexistent-dir/x.log"), UserError);
  const auto path = temp_file("token_log_bad");
  std::ofstream(path) << "# header\n12 a 0\nnot a line\n";
  try {
    read_token_log(path);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ":3"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace sb::sim
