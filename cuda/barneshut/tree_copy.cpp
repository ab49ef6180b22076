#include "cuda/barneshut/tree_copy.hpp"

#include <cuda_runtime_api.h>

#include <cmath>

#include "cuda/barneshut/buffers.hpp"
#include "cuda/check.hpp"

namespace nbl {

std::vector<CellBox> overlay_cells(BarnesHutBuffers& buffers, const BarnesHutVariant& variant, int max_depth,
                                   void* cuda_stream) {
  const auto stream = static_cast<cudaStream_t>(cuda_stream);
  const std::size_t n = buffers.size();
  const bh::Control ctl = buffers.read_control(stream);
  if (ctl.error & bh::kErrorNonFinite) return {};  // no tree was built this step
  const int first = variant.morton_build ? 0 : ctl.bottom - static_cast<int>(n);
  const int last = variant.morton_build ? ctl.cells - 1 : ctl.root - static_cast<int>(n);
  if (last < first) return {};
  const std::size_t count = static_cast<std::size_t>(last - first + 1);
  std::vector<int> depth(count);
  std::vector<float4> cube(count);
  NBL_CUDA_CHECK(cudaMemcpyAsync(depth.data(), buffers.depth_buffer().data() + first, count * sizeof(int),
                                 cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaMemcpyAsync(cube.data(), buffers.box_buffer().data() + first, count * sizeof(float4),
                                 cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<CellBox> boxes;
  for (std::size_t c = 0; c < count; ++c) {
    if (depth[c] > max_depth) continue;
    CellBox box{};
    box.center[0] = cube[c].x, box.center[1] = cube[c].y, box.center[2] = cube[c].z;
    box.half_size = 0.5f * cube[c].w;
    box.depth = depth[c];
    boxes.push_back(box);
  }
  return boxes;
}

BarnesHutTreeCopy copy_tree(BarnesHutBuffers& buffers, const BarnesHutVariant& variant, void* cuda_stream) {
  BarnesHutTreeCopy copy;
  const std::size_t n = buffers.size();
  const auto stream = static_cast<cudaStream_t>(cuda_stream);
  const bh::Control ctl = buffers.read_control(stream);
  copy.n = static_cast<int>(n);
  copy.morton_build = variant.morton_build;
  copy.sorted = variant.sort;
  copy.root = ctl.root;
  copy.first_cell = variant.morton_build ? copy.n : ctl.bottom;
  copy.last_cell = variant.morton_build ? copy.n + ctl.cells - 1 : ctl.root;
  copy.root_size = ctl.root_size;
  copy.root_center[0] = ctl.root_x, copy.root_center[1] = ctl.root_y, copy.root_center[2] = ctl.root_z;
  const std::vector<float4> node = buffers.node_buffer().to_host(stream);
  copy.node.reserve(node.size() * 4);
  for (const float4& p : node) copy.node.insert(copy.node.end(), {p.x, p.y, p.z, p.w});
  copy.child = buffers.child_buffer().to_host(stream);
  copy.depth = buffers.depth_buffer().to_host(stream);
  copy.count = buffers.count_buffer().to_host(stream);
  copy.start = buffers.start_buffer().to_host(stream);
  copy.order = buffers.sorted_buffer().to_host(stream);
  const std::vector<float4> second = buffers.second_buffer().to_host(stream);
  const std::vector<float2> second_xz_yz = buffers.second_xz_yz_buffer().to_host(stream);
  copy.second.reserve(second.size() * 6);
  for (std::size_t c = 0; c < second.size(); ++c)
    copy.second.insert(copy.second.end(),
                       {second[c].x, second[c].y, second[c].z, second[c].w, second_xz_yz[c].x, second_xz_yz[c].y});
  copy.reach = buffers.reach_buffer().to_host(stream);
  copy.has_groups = buffers.groups_buffer().size() > 0;
  if (copy.has_groups) {
    copy.groups = ctl.groups;
    const std::vector<int2> groups = buffers.groups_buffer().to_host(stream);
    for (int g = 0; g < ctl.groups; ++g) {
      copy.group_first.push_back(groups[g].x);
      copy.group_size.push_back(groups[g].y);
    }
  }
  return copy;
}

}  // namespace nbl
