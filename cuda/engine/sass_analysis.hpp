// The machine code's view of a kernel's hot loop: instructions per interaction in the SASS (what the
// SM actually issues), from `cuobjdump -sass` when the CUDA Toolkit has it (the GPU machine does); the
// PTX count (ptx_analysis.hpp) is the fallback everywhere. This sets the issue-slot ceiling: an SM issues
// at most 128 thread-instructions per clock (4 schedulers x 32 lanes), so a loop of k instructions per
// interaction cannot beat sm_count x 128 x clock / k interactions per second.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cuda/engine/kernel_engine.hpp"

namespace nbl {

struct HotLoop {
  int instructions = 0;   // issued instructions in the loop body (NOPs excluded)
  int interactions = 0;   // reciprocal square roots in it (MUFU.RSQ, or MUFU.RSQ64H in double)
  double per_interaction() const { return interactions ? static_cast<double>(instructions) / interactions : 0.0; }
  std::string source;     // "SASS (cuobjdump)" or "PTX"
};

// The innermost backward-branch loop of `entry` with the most reciprocal square roots, in cuobjdump's
// SASS listing `sass`; nothing when the listing has no such loop.
std::optional<HotLoop> sass_hot_loop(std::string_view sass, std::string_view entry);

// The hot loop of `entry` in `program`: from its SASS when cuobjdump is present and the program is a
// cubin, else from its PTX. Cached per program. `why_not_sass` says why the PTX was used.
std::optional<HotLoop> hot_loop(const CompiledProgram& program, std::string_view entry, std::string* why_not_sass = nullptr);

// The same without waiting: the first call starts the analysis on a worker and returns nothing; a
// later call returns the result once it is there (the lab's panel asks every half second).
std::optional<HotLoop> hot_loop_if_ready(const std::shared_ptr<const CompiledProgram>& program, std::string_view entry,
                                         std::string* why_not_sass = nullptr);

// Waits for every analysis hot_loop_if_ready() started, and starts no new one (stop_background_work()
// calls it before main returns).
void stop_code_analyses();

// Issue-slot ceiling in interactions/s for `instructions_per_interaction` at `clock_mhz` on `sm_count` SMs.
inline double issue_ceiling(int sm_count, double clock_mhz, double instructions_per_interaction) {
  return instructions_per_interaction > 0 ? sm_count * 128.0 * clock_mhz * 1e6 / instructions_per_interaction : 0.0;
}

}  // namespace nbl
