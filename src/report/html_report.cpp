#include "report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include <nlohmann/json.hpp>

#include "report/html_assets.hpp"

namespace sb::report {
namespace {

using nlohmann::json;

json run_json(const RunView& r) {
  json j;
  j["label"] = r.label;
  j["x"] = r.x;
  json m = json::object();
  for (const auto& [k, v] : r.metrics) {
    json arr = json::array();
    for (double d : v) arr.push_back(std::isfinite(d) ? json(d) : json(nullptr));
    m[k] = std::move(arr);
  }
  j["metrics"] = std::move(m);
  j["knee"] = r.knee ? json(*r.knee) : json(nullptr);
  j["ttft_rise"] = r.ttft_rise ? json(*r.ttft_rise) : json(nullptr);
  j["regions"] = r.regions;
  j["knee_text"] = r.knee_text;
  return j;
}

json chart_json(const ChartSpec& c) {
  json series = json::array();
  for (const auto& [key, name] : c.series) series.push_back({{"key", key}, {"name", name}});
  return {{"id", c.id}, {"title", c.title}, {"y_label", c.y_label}, {"unit", c.unit}, {"series", series}};
}

// JSON inside <script>: '<' only occurs inside strings, where \u003c is the same character.
std::string script_safe(const std::string& json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (char c : json_text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

std::string table_html(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const char* cls, const std::string& caption = "") {
  // The wrapper scrolls sideways on a narrow screen instead of squeezing every cell into a column.
  std::string out = std::string("<div class=\"table-wrap\"><table class=\"") + cls + "\">";
  if (!caption.empty()) out += "<caption>" + escape(caption) + "</caption>";
  out += "<thead><tr>";
  for (const auto& h : header) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& c : row) out += "<td>" + escape(c) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table></div>\n";
}

std::string run_section(const Document& doc, const RunView& r) {
  // The knee sentence is not repeated here: it heads the chart set once (chart_set_head).
  std::string out = "<section class=\"run\"><h2>" + escape(r.label) + "</h2>\n";
  std::vector<std::vector<std::string>> rows = r.table_rows;
  for (std::size_t i = 0; i < rows.size() && i < r.region_reasons.size(); ++i) rows[i].push_back(r.region_reasons[i]);
  std::vector<std::string> header = doc.table_header;
  header.push_back("why");
  out += table_html(header, rows, "stages");
  if (!r.warnings.empty()) {
    out += "<ul class=\"warnings\">";
    for (const auto& w : r.warnings) out += "<li>" + escape(w) + "</li>";
    out += "</ul>\n";
  }
  out += "<details><summary>configuration (secrets redacted)</summary><pre>" + escape(r.config_json) +
         "</pre></details>\n</section>\n";
  return out;
}

// The palette of html_report.js (light scheme), so a configuration's points match its curves.
constexpr const char* kScatterPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                           "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

std::string svg_number(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

// Plot area 520 x 300 px inside margins for the tick labels; ticks at 0, 1/4, ... of the range.
std::string scatter_svg(const Scatter& sc) {
  constexpr double kLeft = 70, kTop = 20, kWidth = 520, kHeight = 300;
  double xmax = 0, ymax = 0;
  for (const auto& p : sc.points) xmax = std::max(xmax, p.x), ymax = std::max(ymax, p.y);
  xmax = xmax > 0 ? xmax * 1.05 : 1, ymax = ymax > 0 ? ymax * 1.05 : 1;
  const auto px = [&](double x) { return kLeft + x / xmax * kWidth; };
  const auto py = [&](double y) { return kTop + kHeight - y / ymax * kHeight; };
  std::string out = "<figure class=\"scatter\"><figcaption>" + escape(sc.title) +
                    "</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"380\" "
                    "viewBox=\"0 0 640 380\" role=\"img\" font-size=\"11\" fill=\"currentColor\">";
  out += "<rect x=\"70\" y=\"20\" width=\"520\" height=\"300\" fill=\"none\" stroke=\"currentColor\" stroke-opacity=\"0.3\"/>";
  char buf[64];
  for (int k = 0; k <= 4; ++k) {
    std::snprintf(buf, sizeof buf, "%.4g", xmax * k / 4);
    out += "<text x=\"" + svg_number(px(xmax * k / 4)) + "\" y=\"336\" text-anchor=\"middle\">" + buf + "</text>";
    std::snprintf(buf, sizeof buf, "%.4g", ymax * k / 4);
    out += "<text x=\"64\" y=\"" + svg_number(py(ymax * k / 4) + 4) + "\" text-anchor=\"end\">" + buf + "</text>";
  }
  out += "<text x=\"330\" y=\"362\" text-anchor=\"middle\">" + escape(sc.x_label) + "</text>";
  out += "<text x=\"14\" y=\"170\" text-anchor=\"middle\" transform=\"rotate(-90 14 170)\">" + escape(sc.y_label) +
         "</text>";
  for (const auto& p : sc.points) {
    const char* color = kScatterPalette[p.series % std::size(kScatterPalette)];
    out += "<circle class=\"" + std::string(p.dominated ? "dominated" : "frontier") + "\" cx=\"" + svg_number(px(p.x)) +
           "\" cy=\"" + svg_number(py(p.y)) + "\" r=\"5\" stroke=\"" + color + "\" stroke-width=\"2\" fill=\"" +
           (p.dominated ? "none" : color) + "\"><title>" + escape(p.label) + (p.dominated ? " (dominated)" : "") +
           "</title></circle>";
  }
  out += "</svg><p class=\"scatter-legend\">";
  for (std::size_t i = 0; i < sc.series.size(); ++i)
    out += std::string(i ? " &middot; " : "") + "<span style=\"color:" + kScatterPalette[i % std::size(kScatterPalette)] +
           "\">&#9679;</span> " + escape(sc.series[i]);
  return out + "; hollow: dominated (another point is at least as good on both axes)</p></figure>\n";
}

json scatter_json(const Scatter& sc) {
  json pts = json::array();
  for (const auto& p : sc.points)
    pts.push_back({{"series", p.series}, {"label", p.label}, {"x", p.x}, {"y", p.y}, {"dominated", p.dominated}});
  return {{"title", sc.title}, {"x_label", sc.x_label}, {"y_label", sc.y_label}, {"series", sc.series}, {"points", pts}};
}

// What a reader needs before the charts: which runs are in scaled time, and each run's knee, once.
std::string chart_set_head(const Document& doc) {
  std::string out = "<div class=\"chart-set-head\">\n";
  std::vector<std::string> notes;  // once each: two runs of the same demo carry the same note
  for (const auto& r : doc.runs)
    if (!r.scale_note.empty() && std::find(notes.begin(), notes.end(), r.scale_note) == notes.end())
      notes.push_back(r.scale_note);
  for (const auto& n : notes) out += "<p class=\"scale-note\">" + escape(n) + "</p>\n";
  for (std::size_t i = 0; i < doc.runs.size(); ++i) {
    out += "<p class=\"knee-sentence\" data-run=\"" + std::to_string(i) + "\"><span class=\"swatch\"></span>" +
           escape(doc.runs[i].label) + ": " + escape(doc.runs[i].knee_text) + "</p>\n";
  }
  return out + "</div>\n";
}

}  // namespace

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render(const Document& doc) {
  json data;
  data["x_label"] = doc.x_label;
  data["x_short"] = doc.x_short;
  data["charts"] = json::array();
  for (const auto& c : doc.charts) data["charts"].push_back(chart_json(c));
  data["log_x"] = doc.log_x;
  data["unlimited_x"] = doc.unlimited_x ? json(*doc.unlimited_x) : json(nullptr);
  data["runs"] = json::array();
  for (const auto& r : doc.runs) data["runs"].push_back(run_json(r));
  if (doc.scatter) data["scatter"] = scatter_json(*doc.scatter);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<meta name=\"color-scheme\" content=\"light dark\">\n<title>" + escape(doc.title) +
                    "</title>\n<style>" + uplot_css + "\n" + report_css + "</style>\n</head><body>\n";
  out += "<h1>" + escape(doc.title) + "</h1>\n";
  if (doc.comparison) {
    out += "<h2>comparison</h2>\n" + table_html(doc.comparison->header, doc.comparison->rows, "compare", doc.comparison->caption);
  }
  for (const auto& t : doc.tables) out += table_html(t.header, t.rows, "compare", t.caption);
  if (doc.scatter) out += scatter_svg(*doc.scatter);
  if (!doc.notes.empty()) {
    out += "<ul class=\"notes\">";
    for (const auto& n : doc.notes) out += "<li>" + escape(n) + "</li>";
    out += "</ul>\n";
  }
  out += "<section class=\"chart-set\">\n" + chart_set_head(doc) + "<div id=\"charts\"></div>\n</section>\n";
  for (const auto& r : doc.runs) out += run_section(doc, r);
  out += "<script type=\"application/json\" id=\"sb-data\">" + script_safe(data.dump()) + "</script>\n";
  out += std::string("<script>") + uplot_js + "</script>\n<script>" + report_js + "</script>\n";
  return out + "</body></html>\n";
}

}  // namespace sb::report
