#pragma once
// After a staircase: the knee as `servebench report` finds it, printed in one line and stored in the
// sweep document's `analysis` field, so a run answers "where does it stop scaling" on its own.
#include <string>

namespace sb::pipeline {

struct SweepAnalysisOptions {
  std::string sweep_path;     // the --output-json just written
  std::string html_path;      // "" = no HTML report
  bool print = true;          // print the knee line on stdout
};

// Reads the sweep back (the same reader `report` uses), analyzes it, rewrites `analysis` in place.
// Does nothing for fewer than 2 stages. Throws sb::UserError if the file cannot be read or written.
void analyze_sweep(const SweepAnalysisOptions& opt);

}  // namespace sb::pipeline
