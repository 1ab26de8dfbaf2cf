add_library(sb_warnings INTERFACE)
target_compile_options(sb_warnings INTERFACE -Wall -Wextra
  # Asio 1.18's recycling coroutine-frame allocator trips a GCC 11+ false positive (stack.md §6).
  -Wno-mismatched-new-delete
  # GCC 12 reports impossible memcpy sizes inside inlined std::string concatenation (GCC bug 105329).
  -Wno-restrict)
# Boost 1.74's awaitable.hpp relies on a transitive <utility> that libstdc++ 12 dropped.
target_compile_options(sb_warnings INTERFACE -include utility)
if(SB_SANITIZE)
  target_compile_options(sb_warnings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(sb_warnings INTERFACE -fsanitize=address,undefined)
endif()

# simdjson's On-Demand API (hot path: every streamed chunk, ShareGPT files) compiles into our own
# translation units and picks its SIMD kernel from the compiler flags, not at run time: without these
# flags it falls back to the portable scalar kernel. servebench is built from source on the machine that
# runs it, so target that machine's ISA when it has the Haswell set simdjson's fast kernel needs.
option(SB_HOST_ISA "Compile for the build machine's AVX2 ISA when available" ON)
if(SB_HOST_ISA AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND EXISTS /proc/cpuinfo)
  file(READ /proc/cpuinfo SB_CPUINFO LIMIT 8192)
  if(SB_CPUINFO MATCHES " avx2 " AND SB_CPUINFO MATCHES " bmi2 " AND SB_CPUINFO MATCHES " pclmulqdq ")
    target_compile_options(sb_warnings INTERFACE -march=haswell -mtune=generic)
  endif()
endif()
