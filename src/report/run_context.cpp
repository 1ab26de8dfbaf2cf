#include "report/run_context.hpp"
