// Tests for src/pipeline/output_paths.cpp: every way an output path cannot work is found before
// the run sends anything, by the field that named it.
#include "pipeline/output_paths.hpp"

#include <gtest/gtest.h>

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace sb::pipeline {
namespace {

namespace fs = std::filesystem;

struct PathsDir {
  fs::path path = fs::temp_directory_path() / ("sb_output_paths_" + std::to_string(::getpid()));
  PathsDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~PathsDir() {
    ::chmod(path.c_str(), 0700);
    fs::remove_all(path);
  }
  std::string at(const std::string& name) const { return (path / name).string(); }
};

TEST(OutputPaths, WritablePathsAndMissingFoldersPassAndLeaveNothing) {
  PathsDir dir;
  RunConfig cfg;
  cfg.output_json = dir.at("sweep.json");
  cfg.requests_jsonl = dir.at("new/folder/r.jsonl");  // made later by RunOutputs
  cfg.csv = "/dev/null";                              // written directly
  cfg.save_result = true;
  cfg.result_dir = dir.at("results");
  EXPECT_TRUE(check_output_paths(cfg).empty());
  EXPECT_TRUE(fs::is_empty(dir.path));  // the probe file is gone, no folder made yet
}

TEST(OutputPaths, FolderWhereTheFileGoes) {
  PathsDir dir;
  fs::create_directories(dir.path / "taken");
  RunConfig cfg;
  cfg.output_json = dir.at("taken");
  const Problems p = check_output_paths(cfg);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].field, "output_json");
  EXPECT_EQ(p[0].message, dir.at("taken") + ": is a folder, not a file");
}

TEST(OutputPaths, FileWhereAFolderShouldBe) {
  PathsDir dir;
  std::ofstream(dir.at("plain")) << "x";
  RunConfig cfg;
  cfg.csv = dir.at("plain/table.csv");
  cfg.save_result = true;
  cfg.result_dir = dir.at("plain");
  const Problems p = check_output_paths(cfg);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].field, "csv");
  EXPECT_EQ(p[0].message, dir.at("plain/table.csv") + ": " + dir.at("plain") + " is not a folder");
  EXPECT_EQ(p[1].field, "result_dir");
}

TEST(OutputPaths, NameLongerThanTheFileSystemAllows) {
  PathsDir dir;
  RunConfig cfg;
  cfg.output_json = dir.at(std::string(256, 'a') + ".json");
  cfg.requests_jsonl = dir.at(std::string(300, 'b') + "/r.jsonl");
  cfg.save_result = true;
  cfg.result_filename = std::string(250, 'c') + ".json";  // fits, but not with "-stage999"
  const Problems p = check_output_paths(cfg);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].field, "output_json");
  EXPECT_NE(p[0].message.find("file name too long (261 bytes, the file system allows 255)"), std::string::npos)
      << p[0].message;
  EXPECT_EQ(p[1].field, "requests_jsonl");
  EXPECT_NE(p[1].message.find("folder name"), std::string::npos) << p[1].message;
  EXPECT_EQ(p[2].field, "result_filename");
}

TEST(OutputPaths, UnwritableFolder) {
  // /proc refuses new files even to root, for whom a chmod 500 folder is writable.
  RunConfig cfg;
  cfg.save_result = true;
  cfg.result_dir = "/proc/self/task";
  const Problems p = check_output_paths(cfg);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].field, "result_dir");
  EXPECT_NE(p[0].message.find("cannot create files in /proc/self/task"), std::string::npos) << p[0].message;
  PathsDir dir;
  ::chmod(dir.path.c_str(), 0500);
  cfg.result_dir = dir.path.string();
  // Root may write into a chmod 500 folder: the check runs as user nobody then, in a child.
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      ::_exit(100);
    const Problems ro = check_output_paths(cfg);
    ::_exit(ro.size() == 1 && ro[0].message.find("Permission denied") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(OutputPaths, TwoOutputsOnOnePath) {
  PathsDir dir;
  RunConfig cfg;
  cfg.output_json = dir.at("same");
  cfg.csv = dir.at("./same");
  const Problems p = check_output_paths(cfg);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].field, "csv");
  EXPECT_EQ(p[0].message, dir.at("./same") + " is also the path of {output_json}: one would overwrite the other");
}

TEST(OutputPaths, GeneratedResultNameTooLongForTheModel) {
  PathsDir dir;
  RunConfig cfg;
  cfg.save_result = true;
  cfg.result_dir = dir.path.string();
  report::RunContext ctx;
  ctx.backend = "openai";
  ctx.model_id = std::string(240, 'm');
  StageLoad load;
  load.max_concurrency = 4;
  const Problems p = check_result_file_names(cfg, ctx, {load});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].field, "result_dir");
  ctx.model_id = "org/model";
  EXPECT_TRUE(check_result_file_names(cfg, ctx, {load, load, load}).empty());
}

}  // namespace
}  // namespace sb::pipeline
