#pragma once
// The chart library embedded in every HTML report (generated at configure time, cmake/embed_assets.cmake).
namespace sb::assets {
extern const char* const uplot_js;
extern const char* const uplot_css;
}  // namespace sb::assets
