// Where a kernel build stands (a toggle switched, a kernel file edited): the panel and the per-frame
// trace show it, the GPU backends report it (cuda/engine/build_queue.hpp does the work).
#pragma once
#include <string>

namespace nbl {

enum class BuildState { queued, compiling, checking, ready, refused, superseded };

inline const char* to_string(BuildState state) {
  switch (state) {
    case BuildState::queued: return "queued";
    case BuildState::compiling: return "compiling";
    case BuildState::checking: return "checking";
    case BuildState::ready: return "ready";
    case BuildState::refused: return "refused";
    case BuildState::superseded: return "superseded";
  }
  return "?";
}

// A build in one of its states as people see it, "float4 const rsqrt ... u8: compiling": the panel's
// build line, and the NVTX range around that phase of the build on its worker thread (Nsight Systems).
inline std::string build_phase_name(const std::string& label, BuildState state) {
  return label + ": " + to_string(state);
}

// The NVTX range around a prefetch compile (cuda/engine/build_queue.cpp), which has no label of its own.
inline constexpr const char* kPrefetchLabel = "prefetch";

struct BuildProgress {
  std::string label;  // the variant, in words
  BuildState state = BuildState::queued;
  std::string detail;  // the refusal's reason, or the check's figures
  double age_s = 0;    // seconds since it was requested
};

// What an asynchronous reconfiguration came to (Backend::poll_configure).
struct ConfigureOutcome {
  bool accepted = false;
  std::string label;     // the build
  std::string message;   // the check's figures, or why it was refused
  double latency_s = 0;  // from the request to the swap (or the refusal)
  // Of the swap call, the frame loop's time spent on the build it replaced: releasing it, or handing it
  // to the build queue's teardown worker (the trace's teardown_ms, app/core/frame_trace.hpp).
  double teardown_ms = 0;
};

}  // namespace nbl
