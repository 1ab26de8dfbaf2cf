// The cause a server's last log lines name, on log tails shaped like vLLM's (CUDA and ROCm), our
// simulator's (CLI11) and a clean shutdown's (tests/data/orchestrate/).
#include "orchestrate/log_diagnosis.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/test_paths.hpp"

namespace sb::orchestrate {
namespace {

std::string diagnosis_log(const std::string& name) {
  std::ifstream in(test_files::source_path("tests/data/orchestrate/" + name), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

LogCause cause_of_file(const std::string& name, std::size_t lines = 20) {
  return diagnose_log(last_lines(diagnosis_log(name), lines));
}

TEST(LogDiagnosis, NamesEachCauseInRealLookingTails) {
  EXPECT_EQ(cause_of_file("vllm_cuda_oom.log"), LogCause::cuda_oom);
  EXPECT_EQ(cause_of_file("vllm_rocm_hip_oom.log"), LogCause::hip_oom);  // torch.OutOfMemoryError says HIP
  EXPECT_EQ(cause_of_file("vllm_port_in_use.log"), LogCause::port_in_use);
  EXPECT_EQ(cause_of_file("vllm_bad_flag.log"), LogCause::bad_flag);
  EXPECT_EQ(cause_of_file("vllm_bad_value.log"), LogCause::bad_flag);
  EXPECT_EQ(cause_of_file("sim_bad_flag.log"), LogCause::bad_flag);
  EXPECT_EQ(cause_of_file("sim_bad_value.log"), LogCause::bad_flag);
  EXPECT_EQ(cause_of_file("vllm_clean_shutdown.log"), LogCause::unknown);
}

TEST(LogDiagnosis, OnlyTheTailCounts) {
  // The CUDA OOM line is the 6th from the end: in a 5-line tail it is not seen.
  EXPECT_EQ(cause_of_file("vllm_cuda_oom.log", 6), LogCause::cuda_oom);
  EXPECT_EQ(cause_of_file("vllm_cuda_oom.log", 5), LogCause::unknown);
}

TEST(LogDiagnosis, TheLatestRecognisedLineWins) {
  const std::vector<std::string> lines{"ERROR [Errno 98] address already in use", "retrying on another port",
                                       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB"};
  EXPECT_EQ(diagnose_log(lines), LogCause::cuda_oom);
}

TEST(LogDiagnosis, LastLinesDropsBlankLinesCarriageReturnsAndColours) {
  const std::vector<std::string> lines = last_lines(diagnosis_log("colour_crlf.log"), 5);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "INFO 03-14 09:00:00 ERROR colour");
  EXPECT_EQ(lines[1], "torch.OutOfMemoryError: CUDA out of memory.");
  EXPECT_EQ(last_lines("", 5).size(), 0u);
  EXPECT_EQ(last_lines("only line", 5), (std::vector<std::string>{"only line"}));
  EXPECT_EQ(last_lines("a\nb\nc", 2), (std::vector<std::string>{"b", "c"}));
}

}  // namespace
}  // namespace sb::orchestrate
