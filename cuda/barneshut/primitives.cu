#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/barneshut/primitives.hpp"

namespace nbl::bh {

void* Primitives::temp(std::size_t bytes) {
  if (temp_.size() < bytes) temp_.resize(bytes + bytes / 4);
  return temp_.data();
}

void Primitives::sort_pairs(const unsigned long long* keys_in, unsigned long long* keys_out, const int* ids_in,
                            int* ids_out, int n, int key_bits, cudaStream_t stream) {
  std::size_t bytes = 0;
  NBL_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, ids_in, ids_out, n, 0, key_bits, stream));
  void* storage = temp(bytes);
  NBL_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(storage, bytes, keys_in, keys_out, ids_in, ids_out, n, 0, key_bits, stream));
}

void Primitives::exclusive_sum(const int* in, int* out, int n, cudaStream_t stream) {
  std::size_t bytes = 0;
  NBL_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, stream));
  void* storage = temp(bytes);
  NBL_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(storage, bytes, in, out, n, stream));
}

}  // namespace nbl::bh
