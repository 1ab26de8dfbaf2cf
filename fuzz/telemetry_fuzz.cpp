// The telemetry parsers (src/telemetry/): the first byte picks one, the rest is its input. Each
// returns readings or throws a one-line sb::UserError; a /metrics scrape, read twice as a stage's
// boundaries, gives counter deltas >= 0 and a histogram window whose count is >= 0.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "telemetry/gpu_readings.hpp"
#include "telemetry/server_window.hpp"

namespace {

void check_window(const sb::PromScrape& scrape) {
  const sb::telemetry::ServerSample a = sb::telemetry::read_server_sample(scrape, 1, true);
  const sb::telemetry::ServerSample b = sb::telemetry::read_server_sample(scrape, 2, true);
  const sb::telemetry::ServerSample both[] = {a, b};
  const sb::ServerStageMetrics m = sb::telemetry::server_window(both, 0);
  // The same scrape twice: nothing happened in between.
  if (m.requests_finished && *m.requests_finished != 0) std::abort();
  if (m.queue_time && m.queue_time->count != 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 4) {
      case 0:
        (void)sb::telemetry::parse_nvidia_smi(text);
        break;
      case 1:
        (void)sb::telemetry::parse_rocm_smi(text);
        break;
      case 2:
        (void)sb::telemetry::parse_amd_smi(text);
        break;
      default:
        check_window(sb::parse_prom_text(text, "fuzz"));
        break;
    }
  } catch (const sb::UserError&) {
  }
  return 0;
}
