// A profiler stand-in for the NVTX tests: a static NVTX injection (the mechanism a tool such as Nsight
// Systems uses, linked in instead of loaded) that records every range pushed and popped, with its
// thread. Linking nvtx_capture.cpp into a test binary attaches it at the first NVTX call.
#pragma once
#include <string>
#include <thread>
#include <vector>

namespace nbl::testing {

struct NvtxEvent {
  std::thread::id thread;
  bool push = false;  // a push (with its name) or a pop
  std::string name;
};

// Everything recorded since the last clear, in order.
std::vector<NvtxEvent> nvtx_events();
void clear_nvtx_events();
// Whether NVTX found this injection (false: another tool was injected through NVTX_INJECTION64_PATH).
bool nvtx_capture_attached();

// The names pushed on `thread`, in order, and whether its pushes and pops paired up.
std::vector<std::string> pushed_on(const std::vector<NvtxEvent>& events, std::thread::id thread);
bool balanced_on(const std::vector<NvtxEvent>& events, std::thread::id thread);

}  // namespace nbl::testing
