// Kernel launches, typed and sized in one place (CONTRIBUTING.md: launch helpers hide grid arithmetic).
// A launch names the kernel by its KernelSignature (declared in the header the kernel file shares,
// cuda/kernels/*.h), and every argument must have exactly the type of the kernel's parameter: a
// mismatch does not compile, where cudaLaunchKernel's void* array would pass garbage.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "cuda/check.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "cuda/kernels/kernel_signature.h"

namespace nbl {

// Blocks of `block` threads that cover `count` elements, one thread each (at least one block).
inline int blocks_for(std::size_t count, int block) {
  const std::size_t b = static_cast<std::size_t>(std::max(block, 1));
  return static_cast<int>((std::max<std::size_t>(count, 1) + b - 1) / b);
}

struct LaunchShape {
  dim3 grid{1}, block{1};
  std::size_t shared_bytes = 0;

  // One thread per element.
  static LaunchShape cover(std::size_t count, int threads, std::size_t shared_bytes = 0) {
    return {dim3(blocks_for(count, threads)), dim3(threads), shared_bytes};
  }
  // A grid-stride kernel: one thread per element, but at most `max_blocks` blocks (the kernel loops).
  static LaunchShape stride(std::size_t count, int threads, int max_blocks) {
    return {dim3(std::clamp(blocks_for(count, threads), 1, std::max(max_blocks, 1))), dim3(threads), 0};
  }
  // Exactly `blocks` blocks (persistent kernels sized by occupancy).
  static LaunchShape fixed(int blocks, int threads, std::size_t shared_bytes = 0) {
    return {dim3(std::max(blocks, 1)), dim3(threads), shared_bytes};
  }
};

template <class... Params, class... Args>
void launch(const KernelModule& module, const KernelSignature<Params...>& kernel, const LaunchShape& shape,
            cudaStream_t stream, const Args&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "wrong number of kernel arguments");
  static_assert((std::is_same_v<Params, Args> && ...),
                "an argument's type differs from the kernel's parameter (cuda/kernels/*.h declares them)");
  static_assert((std::is_trivially_copyable_v<Params> && ...), "kernel parameters are copied byte for byte");
  void* pointers[] = {const_cast<void*>(static_cast<const void*>(&args))..., nullptr};
  NBL_CUDA_CHECK(
      cudaLaunchKernel(module.kernel(kernel.name), shape.grid, shape.block, pointers, shape.shared_bytes, stream));
}

// Blocks of `threads` threads (with `shared_bytes` of dynamic shared memory) that one SM keeps resident
// for this kernel, at least 1. Asks the runtime; when it cannot say, estimates from ptxas's report
// (registers, static shared memory) with Hopper's limits.
int resident_blocks_per_sm(const KernelModule& module, std::string_view entry, int threads,
                           std::size_t shared_bytes = 0);

// The occupancy calculator for when there is no GPU to ask (Hopper-class limits).
int estimate_blocks_per_sm(int block_size, int registers, int shared_bytes);

}  // namespace nbl
