#pragma once
// Derivative-free minimisation (Nelder and Mead 1965, with the standard coefficients: reflection 1,
// expansion 2, contraction 0.5, shrink 0.5) of a function of a few variables: calibrate's
// objective is a replay of whole stages, with no gradient and small steps where the scheduler's
// batches change. Restarts from the best point until a restart no longer improves it, which
// undoes the simplex's collapse onto a subspace.
#include <functional>
#include <vector>

namespace sb::predict {

struct MinimizeOptions {
  std::vector<double> initial_step;  // per variable; the first simplex is x0 + step_i e_i
  int max_evaluations = 600;
  double f_tolerance = 1e-12;        // stop when the simplex's values differ by less
  int max_restarts = 3;
};

struct Minimum {
  std::vector<double> x;
  double f = 0;
  int evaluations = 0;
};

Minimum minimize(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                 const MinimizeOptions& opt);

}  // namespace sb::predict
