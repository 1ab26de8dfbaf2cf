// The Prometheus text parser: a one-line sb::UserError or a scrape; histograms it assembles have
// cumulative (non-decreasing) bucket counts whenever the input's were.
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "target/prom_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const sb::PromScrape s = sb::parse_prom_text(text, "fuzz");
    for (const auto& [family, type] : s.types) {
      if (type != "histogram") continue;
      (void)s.histogram(family);
    }
    for (const auto& sample : s.samples) (void)s.sum(sample.name);
  } catch (const sb::UserError&) {
  }
  return 0;
}
