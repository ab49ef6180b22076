// What changed in the code between two sets of toggles (the tour's "what changed" view): for
// each kernel whose source, macros or compiler options differ, the macro and option changes, a diff of
// the kernel source as the compiler sees it after conditional inclusion (#if / #ifdef / #elif / #else
// evaluated with the variant's -D macros, "..." includes expanded from the same snapshot NVRTC compiles),
// and every source line that names a changed macro (the #if lines themselves, #pragma unroll NBL_UNROLL,
// constants set from a macro). Text only: no GPU and no NVRTC needed.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "cuda/engine/kernel_engine.hpp"
#include "sim/settings.hpp"

namespace nbl {

struct SourceLine {
  std::string file;  // as the kernel includes it ("allpairs_common.cuh"), the main file by its name
  int line = 0;      // 1-based
  std::string text;
};

using MacroList = std::vector<std::pair<std::string, std::string>>;

// The lines of `snapshot`'s main file that the compiler sees with `macros` defined (and NVRTC's own:
// __CUDACC__, __CUDACC_RTC__, __CUDA_ARCH__): conditional directives evaluated and left out, "..."
// includes replaced by the included file's lines (once per file under #pragma once). #define and #undef
// of object-like macros take effect for later conditions. Throws Error on a malformed conditional.
std::vector<SourceLine> active_lines(const SourceSnapshot& snapshot, const MacroList& macros);

// A line diff: ' ' context, '-' only before, '+' only after; '@' starts a hunk (its line names where).
struct DiffLine {
  char kind = ' ';
  SourceLine line;
};
std::vector<DiffLine> diff_lines(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after, int context = 2);

struct KernelCodeChange {
  std::string kernel;                    // the stage it runs in: "force", "tree build", ...
  std::string file_before, file_after;   // kernel files ("" when the kernel exists on one side only)
  std::vector<std::string> macro_changes;   // "NBL_RSQRT: 0 -> 1"
  std::vector<std::string> option_changes;  // "-ftz=true: added"
  std::vector<std::string> changed_macros;  // the macro names alone
  std::vector<DiffLine> diff;               // the code after conditional inclusion
  std::vector<SourceLine> macro_lines;      // every line of either side's files naming a changed macro
  bool empty() const { return macro_changes.empty() && option_changes.empty() && diff.empty() && file_before == file_after; }
};

// The kernels of `algorithm` built from `before` and from `after` (the switchboards decide: cuda/
// allpairs_variant.hpp, cuda/barneshut/variant.hpp), compared kernel by kernel; kernels with the same
// code are left out. `softening` as the running simulation's (it decides whether the self test can go).
std::vector<KernelCodeChange> kernel_code_changes(const KernelEngine& engine, Algorithm algorithm, const ToggleValues& before,
                                                  const ToggleValues& after, double softening);

// The kernel sources of one variant, by stage, as the switchboard gives them.
std::vector<std::pair<std::string, KernelSource>> kernel_sources(Algorithm algorithm, const ToggleValues& toggles, double softening);

}  // namespace nbl
