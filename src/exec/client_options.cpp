// ClientOptions' checks and the thread count it resolves to.
#include "exec/client_options.hpp"

#include <fmt/format.h>

#include <string_view>

#include "core/usable_cpus.hpp"

namespace sb {

Problems validate(const ClientOptions& opt) {
  Problems out;
  if (opt.path.empty() || opt.path.front() != '/')
    out.push_back({"path", fmt::format("must start with '/', got '{}'", opt.path)});
  if (!(opt.timeout_s > 0)) out.push_back({"timeout_s", fmt::format("must be > 0, got {}", opt.timeout_s)});
  if (!(opt.idle_timeout_s > 0))
    out.push_back({"idle_timeout_s", fmt::format("must be > 0, got {}", opt.idle_timeout_s)});
  if (opt.threads < 0) out.push_back({"threads", fmt::format("must be >= 0 (0: one per core), got {}", opt.threads)});
  if (opt.threads > kMaxClientThreads)
    out.push_back({"threads", fmt::format("must be <= {} (each is an OS thread with its own event loop), got {}",
                                          kMaxClientThreads, opt.threads)});
  if (opt.dispatch_spin_ns < 0 || opt.dispatch_spin_ns > kMaxDispatchSpinNs)
    out.push_back({"dispatch_spin_ns", fmt::format("must be between 0 and {} ns, got {}", kMaxDispatchSpinNs, opt.dispatch_spin_ns)});
  if (opt.reply_close_window_ns < 0)
    out.push_back({"reply_close_window_ns", fmt::format("must be >= 0, got {}", opt.reply_close_window_ns)});
  if (!(opt.stop_grace_s >= 0))
    out.push_back({"stop_grace_s", fmt::format("must be >= 0, got {}", opt.stop_grace_s)});
  // Headers set through the library, not --header (cli/header_arg checks those): a CR or LF would
  // end the header line and start another in every request. Values are never shown (credentials).
  constexpr std::string_view kLineBreaks("\r\n\0", 3);
  for (std::size_t i = 0; i < opt.headers.size(); ++i) {
    const auto& [name, value] = opt.headers[i];
    if (name.find_first_of(kLineBreaks) != std::string::npos)
      out.push_back({"headers", fmt::format("header {}: its name holds a line break or NUL (not shown)", i + 1)});
    else if (value.find_first_of(kLineBreaks) != std::string::npos)
      out.push_back({"headers", fmt::format("header {} ('{}'): the value holds a line break or NUL (the value is not "
                                            "shown)", i + 1, name)});
  }
  return out;
}

int resolved_threads(const ClientOptions& opt) noexcept {
  return opt.threads > 0 ? opt.threads : usable_cpus();
}

}  // namespace sb
