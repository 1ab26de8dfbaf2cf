#include "trace/rank.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace sb::trace {
namespace {

// Copies keep their whole name: "Memcpy HtoD (Pinned -> Device)" is no C++ symbol to cut down.
std::string key_of(const KernelEvent& e, NameKey key) {
  const std::string& name = e.name;
  if (key == NameKey::base && e.kind != OpKind::kernel) key = NameKey::normalized;
  switch (key) {
    case NameKey::raw:
      return name;
    case NameKey::normalized:
      return normalize_kernel_name(name);
    case NameKey::base:
      return kernel_base_name(name);
  }
  return name;
}

double median_of(std::vector<std::int64_t>& d) {
  std::sort(d.begin(), d.end());
  const std::size_t n = d.size();
  if (n % 2 == 1) return static_cast<double>(d[n / 2]);
  return (static_cast<double>(d[n / 2 - 1]) + static_cast<double>(d[n / 2])) / 2.0;
}

double sample_stddev(const std::vector<std::int64_t>& d, double mean) {
  if (d.size() < 2) return 0;
  double sum_sq = 0;
  for (const std::int64_t v : d) sum_sq += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
  return std::sqrt(sum_sq / static_cast<double>(d.size() - 1));
}

KernelRank summarize(std::string name, KernelCategory category, std::vector<std::int64_t>& durations) {
  KernelRank r;
  r.name = std::move(name);
  r.category = category;
  r.calls = static_cast<std::int64_t>(durations.size());
  for (const std::int64_t d : durations) r.total_ns += d;
  r.min_ns = *std::min_element(durations.begin(), durations.end());
  r.max_ns = *std::max_element(durations.begin(), durations.end());
  r.avg_ns = static_cast<double>(r.total_ns) / static_cast<double>(r.calls);
  r.stddev_ns = sample_stddev(durations, r.avg_ns);
  r.median_ns = median_of(durations);
  return r;
}

}  // namespace

std::vector<KernelRank> rank_kernels(const KernelTrace& trace, const RankOptions& options) {
  struct Group {
    KernelCategory category;
    std::vector<std::int64_t> durations;
  };
  std::unordered_map<std::string, Group> groups;
  for (const KernelEvent& e : trace.events) {
    if (e.kind != OpKind::kernel && !options.include_copies) continue;
    auto [it, fresh] = groups.try_emplace(key_of(e, options.key));
    // The category is computed once per group (regex cost), from its first event.
    if (fresh) it->second.category = categorize(e);
    it->second.durations.push_back(e.duration_ns());
  }
  std::vector<KernelRank> out;
  out.reserve(groups.size());
  std::int64_t grand_total_ns = 0;
  for (auto& [name, g] : groups) {
    out.push_back(summarize(name, g.category, g.durations));
    grand_total_ns += out.back().total_ns;
  }
  for (KernelRank& r : out) {
    r.percent = grand_total_ns > 0 ? static_cast<double>(r.total_ns) * 100.0 / static_cast<double>(grand_total_ns) : 0;
  }
  std::sort(out.begin(), out.end(), [](const KernelRank& a, const KernelRank& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    if (a.calls != b.calls) return a.calls > b.calls;
    return a.name < b.name;
  });
  return out;
}

std::vector<CategoryTotal> category_totals(const std::vector<KernelRank>& ranks) {
  std::vector<CategoryTotal> out;
  std::int64_t all_ns = 0;
  for (const KernelCategory c : kAllCategories) out.push_back({c, 0, 0});
  for (const KernelRank& r : ranks) {
    out[static_cast<std::size_t>(r.category)].total_ns += r.total_ns;
    all_ns += r.total_ns;
  }
  for (CategoryTotal& t : out) {
    t.percent = all_ns > 0 ? static_cast<double>(t.total_ns) * 100.0 / static_cast<double>(all_ns) : 0;
  }
  return out;
}

}  // namespace sb::trace
