#include "report/kernel_report.hpp"

#include "report/offset_estimate_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace sb::report {

using namespace sb::trace;  // the trace model this formatter renders

namespace {

using nlohmann::ordered_json;

constexpr std::size_t kMaxNameChars = 70;  // demangled template names run to hundreds of characters

std::string clip(const std::string& s) {
  return s.size() <= kMaxNameChars ? s : s.substr(0, kMaxNameChars - 3) + "...";
}
std::string ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string us(double ns) { return fmt::format("{:.2f}", ns / 1e3); }
std::string pct(double p) { return fmt::format("{:.1f}", p); }

// Human duration for trend lines: "850 us", "2.0 ms".
std::string duration(double ns) {
  return ns >= 1e6 ? fmt::format("{:.1f} ms", ns / 1e6) : fmt::format("{:.1f} us", ns / 1e3);
}

const GroupInStage* find_group(const StageKernels& s, const std::string& label) {
  for (const auto& g : s.groups)
    if (g.label == label) return &g;
  return nullptr;
}

std::string category_table(const std::vector<CategoryTotal>& cats) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : cats)
    if (c.total_ns > 0)
      rows.push_back({std::string(category_name(c.category)), ms(static_cast<double>(c.total_ns)), pct(c.percent)});
  return render_table({"category", "total ms", "%"}, rows);
}

// "name avg 2.0 ms at c=1 -> 15.0 ms at c=64" over the stages where the group ran.
std::string trend_line(const Alignment& a, const std::string& label) {
  const StageKernels *first = nullptr, *last = nullptr;
  for (const auto& s : a.stages)
    if (const auto* g = find_group(s, label); g && g->calls > 0) {
      if (!first) first = &s;
      last = &s;
    }
  if (!first || first == last) return {};
  const auto avg = [&](const StageKernels* s) {
    const auto* g = find_group(*s, label);
    return static_cast<double>(g->total_ns) / static_cast<double>(g->calls);
  };
  return fmt::format("  {} avg {} at {} -> {} at {}\n", clip(label), duration(avg(first)), first->stage.load_label,
                     duration(avg(last)), last->stage.load_label);
}

ordered_json stage_json(const StageKernels& s) {
  ordered_json j;
  j["stage_index"] = s.stage.stage_index;
  j["load"] = s.stage.load_label;
  j["events"] = s.events;
  j["gpu_ms"] = static_cast<double>(s.gpu_ns) / 1e6;
  j["busy_percent"] = s.busy_percent;
  ordered_json cats = ordered_json::object();
  for (auto c : kAllCategories) cats[std::string(category_name(c))] = s.category_percent(c);
  j["category_percent"] = cats;
  ordered_json groups = ordered_json::array();
  for (const auto& g : s.groups)
    groups.push_back({{"name", g.label},
                      {"category", category_name(g.category)},
                      {"calls", g.calls},
                      {"total_ms", static_cast<double>(g.total_ns) / 1e6},
                      {"avg_us", static_cast<double>(g.total_ns) / 1e3 / static_cast<double>(g.calls)}});
  j["kernels"] = groups;
  return j;
}

}  // namespace

std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string& c = i < cells.size() ? cells[i] : std::string();
      if (i > 0) l += "  ";
      l += i == 0 ? fmt::format("{:<{}}", c, width[i]) : fmt::format("{:>{}}", c, width[i]);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
  return out;
}

std::string ranking_text(const KernelReport& r) {
  if (r.by_category) return category_table(r.categories);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < r.ranks.size() && i < r.top; ++i) {
    const auto& k = r.ranks[i];
    rows.push_back({clip(k.name), std::string(category_name(k.category)), std::to_string(k.calls),
                    ms(static_cast<double>(k.total_ns)), us(k.avg_ns), us(k.median_ns),
                    us(static_cast<double>(k.max_ns)), pct(k.percent)});
  }
  std::string out =
      render_table({"kernel", "category", "calls", "total ms", "avg us", "p50 us", "max us", "% GPU"}, rows);
  if (r.ranks.size() > r.top) out += fmt::format("({} more kernels; --top N shows more)\n", r.ranks.size() - r.top);
  return out + "\n" + category_table(r.categories);
}

std::vector<std::string> top_stage_groups(const Alignment& a, std::size_t top) {
  std::map<std::string, std::int64_t> totals;
  for (const auto& s : a.stages)
    for (const auto& g : s.groups) totals[g.label] += g.total_ns;
  std::vector<std::pair<std::string, std::int64_t>> sorted(totals.begin(), totals.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < sorted.size() && i < top; ++i) out.push_back(sorted[i].first);
  return out;
}

std::string stages_text(const Alignment& a, std::size_t top) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : a.stages)
    rows.push_back(
        {s.stage.load_label, std::to_string(s.events), ms(static_cast<double>(s.gpu_ns)), pct(s.busy_percent)});
  std::string out = render_table({"stage", "events", "GPU ms", "busy %"}, rows);
  const auto labels = top_stage_groups(a, top);
  std::vector<std::string> header{"avg us per call"};
  for (const auto& s : a.stages) header.push_back(s.stage.load_label);
  rows.clear();
  for (const auto& label : labels) {
    rows.push_back({clip(label)});
    for (const auto& s : a.stages) {
      const auto* g = find_group(s, label);
      rows.back().push_back(g ? us(static_cast<double>(g->total_ns) / static_cast<double>(g->calls)) : "-");
    }
  }
  out += "\n" + render_table(header, rows);
  for (const auto& label : labels) out += trend_line(a, label);
  header[0] = "% of stage GPU time";
  rows.clear();
  for (auto c : kAllCategories) {
    rows.push_back({std::string(category_name(c))});
    for (const auto& s : a.stages) rows.back().push_back(pct(s.category_percent(c)));
  }
  return out + "\n" + render_table(header, rows);
}

std::string findings_text(const std::vector<Finding>& findings) {
  if (findings.empty()) return "diagnosis: no rule fired\n";
  std::string out = "diagnosis:\n";
  for (const auto& f : findings) out += fmt::format("  - {} [{}]\n    evidence: {}\n", f.verdict, f.rule, f.evidence);
  return out;
}

std::string report_text(const KernelReport& r) {
  std::string out;
  if (r.trace)
    out += fmt::format("trace: {} ({} events, {}{})\n\n", r.trace->source_format, r.trace->events.size(),
                       r.trace->clock_domain, r.trace->simulated ? ", simulated" : "");
  out += ranking_text(r);
  if (r.alignment) out += "\n" + stages_text(*r.alignment, r.top);
  if (!r.alignment_note.empty()) out += "\n" + r.alignment_note + "\n";
  return out + "\n" + findings_text(r.findings);
}

nlohmann::ordered_json report_json(const KernelReport& r) {
  ordered_json j;
  if (r.trace)
    j["trace"] = {{"format", r.trace->source_format},
                  {"clock_domain", r.trace->clock_domain},
                  {"simulated", r.trace->simulated},
                  {"events", r.trace->events.size()},
                  {"files", r.trace->files}};
  ordered_json kernels = ordered_json::array();
  for (std::size_t i = 0; i < r.ranks.size() && i < r.top; ++i) {
    const auto& k = r.ranks[i];
    kernels.push_back({{"name", k.name},
                       {"category", category_name(k.category)},
                       {"calls", k.calls},
                       {"total_ms", static_cast<double>(k.total_ns) / 1e6},
                       {"avg_us", k.avg_ns / 1e3},
                       {"p50_us", k.median_ns / 1e3},
                       {"max_us", static_cast<double>(k.max_ns) / 1e3},
                       {"percent", k.percent}});
  }
  j["kernels"] = kernels;
  ordered_json cats = ordered_json::array();
  for (const auto& c : r.categories)
    cats.push_back({{"category", category_name(c.category)},
                    {"total_ms", static_cast<double>(c.total_ns) / 1e6},
                    {"percent", c.percent}});
  j["categories"] = cats;
  if (r.alignment) {
    ordered_json stages = ordered_json::array();
    for (const auto& s : r.alignment->stages) stages.push_back(stage_json(s));
    j["alignment"] = {{"unix_offset_ns", r.alignment->unix_offset_ns},
                      {"devices", r.alignment->devices},
                      {"outside_events", r.alignment->outside_events},
                      {"stages", stages}};
    if (r.offset_estimate) j["alignment"]["offset_estimate"] = offset_estimate_json(*r.offset_estimate);
  } else {
    j["alignment"] = nullptr;
  }
  j["alignment_note"] = r.alignment_note.empty() ? ordered_json(nullptr) : ordered_json(r.alignment_note);
  ordered_json findings = ordered_json::array();
  for (const auto& f : r.findings)
    findings.push_back({{"rule", f.rule}, {"verdict", f.verdict}, {"evidence", f.evidence}});
  j["findings"] = findings;
  return j;
}

}  // namespace sb::report
