// The all-pairs switchboard (one function maps settings to a kernel variant key; CONTRIBUTING.md):
// select_allpairs_variant() is the only place that knows how toggle values become code: which kernel
// file, which macros, which compiler options, which launch shape. Everything else (the backend, the
// bench, `nbodylab kernels`, the tests) asks it. No CUDA here; no GPU needed.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "cuda/engine/kernel_engine.hpp"
#include "cuda/kernels/allpairs_params.h"
#include "sim/toggles.hpp"

namespace nbl {

// Names of the kernels in every all-pairs module (cuda/kernels/allpairs_*.cu), as their signatures in
// cuda/kernels/allpairs_params.h give them.
inline constexpr const char* kAllPairsForceKernel = allpairs::kForceKernel<allpairs::LaunchRange>.name;
inline constexpr const char* kAllPairsKickDriftKernel = allpairs::kKickDriftKernel<allpairs::LaunchRange>.name;
inline constexpr const char* kAllPairsKickKernel = allpairs::kKickKernel<allpairs::LaunchRange>.name;
inline constexpr const char* kAllPairsSumSlicesKernel = allpairs::kSumSlicesKernel<allpairs::LaunchRange>.name;
inline constexpr const char* kAllPairsVerticesKernel = allpairs::kVerticesKernel<allpairs::LaunchRange>.name;

// The `layout` toggle's choices; each enumerator equals its choice's index (checked below by name).
enum class BodyLayout { aos = 0, soa = 1, float4 = 2 };
static_assert(Choice{"layout", "aos"}.value == static_cast<int>(BodyLayout::aos) &&
              Choice{"layout", "soa"}.value == static_cast<int>(BodyLayout::soa) &&
              Choice{"layout", "float4"}.value == static_cast<int>(BodyLayout::float4));

struct AllPairsVariant {
  ToggleValues toggles;  // as they run: normalised, inert toggles at their canonical values
  KernelSource source;   // file, macros, options (and the description as its label)
  bool single_thread = false;
  BodyLayout layout = BodyLayout::float4;
  bool constant_params = true;
  bool fp64 = false;
  int block_size = 256;  // threads per block (1 for the single-thread kernel)
  int bodies_per_thread = 1;
  int tile_size = 1;                 // sources staged at a time: block size (shared), 32 (shuffle), 1
  std::vector<InertToggle> inert;    // toggles that change nothing in this combination, with why
  std::vector<std::string> notices;  // what normalising did, in words for the user
  std::string description;           // e.g. "float4 const rsqrt softening shared u32 b4 256 fma ftz"

  std::size_t real_bytes() const { return fp64 ? 8 : 4; }
  int bodies_per_block() const { return block_size * bodies_per_thread; }
};

// The variant that `toggles` ask for (all-pairs toggles only; the others are ignored). `softening` is
// the softening length the kernel will run with: self_interaction = softening needs it > 0 and falls
// back to the branch otherwise (with a notice).
AllPairsVariant select_allpairs_variant(const ToggleValues& toggles, double softening);

// How the force kernel is launched for n bodies, of which the first i_count get forces.
struct AllPairsLaunch {
  int block_size = 1;
  int grid_i = 1;    // blocks along the bodies
  int j_splits = 1;  // blocks along the sources (gridDim.y): each block sums one slice of j
  int j_slice = 0;   // sources per slice, a multiple of the tile size
};

// Splits the source range across blocks when there are too few blocks along i to keep every SM busy
// (small n, several bodies per thread): 65536 bodies at 4 per thread and 256 threads are 64 blocks,
// half an H100. Picks the split that minimises a simple model: the busiest SM runs
// ceil(blocks / sms) blocks of j_slice sources (plus a fixed start-up cost) each, at full speed only
// with >= 16 warps resident, plus the memory traffic of the partial sums. At large n it may still
// split a little to even out the last round of blocks. The partial sums are added in slice order by
// a second small kernel (deterministic).
// blocks_per_sm: how many blocks of this kernel fit on one SM (occupancy).
AllPairsLaunch plan_allpairs_launch(const AllPairsVariant& variant, std::size_t n, std::size_t i_count, int sm_count,
                                    int blocks_per_sm);

// What the generated code must show for the variant's toggles to be real (every switch must
// change the code that runs): rsqrt.approx with rsqrt and not without, shared loads and barriers
// with shared tiles, shuffles with shuffle tiles, .ftz with -ftz, f64 arithmetic with fp64, ld.const
// with constant parameters, 16-byte loads with float4, unroll x bodies-per-thread interactions in the
// hot loop, no per-interaction test without the branch, six FMAs per interaction with FMA order, the
// block size as launch bounds, a tile's worth of shared memory. Returns the claims that fail (empty:
// all hold). `nbodylab kernels --check` and the tests run it on every variant they compile.
std::vector<std::string> allpairs_code_violations(const AllPairsVariant& variant, const CompiledProgram& program);

// The toggle combinations worth compiling to check them: the whole ladder, every value of every
// all-pairs toggle on top of the defaults (exhaustive: every unroll factor and block size; else a
// spread of them), and the structural toggles crossed with each other. Duplicates (after
// normalisation) are left to the caller.
std::vector<ToggleValues> allpairs_check_combinations(bool exhaustive);

}  // namespace nbl
