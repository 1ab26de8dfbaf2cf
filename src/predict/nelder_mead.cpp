#include "predict/nelder_mead.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sb::predict {
namespace {

using Fn = std::function<double(const std::vector<double>&)>;

struct Vertex {
  std::vector<double> x;
  double f = 0;
};

// x_c + t (x_w − x_c): t = −1 reflects, −2 expands, 0.5 / −0.5 contract inside / outside.
std::vector<double> along(const std::vector<double>& centroid, const std::vector<double>& worst, double t) {
  std::vector<double> out(centroid.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = centroid[i] + t * (worst[i] - centroid[i]);
  return out;
}

class Simplex {
 public:
  Simplex(const Fn& f, const std::vector<double>& x0, const MinimizeOptions& opt, int& evaluations)
      : f_(f), evaluations_(evaluations) {
    v_.push_back(eval(x0));
    for (std::size_t i = 0; i < x0.size(); ++i) {
      std::vector<double> x = x0;
      x[i] += i < opt.initial_step.size() ? opt.initial_step[i] : 0.1;
      v_.push_back(eval(std::move(x)));
    }
    sort();
  }

  // One Nelder–Mead iteration; the vertices stay sorted by f.
  void step() {
    sort();
    const std::size_t n = v_.size() - 1;
    std::vector<double> c(n, 0.0);
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t i = 0; i < n; ++i) c[i] += v_[k].x[i] / static_cast<double>(n);
    Vertex& worst = v_.back();
    const Vertex r = eval(along(c, worst.x, -1.0));
    if (r.f < v_.front().f) {
      const Vertex e = eval(along(c, worst.x, -2.0));
      worst = e.f < r.f ? e : r;
    } else if (r.f < v_[n - 1].f) {
      worst = r;
    } else {
      const bool outside = r.f < worst.f;
      const Vertex k = eval(along(c, worst.x, outside ? -0.5 : 0.5));
      if (k.f < (outside ? r.f : worst.f)) {
        worst = k;
      } else {
        shrink();
      }
    }
    sort();
  }

  double spread() const { return v_.back().f - v_.front().f; }
  const Vertex& best() const { return v_.front(); }

 private:
  Vertex eval(std::vector<double> x) {
    ++evaluations_;
    const double fx = f_(x);
    return {std::move(x), std::isfinite(fx) ? fx : HUGE_VAL};
  }
  void shrink() {
    for (std::size_t k = 1; k < v_.size(); ++k) v_[k] = eval(along(v_[0].x, v_[k].x, 0.5));
  }
  void sort() {
    std::stable_sort(v_.begin(), v_.end(), [](const Vertex& a, const Vertex& b) { return a.f < b.f; });
  }

  const Fn& f_;
  int& evaluations_;
  std::vector<Vertex> v_;
};

}  // namespace

Minimum minimize(const Fn& f, std::vector<double> x0, const MinimizeOptions& opt) {
  Minimum best;
  best.x = std::move(x0);
  best.f = HUGE_VAL;
  MinimizeOptions round = opt;
  for (int restart = 0; restart <= opt.max_restarts && best.evaluations < opt.max_evaluations; ++restart) {
    Simplex s(f, best.x, round, best.evaluations);
    while (best.evaluations < opt.max_evaluations && s.spread() > opt.f_tolerance) s.step();
    const bool improved = s.best().f < best.f - opt.f_tolerance;
    best.x = s.best().x;
    best.f = std::min(best.f, s.best().f);
    if (!improved && restart > 0) break;
    // A restart probes smaller steps around the point found.
    for (double& step : round.initial_step) step *= 0.5;
  }
  return best;
}

}  // namespace sb::predict
