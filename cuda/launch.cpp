#include "cuda/launch.hpp"

#include <string>

namespace nbl {

int estimate_blocks_per_sm(int block_size, int registers, int shared_bytes) {
  // Hopper: 65536 registers (allocated per warp in units of 256), 2048 threads, 32 blocks and 228 KB
  // of shared memory per SM (1 KB of it reserved per block).
  const int warps = (block_size + 31) / 32;
  const int regs_per_warp = ((std::max(registers, 1) * 32 + 255) / 256) * 256;
  int blocks = std::min(32, 2048 / std::max(block_size, 1));
  if (registers > 0) blocks = std::min(blocks, 65536 / (regs_per_warp * warps));
  if (shared_bytes > 0) blocks = std::min(blocks, (228 * 1024) / (shared_bytes + 1024));
  return std::max(blocks, 1);
}

int resident_blocks_per_sm(const KernelModule& module, std::string_view entry, int threads, std::size_t shared_bytes) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, module.kernel(entry), threads, shared_bytes) ==
          cudaSuccess &&
      blocks > 0)
    return blocks;
  cudaGetLastError();  // not sticky: the estimate below takes over
  const PtxasStats* r = module.program().resource(entry);
  return estimate_blocks_per_sm(threads, r ? r->registers : 0,
                                (r ? r->shared_bytes : 0) + static_cast<int>(shared_bytes));
}

}  // namespace nbl
