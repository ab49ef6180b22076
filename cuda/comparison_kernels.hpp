// A/B's device work (comparison_kernels.cu, compiled by nvcc): B's accelerations against A's over every
// body, and the per-body difference as a colour key. Accelerations come in every layout the backends
// keep them (three float or double arrays, or float4 with the acceleration in x, y, z). C++17, no
// project headers beyond this one: nvcc includes it.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/buffer.hpp"

namespace nbl::comparison {

// Where body i's acceleration lies: x[i * stride], y[i * stride], z[i * stride], float or double.
struct AccelerationView {
  const void* x = nullptr;
  const void* y = nullptr;
  const void* z = nullptr;
  int stride = 1;  // in elements
  bool fp64 = false;
};

// Sums over all bodies: |aB - aA|^2, |aA|^2, and the largest |aB - aA|. `per_body` (n floats, may be
// null) receives |aB - aA| for the colour mode. NaN or inf in B shows up as a non-finite sum.
struct DifferenceSums {
  double difference2 = 0, reference2 = 0, max_difference = 0;
};
class DifferencePass {
 public:
  DifferenceSums run(AccelerationView a, AccelerationView b, std::size_t n, float* per_body, cudaStream_t stream);

 private:
  DeviceBuffer<double> partials_;  // 3 per block
  PinnedBuffer<double> host_;
};

// keys[i] = log-scaled per_body[i] / scale over [1e-8, 1e-1]: 0 below, 1 above (colour by A/B difference).
void write_difference_keys(const float* per_body, float* keys, std::size_t n, float scale, cudaStream_t stream);

}  // namespace nbl::comparison
