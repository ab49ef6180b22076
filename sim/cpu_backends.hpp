// The two CPU backends (OpenMP). The all-pairs one is also the program's fallback when there is no
// GPU; its double-accumulating mode and reference_accelerations() (diagnostics.hpp) are the yardsticks.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "physics/gravity.hpp"
#include "sim/backend.hpp"

namespace nbl {

enum class CpuPrecision {
  float32,            // float arithmetic, like the GPU fp32 kernels
  double_accumulate,  // float inputs, every interaction and sum in double: the reference mode
};

std::unique_ptr<Backend> make_cpu_allpairs(const Settings& settings, CpuPrecision precision = CpuPrecision::float32);

// Octree with the same opening criterion (physics/gravity.hpp cell_is_far) and softening the GPU uses;
// far cells as monopoles (mass at the centre of mass) or, with the bh_moments toggle at quadrupole,
// with their quadrupole moments too; leaves of up to a few bodies.
std::unique_ptr<Backend> make_cpu_barneshut(const Settings& settings);

// For tests: every cell of the CPU Barnes-Hut octree over `bodies`, with the moments its far-cell
// interactions use and the bodies it holds (empty when a position is NaN or infinite).
struct CpuOctreeCell {
  float mass;
  float com[3];
  Quadrupole quadrupole;            // about com
  std::vector<std::size_t> bodies;  // indices into `bodies`
};
std::vector<CpuOctreeCell> cpu_octree_cells(const Bodies& bodies);

// The kernel toggles the CPU Barnes-Hut backend reads too (it runs one code path otherwise): a change
// takes effect at its next force evaluation. Every other toggle shapes only the GPU kernels; the
// panel and the CLI's warnings ask cpu_backend_reads() which is which.
inline constexpr std::array kCpuBarnesHutToggles = {ToggleId("bh_moments"), ToggleId("bh_opening"),
                                                    ToggleId("bh_tolerance")};
inline bool cpu_backend_reads(const ToggleDef& toggle) {
  for (const ToggleId id : kCpuBarnesHutToggles)
    if (&id.def() == &toggle) return true;
  return false;
}

// Host memory the backend needs per body (to refuse an n that cannot fit before allocating).
std::size_t cpu_bytes_per_body(Algorithm algorithm);

}  // namespace nbl
