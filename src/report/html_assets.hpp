#pragma once
// The assets embedded in every HTML report (generated at configure time, cmake/embed_assets.cmake):
// the chart library uPlot and the page's own script and style (src/report/html_report.{js,css}).
namespace sb::report {
extern const char* const uplot_js;
extern const char* const uplot_css;
extern const char* const report_js;   // draws the charts from the embedded JSON (#sb-data)
extern const char* const report_css;
}  // namespace sb::report
