# Code generation flags, kept apart from the warnings (cmake/warnings.cmake).
#
# sb_platform: linked by every target of ours.
#  - SB_SANITIZE (the asan preset): AddressSanitizer + UndefinedBehaviorSanitizer. The preset compiles
#    with clang: GCC 12 at -O1 spends its time optimising through UBSan's checks in GoogleTest's and
#    the JSON library's templates; one e2e batch of six files took 51 s of CPU with g++ and 27 s with
#    clang++, the same checks on (23.8 s with g++ and ASan alone). docs/reliability.md, "CI time".
#  - SB_HOST_ISA: simdjson's On-Demand API (hot path: every streamed chunk, ShareGPT files) compiles
#    into our own translation units and picks its SIMD kernel from the compiler flags, not at run
#    time: without them it falls back to the portable scalar kernel. servebench is built from source
#    on the machine that runs it, so target that machine's ISA when it has the Haswell set simdjson's
#    fast kernel needs. -DSB_HOST_ISA=OFF builds a portable binary.
add_library(sb_platform INTERFACE)
if(SB_BUILD_FUZZ)
  # Everything the fuzz targets link is instrumented for coverage and checked by ASan + UBSan.
  target_compile_options(sb_platform INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -g)
  target_link_options(sb_platform INTERFACE -fsanitize=address,undefined)
elseif(SB_SANITIZE)
  target_compile_options(sb_platform INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(sb_platform INTERFACE -fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # clang 14's -fsanitize=function (part of "undefined" there, unknown to GCC) cannot place its
    # type signatures before a coroutine's split functions ("Cannot represent a difference across
    # sections" on every Asio coroutine); GCC never had the check, so nothing is lost against it.
    target_compile_options(sb_platform INTERFACE -fno-sanitize=function)
  endif()
endif()
option(SB_HOST_ISA "Compile for the build machine's AVX2 ISA when available" ON)
if(SB_HOST_ISA AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND EXISTS /proc/cpuinfo)
  file(READ /proc/cpuinfo SB_CPUINFO LIMIT 8192)
  if(SB_CPUINFO MATCHES " avx2 " AND SB_CPUINFO MATCHES " bmi2 " AND SB_CPUINFO MATCHES " pclmulqdq ")
    target_compile_options(sb_platform INTERFACE -march=haswell -mtune=generic)
  endif()
endif()

# sb_asio: for the few modules whose files include Boost.Asio/Beast (net, exec, sim) and their
# tests, linked PRIVATE so nothing above them sees Boost. Boost 1.74's awaitable.hpp relies on a <utility> that
# libstdc++ 12 no longer includes transitively, hence the forced include.
add_library(sb_asio INTERFACE)
target_link_libraries(sb_asio INTERFACE Boost::headers)
target_compile_options(sb_asio INTERFACE -include utility)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  # Boost 1.74 looks for coroutines under clang only in libc++'s <experimental/coroutine>; clang 14
  # compiles libstdc++ 12's <coroutine> (the asan preset builds with clang), so say so.
  target_compile_definitions(sb_asio INTERFACE BOOST_ASIO_HAS_CO_AWAIT=1 BOOST_ASIO_HAS_STD_COROUTINE=1)
endif()

# sb_cold_code: code whose speed no measurement depends on (the test executables' own files, the
# commands' flag parsing and glue in src/cli) compiles at -O1 in Release. -O3 there bought nothing
# measurable and cost a clean build: a test batch of six files took 29 s at -O3 and 18 s at -O1,
# `cli/compare_cmd.cpp` 20 s and 11 s (docs/reliability.md, "CI time"). What they call (the client,
# parsers, metrics, simulator, reports) stays at the preset's level. The asan preset keeps -O1 for
# everything: -O0 there broke the ODR (simdjson's development checks follow __OPTIMIZE__ and change
# its parser's layout), and -Og made the asan suite miss knee answers twice in a row.
add_library(sb_cold_code INTERFACE)
target_compile_options(sb_cold_code INTERFACE $<$<CONFIG:Release>:-O1>)
