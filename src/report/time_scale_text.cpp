#include "report/time_scale_text.hpp"

#include <fmt/format.h>

namespace sb::report {

namespace {

std::string body(double k, double time_factor) {
  if (time_factor != 1) {
    // Wall-clock costs of the client, HTTP and the simulator's own parsing are not modelled GPU
    // time, yet they are multiplied by K with the rest: say how much that inflates a latency.
    return fmt::format(
        "latencies and rates are the modelled GPU's (wall clock x {0:g}; --request-rate and --stage-seconds are "
        "modelled too); the client's, the loopback's and the simulator's own 0.2-0.6 ms per request read {0:g}x larger "
        "(--wall-clock-times reports the wall clock)",
        k);
  }
  return fmt::format("--wall-clock-times: latencies are {0:g}x shorter and rates {0:g}x higher than the modelled GPU's",
                     k);
}

}  // namespace

std::string format_time_scale_note(double server_time_scale, double time_factor) {
  return fmt::format("note: the server is servebench's simulator, {:g}x faster than the GPU it models: {}",
                     server_time_scale, body(server_time_scale, time_factor));
}

std::string format_time_scale_page_note(const std::string& label, double server_time_scale, double time_factor) {
  return fmt::format("{}: simulated GPU, {:g}x faster than real time: {}.", label, server_time_scale,
                     body(server_time_scale, time_factor));
}

}  // namespace sb::report
