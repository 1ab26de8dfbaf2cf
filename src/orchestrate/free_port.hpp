#pragma once
// A free TCP port on the loopback interface for the next server's `{port}`: bind port 0, read the
// port the kernel chose, close. Another program could take it before the server binds it; the
// server then fails with "address already in use", which tune names (log_diagnosis.hpp).
#include <cstdint>

namespace sb::orchestrate {

// Throws sb::UserError when no socket can be bound at all.
std::uint16_t pick_free_port();

}  // namespace sb::orchestrate
