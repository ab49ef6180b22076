// The Barnes-Hut pipeline's device memory: what every build needs (bodies, the cell pool, the tree
// order, the force groups), plus what only the Morton build needs (its keys, radix tree and cells'
// parents). Only the running strategy's scratch
// is allocated, and the bytes per body the simulation checks against free memory come from the same
// size rules that allocate (planned_bytes), so the two cannot drift apart.
#pragma once
#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda/barneshut/variant.hpp"
#include "cuda/buffer.hpp"
#include "cuda/kernels/bh_tree.hpp"

namespace nbl {

class RetiredObjects;

// dt, softening and theta as the kernels take them (fields of bh::Tree).
struct BarnesHutPhysics {
  float dt = 0, eps2 = 0, theta = 0.5f;
};

class BarnesHutBuffers {
 public:
  // Largest n the 32-bit ids and the child array (8 ints per cell) can address with room to spare.
  static constexpr std::size_t kMaxBodies = std::size_t{1} << 27;

  // The first cell pool for n bodies (cells are added when a tree needs more: grow_cells).
  static int initial_cells(std::size_t n) { return static_cast<int>(n + n / 2 + 64); }
  // Device bytes `allocate(n, variant, initial_cells(n))` takes.
  static std::size_t planned_bytes(std::size_t n, const BarnesHutVariant& variant);

  // Sizes everything for n bodies and this variant's build (the bodies' contents are not kept).
  void allocate(std::size_t n, const BarnesHutVariant& variant, int cells, int sm_count);
  // Adapts the build-specific scratch to another variant, keeping the bodies. Given `old`, replaced
  // allocations go there instead of being freed here (a swap; cuda/retire.hpp).
  void fit_variant(const BarnesHutVariant& variant, RetiredObjects* old = nullptr);
  // Grows the cell pool to `cells` (no-op when it holds that many), keeping the bodies at the front
  // of `node`.
  void grow_cells(int cells, cudaStream_t stream);

  std::size_t size() const { return n_; }
  int max_cells() const { return max_cells_; }
  int bounds_blocks() const { return bounds_blocks_; }
  std::size_t bytes() const;  // everything allocated now

  bh::Tree tree(const BarnesHutPhysics& physics);
  bh::Morton morton();
  // Where the Morton build's keys and ids go before the sort (the sort's input).
  unsigned long long* unsorted_keys() { return keys_unsorted_.data(); }
  int* unsorted_ids() { return ids_unsorted_.data(); }
  int* rank();  // tree position of each body (colour modes), allocated on first use

  // Bodies (the first n entries of `node`) and velocities.
  float4* positions() { return node_.data(); }
  float4* velocities() { return vel_.data(); }
  const float4* accelerations() const { return acc_.data(); }
  float4* accelerations() { return acc_.data(); }
  // The device memory a step changes: positions, velocities, accelerations (a snapshot copies it aside).
  std::vector<std::pair<void*, std::size_t>> state_regions() {
    const std::size_t bytes = n_ * sizeof(float4);
    return {{node_.data(), bytes}, {vel_.data(), bytes}, {acc_.data(), bytes}};
  }

  bh::Control read_control(cudaStream_t stream);  // waits for the stream
  void reset_control(cudaStream_t stream);
  void reset_children(cudaStream_t stream) { child_.fill_bytes(0xff, stream); }  // every slot kNull

  // Host copies for checks and the overlay (each waits for the stream).
  DeviceBuffer<float4>& node_buffer() { return node_; }
  const DeviceBuffer<int>& child_buffer() const { return child_; }
  const DeviceBuffer<int>& depth_buffer() const { return depth_; }
  const DeviceBuffer<int>& count_buffer() const { return count_; }
  const DeviceBuffer<int>& start_buffer() const { return start_; }
  const DeviceBuffer<int>& sorted_buffer() const { return sorted_; }
  const DeviceBuffer<int2>& groups_buffer() const { return groups_; }
  const DeviceBuffer<float4>& second_buffer() const { return second_; }
  const DeviceBuffer<float2>& second_xz_yz_buffer() const { return second_xz_yz_; }
  const DeviceBuffer<float>& reach_buffer() const { return reach_; }
  const DeviceBuffer<float4>& box_buffer() const { return box_; }

 private:
  std::size_t n_ = 0;
  int max_cells_ = 0;
  int bounds_blocks_ = 1;
  bool morton_ = true;
  bool groups_used_ = true;
  // Every build.
  DeviceBuffer<float4> node_, vel_, acc_;
  DeviceBuffer<int> child_, depth_, count_, start_, sorted_, body_depth_, rank_;
  DeviceBuffer<int2> groups_;
  DeviceBuffer<float4> second_;  // per cell: second moments about the centre of mass
  DeviceBuffer<float2> second_xz_yz_;
  DeviceBuffer<float> open_size2_;  // per cell: its size in the opening criterion, squared
  DeviceBuffer<float> reach_;       // per cell: the farthest its bodies lie from its centre of mass
  DeviceBuffer<float4> box_;        // per cell: its cube (centre, edge)
  DeviceBuffer<float> block_bounds_;
  DeviceBuffer<bh::Control> control_;
  PinnedBuffer<bh::Control> control_host_;
  // Morton build.
  DeviceBuffer<unsigned long long> keys_unsorted_, keys_;
  DeviceBuffer<int> ids_unsorted_, first_, last_, prefix_bits_, parent_, cells_, offset_;
  DeviceBuffer<int> cell_parent_;    // per cell: its parent cell (bh_octree_summarize climbs them)
  DeviceBuffer<unsigned> arrivals_;  // per cell: child cells summarized so far
};

}  // namespace nbl
