// Ctrl-C (SIGINT) and SIGTERM end a session the way closing its window does: the handler only notes
// the signal in an atomic flag, the frame loop sees it (the surfaces' should_close) and leaves at the
// end of the frame, and the session then writes what it was asked to (the trace, --save, the recording)
// before the program exits with 128 + the signal's number. A second signal of the same kind, while the
// first is still being honoured, ends the program at once (the handler is installed for one delivery).
#pragma once

namespace nbl {

// Installs the handlers for its lifetime; the previous ones come back when it ends. One at a time.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// The signal that asked the session to end (SIGINT or SIGTERM), 0 when none did. Async-signal-safe.
int interrupt_signal();
inline bool interrupt_requested() { return interrupt_signal() != 0; }

// The exit status for an interrupted run: 128 + the signal's number (130 for Ctrl-C), as shells report it.
inline int interrupted_exit_code(int signal_number) { return 128 + signal_number; }

}  // namespace nbl
