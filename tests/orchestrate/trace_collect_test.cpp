// What a profiler left in a configuration's folder: rows, a header only, empty files, nothing.
#include "orchestrate/trace_collect.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace sb::orchestrate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRocprofv3Header =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
    "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_"
    "X\","
    "\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
constexpr const char* kRocprofv3Row =
    "\"KERNEL_DISPATCH\",\"Agent "
    "2\",1,1,12724,1,134,\"paged_attention_kernel\",1,32690104418909,32690104428924,0,0,64,0,"
    "32,256,1,1,65536,1,1\n";

struct CollectDir {
  fs::path path = fs::temp_directory_path() / ("sb_orch_traces_" + std::to_string(::getpid()));
  CollectDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~CollectDir() { fs::remove_all(path); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel, std::ios::binary) << text;
  }
};

TEST(TraceCollect, RowsHeaderOnlyAndEmptyAreTold) {
  CollectDir d;
  d.write("host/123_kernel_trace.csv", std::string(kRocprofv3Header) + kRocprofv3Row);
  d.write("host/456_kernel_trace.csv", kRocprofv3Header);
  d.write("vllm_trace.csv", "");
  d.write("server.log", "");  // ours: neither empty profiler output nor a trace
  d.write("sweep.json", "{}");
  const CollectedTraces c = collect_traces(d.path, {"server.log", "sweep.json"}, true);
  EXPECT_EQ(c.outcome, TraceOutcome::found);
  EXPECT_EQ(c.traces, (std::vector<fs::path>{d.path / "host/123_kernel_trace.csv"}));
  EXPECT_EQ(c.header_only, (std::vector<fs::path>{d.path / "host/456_kernel_trace.csv"}));
  EXPECT_EQ(c.empty, (std::vector<fs::path>{d.path / "vllm_trace.csv"}));
}

TEST(TraceCollect, HeaderOnlyWhenNoFileHasRows) {
  CollectDir d;
  d.write("prof_kernel_trace.csv", kRocprofv3Header);
  d.write("prof_kernel_trace.csv.servebench.json", "{\"simulated\": true}");
  EXPECT_EQ(collect_traces(d.path, {}, true).outcome, TraceOutcome::header_only);
}

TEST(TraceCollect, EmptyMissingAndNotAsked) {
  CollectDir d;
  EXPECT_EQ(collect_traces(d.path, {}, true).outcome, TraceOutcome::missing);
  EXPECT_EQ(collect_traces(d.path, {}, false).outcome, TraceOutcome::not_asked);
  d.write("vllm_trace.csv", "");
  EXPECT_EQ(collect_traces(d.path, {}, true).outcome, TraceOutcome::empty);
  d.write("notes.txt", "not a trace\n");
  EXPECT_EQ(collect_traces(d.path, {}, true).outcome, TraceOutcome::empty);
}

}  // namespace
}  // namespace sb::orchestrate
