# sb_warnings: the warning flags every target of ours compiles with, and nothing else (code
# generation flags are in cmake/platform.cmake).
add_library(sb_warnings INTERFACE)
target_compile_options(sb_warnings INTERFACE -Wall -Wextra
  # Asio 1.18's recycling coroutine-frame allocator trips a GCC 11+ false positive.
  -Wno-mismatched-new-delete
  # GCC 12 reports impossible memcpy sizes inside inlined std::string concatenation (GCC bug 105329).
  -Wno-restrict)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  # The two GCC-only switches above; clang (fuzz preset) does not know them.
  target_compile_options(sb_warnings INTERFACE -Wno-unknown-warning-option)
endif()
