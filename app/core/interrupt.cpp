#include "app/core/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace nbl {

namespace {

std::atomic<int> received{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler may only touch lock-free atomics");

struct sigaction previous_interrupt, previous_terminate;

extern "C" void note_signal(int signal_number) { received.store(signal_number, std::memory_order_relaxed); }

}  // namespace

InterruptScope::InterruptScope() {
  received.store(0);
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: reads and writes (ffmpeg's pipe) go on; SA_RESETHAND: a second Ctrl-C ends the program.
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  sigaction(SIGINT, &action, &previous_interrupt);
  sigaction(SIGTERM, &action, &previous_terminate);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &previous_interrupt, nullptr);
  sigaction(SIGTERM, &previous_terminate, nullptr);
}

int interrupt_signal() { return received.load(std::memory_order_relaxed); }

}  // namespace nbl
