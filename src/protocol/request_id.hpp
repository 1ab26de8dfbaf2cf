#pragma once
// servebench's default x-request-id: "bench-" + 8 hex digits drawn once per run + "-" + the
// request's name in the run ("17", "warmup-0", "preflight"). The tag keeps ids unique across runs
// in a server's logs; the name alone says which request of the run it is, so the simulator seeds
// its per-request draws (faults, EOS, text) from the name and a rerun gets the same ones.
#include <cstdint>
#include <string>
#include <string_view>

namespace sb {

// "bench-0000002a-" for tag 42.
std::string run_tagged_prefix(std::uint32_t tag);

// `id` without a leading run tag of that shape ("bench-1a2b3c4d-17" -> "17"); any other id whole.
std::string_view request_name_in_run(std::string_view id) noexcept;

}  // namespace sb
