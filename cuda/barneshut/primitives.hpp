// Device-wide primitives the Morton build needs: a radix sort of (key, body) pairs and a prefix sum of
// the cells each radix node emits.
// These are CUB's, compiled by nvcc (CUB's device-wide algorithms launch their own kernels from host
// code, which NVRTC cannot compile) — the one reason the Barnes-Hut backend has nvcc-built code.
#pragma once
#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstddef>

#include "cuda/buffer.hpp"

namespace nbl::bh {

class Primitives {
 public:
  // Sorts n (key, id) pairs by the low `key_bits` bits of the keys.
  void sort_pairs(const unsigned long long* keys_in, unsigned long long* keys_out, const int* ids_in, int* ids_out,
                  int n, int key_bits, cudaStream_t stream);
  void exclusive_sum(const int* in, int* out, int n, cudaStream_t stream);

 private:
  void* temp(std::size_t bytes);
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace nbl::bh
