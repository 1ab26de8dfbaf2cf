#pragma once
// Paths of the analyze fixtures (tests/data/analyze, written by make_fixtures.py there).
#include <string>

#include "results/result_reader.hpp"

namespace sb::test {

inline std::string analyze_fixture(const std::string& name) {
  return std::string(SB_SOURCE_DIR) + "/tests/data/analyze/" + name;
}

inline results::Run read_fixture(const std::string& name) {
  return results::read_runs({analyze_fixture(name)}).at(0);
}

}  // namespace sb::test
