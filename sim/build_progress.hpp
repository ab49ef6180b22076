// Where a kernel build stands (a toggle switched, a kernel file edited): the panel and the per-frame
// trace show it, the GPU backends report it (cuda/build_queue.hpp does the work).
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

struct BuildProgress {
  std::string label;   // the variant, in words
  BuildState state = BuildState::queued;
  std::string detail;  // the refusal's reason, or the check's figures
  double age_s = 0;    // seconds since it was requested
};

// What an asynchronous reconfiguration came to (Backend::poll_configure).
struct ConfigureOutcome {
  bool accepted = false;
  std::string label;    // the build
  std::string message;  // the check's figures, or why it was refused
  double latency_s = 0;  // from the request to the swap (or the refusal)
};

}  // namespace nbl
