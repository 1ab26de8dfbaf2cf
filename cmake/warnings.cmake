add_library(sb_warnings INTERFACE)
target_compile_options(sb_warnings INTERFACE -Wall -Wextra
  # Asio 1.18's recycling coroutine-frame allocator trips a GCC 11+ false positive (stack.md §6).
  -Wno-mismatched-new-delete)
# Boost 1.74's awaitable.hpp relies on a transitive <utility> that libstdc++ 12 dropped.
target_compile_options(sb_warnings INTERFACE -include utility)
if(SB_SANITIZE)
  target_compile_options(sb_warnings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(sb_warnings INTERFACE -fsanitize=address,undefined)
endif()
