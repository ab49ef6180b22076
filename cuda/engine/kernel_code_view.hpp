// What changed in the code between two sets of toggles (the tour's "what changed" view): for
// each kernel whose source, macros or compiler options differ, the macro and option changes, a diff of
// the kernel source as the compiler sees it after conditional inclusion (#if / #ifdef / #elif / #else
// evaluated with the variant's -D macros, "..." includes expanded from the same snapshot NVRTC compiles),
// and every source line that names a changed macro (the #if lines themselves, #pragma unroll NBL_UNROLL,
// constants set from a macro). Text only: no GPU and no NVRTC needed. And what the compilers made of the
// hot loop on both sides (hot_loop_change): NVRTC's PTX and the machine code (SASS) side by side, each
// labelled, because the two can disagree: -ftz changes no PTX instruction of the all-pairs loop and three
// SASS ones per interaction, float4 three PTX ones and no SASS one. That part needs NVRTC, not a GPU.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuda/engine/kernel_engine.hpp"
#include "cuda/engine/sass_analysis.hpp"
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
std::vector<DiffLine> diff_lines(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after,
                                 int context = 2);

struct KernelCodeChange {
  std::string kernel;                       // the stage it runs in: "force", "tree build", ...
  std::string file_before, file_after;      // kernel files ("" when the kernel exists on one side only)
  std::vector<std::string> macro_changes;   // "NBL_RSQRT: 0 -> 1"
  std::vector<std::string> option_changes;  // "-ftz=true: added"
  std::vector<std::string> changed_macros;  // the macro names alone
  std::vector<DiffLine> diff;               // the code after conditional inclusion
  std::vector<SourceLine> macro_lines;      // every line of either side's files naming a changed macro
  bool empty() const {
    return macro_changes.empty() && option_changes.empty() && diff.empty() && file_before == file_after;
  }
};

// The kernels of `algorithm` built from `before` and from `after` (the switchboards decide: cuda/
// allpairs_variant.hpp, cuda/barneshut/variant.hpp), compared kernel by kernel; kernels with the same
// code are left out. `softening` as the running simulation's (it decides whether the self test can go).
std::vector<KernelCodeChange> kernel_code_changes(const KernelEngine& engine, Algorithm algorithm,
                                                  const ToggleValues& before, const ToggleValues& after,
                                                  double softening);

// The kernel sources of one variant, by stage, as the switchboard gives them.
std::vector<std::pair<std::string, KernelSource>> kernel_sources(Algorithm algorithm, const ToggleValues& toggles,
                                                                 double softening);

// Whether `entry` evaluates interactions in its hot loop (one reciprocal square root each): the force
// kernels. Other loops with a square root (bh_pull_scale's sum of one body's pull) are no interactions.
bool is_force_entry(std::string_view entry);

// A kernel's hot loop before and after a step, in PTX and in SASS. The counts are static: instructions in
// the loop's code per interaction, each issued once per pass through the loop; what an SM issued in a run
// is a measurement (Nsight Compute's), which this view does not have.
struct HotLoopChange {
  std::string entry;
  bool has_before = false;                         // the entry exists before the step
  std::optional<HotLoop> ptx_before, ptx_after;    // NVRTC's PTX
  std::optional<HotLoop> sass_before, sass_after;  // the machine code, when it could be read
  std::string sass_missing;                        // why a side has no SASS count ("" when both have one)

  bool ptx_changed() const;   // per interaction or in its mix
  bool sass_changed() const;  // both sides read and different
  // What the machine code says about the step, in a sentence: "No SASS instruction changed in the hot
  // loop (14.03 per interaction, static count), although the PTX dropped from 17.05 to 14.03: ...".
  std::string verdict() const;
};

// One row of the hot loop's table: which code it counts ("PTX" or "SASS"), what, and both sides' values
// per interaction ("" where a side has none).
struct HotLoopRow {
  std::string code, label, before, after;
};
// Instructions per interaction first, then the mix per interaction (the classes on either side), PTX's
// rows then SASS's; a missing SASS count is a row that says why.
std::vector<HotLoopRow> hot_loop_rows(const HotLoopChange& change);

// `entry`'s hot loops in `after` and in `before` (null: the entry is new).
HotLoopChange hot_loop_change(const CompiledProgram* before, const CompiledProgram& after, std::string_view entry);
// The force kernels' hot loops of `algorithm` built from `before` and from `after`, compiled by `engine`
// (NVRTC; no GPU needed); none when the step leaves the force kernel's code as it was.
std::vector<HotLoopChange> hot_loop_changes(KernelEngine& engine, Algorithm algorithm, const ToggleValues& before,
                                            const ToggleValues& after, double softening);

}  // namespace nbl
