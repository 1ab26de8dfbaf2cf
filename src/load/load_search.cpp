#include "load/load_search.hpp"

namespace sb {

const char* to_string(SearchStop s) noexcept {
  switch (s) {
    case SearchStop::none: return "none";
    case SearchStop::precision: return "precision";
    case SearchStop::budget: return "budget";
    case SearchStop::failures: return "failures";
    case SearchStop::aborted: return "aborted";
  }
  return "unknown";
}

const char* to_string(SearchReason r) noexcept {
  switch (r) {
    case SearchReason::start: return "start";
    case SearchReason::doubling: return "doubling";
    case SearchReason::halving: return "halving";
    case SearchReason::bisect: return "bisect";
  }
  return "unknown";
}

}  // namespace sb
