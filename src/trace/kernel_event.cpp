#include "trace/kernel_event.hpp"

namespace sb::trace {

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kernel:
      return "kernel";
    case OpKind::memcpy:
      return "memcpy";
    case OpKind::memset:
      return "memset";
  }
  return "kernel";
}

}  // namespace sb::trace
