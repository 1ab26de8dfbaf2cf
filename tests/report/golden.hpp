#pragma once
// Golden-file helpers for reporter tests. Goldens live in tests/data/report/. To regenerate the
// C++-produced ones after an intended change, run the test binary with SB_UPDATE_GOLDEN=1 and
// review the diff (`git diff tests/data/report`); py_json goldens come from Python instead
// (tests/data/report/make_py_json_golden.py).
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace sb::testdata {

inline std::string golden_path(const std::string& name) {
  return std::string(SB_SOURCE_DIR) + "/tests/data/report/" + name;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Returns the golden text; rewrites it from `actual` first when SB_UPDATE_GOLDEN is set.
inline std::string golden(const std::string& name, const std::string& actual) {
  if (std::getenv("SB_UPDATE_GOLDEN") != nullptr) std::ofstream(golden_path(name), std::ios::binary) << actual;
  return read_file(golden_path(name));
}

}  // namespace sb::testdata
