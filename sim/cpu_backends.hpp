// The two CPU backends (OpenMP). The all-pairs one is also the program's fallback when there is no
// GPU; its double-accumulating mode and reference_accelerations() (diagnostics.hpp) are the yardsticks.
#pragma once
#include <memory>

#include "sim/backend.hpp"

namespace nbl {

enum class CpuPrecision {
  float32,             // float arithmetic, like the GPU fp32 kernels
  double_accumulate,   // float inputs, every interaction and sum in double: the reference mode
};

std::unique_ptr<Backend> make_cpu_allpairs(const Settings& settings, CpuPrecision precision = CpuPrecision::float32);

// Octree with the same opening criterion (physics/gravity.hpp cell_is_far) and softening the GPU uses;
// monopole cells (mass and centre of mass), leaves of up to a few bodies.
std::unique_ptr<Backend> make_cpu_barneshut(const Settings& settings);

// Host memory the backend needs per body (to refuse an n that cannot fit before allocating).
std::size_t cpu_bytes_per_body(Algorithm algorithm);

}  // namespace nbl
