// The Barnes-Hut switchboard: the one function that turns toggle values into the kernels to compile
// (source files, macros, options) and how to launch them. Nothing else knows how a BH toggle becomes
// code (one function maps settings to a kernel variant; CONTRIBUTING.md); the backend, `nbodylab kernels` and the tests all ask this function.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/engine/kernel_engine.hpp"
#include "sim/toggles.hpp"

namespace nbl {

// The `bh_traversal` toggle's choices; each enumerator equals its choice's index (checked by name).
enum class BhTraversal { thread = 0, warp = 1, group = 2 };
static_assert(Choice{"bh_traversal", "thread"}.value == static_cast<int>(BhTraversal::thread) &&
              Choice{"bh_traversal", "warp"}.value == static_cast<int>(BhTraversal::warp) &&
              Choice{"bh_traversal", "group"}.value == static_cast<int>(BhTraversal::group));

struct BarnesHutVariant {
  bool morton_build = true;       // else the lock-based insertion build
  bool relative_opening = false;  // bh_opening = relative: the force pass wants the previous accelerations
  int tolerance = 0;              // ... and judges cells by this share of their RMS (bh_tolerance; 0 by angle)
  bool sort = true;               // force threads take bodies in tree order
  BhTraversal traversal = BhTraversal::group;
  int leaf_capacity = 1;
  int force_block = 256;
  // Dynamic shared memory of the force kernel (group lists) with the smallest node stack
  // (bh::kMinGroupStack); the launch grows the stack into what occupancy leaves.
  std::size_t force_shared_bytes = 0;
  int force_list_capacity = 0;  // group walk: entries of the point list (bh_list_capacity, fitted)
  int force_cell_capacity = 0;  // group walk: entries of the quadrupole cell list (0 with monopoles)

  KernelSource bounding_box;  // kernel 1
  KernelSource build;         // kernel 2: bh_build_insert.cu or bh_morton.cu
  KernelSource summarize;     // kernel 3 (lock-based build only; the Morton build summarizes itself)
  KernelSource sort_bodies;   // kernel 4 (lock-based build only; Morton keys are the tree order).
                              // Always runs: cells at the deepest level list their bodies through it.
  KernelSource groups;        // kernel 5's groups (group lists in tree order only)
  KernelSource force;         // kernel 5
  KernelSource integrate;     // kernel 6 (and the vertex writer)

  std::vector<InertToggle> inert;  // toggles that change nothing in this combination, with why
  std::string label;               // e.g. "morton leaf=4, group lists, sorted, rsqrt"
};

// `softened`: softening > 0, so a body's interaction with itself is zero without a test.
BarnesHutVariant barneshut_variant(const ToggleValues& toggles, bool softened);

// Every combination worth compiling to check it (`nbodylab kernels --check`, tests): each toggle's
// every value once, on top of the defaults, and every traversal with and without sorting.
std::vector<ToggleValues> barneshut_toggle_sweep();

// What the generated code must show for these toggles (rsqrt.approx with bh_rsqrt, vote.sync.all in
// the warp walk, a block barrier with the throttle, fewer fences when combined, ...). Compiles what it
// needs (no GPU); returns the claims that do not hold.
std::vector<std::string> barneshut_code_violations(const ToggleValues& toggles, KernelEngine& engine);

}  // namespace nbl
