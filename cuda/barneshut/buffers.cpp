#include "cuda/barneshut/buffers.hpp"

#include <algorithm>

#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/retire.hpp"

namespace nbl {

namespace {

// Element counts of every buffer for n bodies, `cells` cells and a build strategy: the one statement of
// the sizes, used both to allocate and to plan.
struct Sizes {
  std::size_t n, cells, radix_nodes, bounds_blocks;
  bool morton, groups;

  Sizes(std::size_t bodies, const BarnesHutVariant& v, std::size_t pool, int sm_count)
      : n(bodies),
        cells(pool),
        radix_nodes(std::max<std::size_t>(bodies, 2) - 1),
        bounds_blocks(
            static_cast<std::size_t>(std::clamp(blocks_for(bodies, bh::kBoundsThreads), 1, std::max(1, sm_count * 2)))),
        morton(v.morton_build),
        groups(!v.groups.file.empty()) {}

  std::size_t common_bytes() const {
    return (n + cells) * sizeof(float4) + 2 * n * sizeof(float4)            // node, vel, acc
           + cells * (8 + 3) * sizeof(int)                                  // child, depth, count, start
           + cells * (2 * sizeof(float4) + sizeof(float2) + sizeof(float))  // second moments, box, opening size
           + 2 * n * sizeof(int)                                            // sorted, body_depth
           + (groups ? n * sizeof(int2) : 0) + bounds_blocks * 6 * sizeof(float) + sizeof(bh::Control);
  }
  std::size_t morton_bytes() const {
    if (!morton) return 0;
    return 2 * n * sizeof(unsigned long long) + n * sizeof(int)  // keys (unsorted, sorted), unsorted ids
           + 5 * radix_nodes * sizeof(int)                       // first, last, prefix bits, cells, offset
           + (2 * n - 1) * sizeof(int)                           // parent
           + cells * (sizeof(int) + sizeof(unsigned));           // each cell's parent and arrivals
  }
};

}  // namespace

std::size_t BarnesHutBuffers::planned_bytes(std::size_t n, const BarnesHutVariant& variant) {
  // The bounding-box partials are a few KB whatever the GPU: size them for a large one.
  const Sizes s(n, variant, static_cast<std::size_t>(initial_cells(n)), 256);
  return s.common_bytes() + s.morton_bytes();
}

void BarnesHutBuffers::allocate(std::size_t n, const BarnesHutVariant& variant, int cells, int sm_count) {
  const Sizes s(n, variant, 0, sm_count);
  n_ = n;
  bounds_blocks_ = static_cast<int>(s.bounds_blocks);
  vel_.resize(n);
  acc_.resize(n);
  sorted_.resize(n);
  body_depth_.resize(n);
  rank_.resize(0);
  block_bounds_.resize(s.bounds_blocks * 6);
  control_.resize(1);
  control_host_.resize(1);
  node_ = DeviceBuffer<float4>();
  max_cells_ = 0;
  grow_cells(std::max(cells, 1), nullptr);
  fit_variant(variant);
}

void BarnesHutBuffers::fit_variant(const BarnesHutVariant& variant, RetiredObjects* old) {
  const Sizes s(n_, variant, static_cast<std::size_t>(max_cells_), 1);
  morton_ = s.morton;
  groups_used_ = s.groups;
  resize_retiring(groups_, s.groups ? n_ : 0, old);
  const std::size_t keyed = s.morton ? n_ : 0, radix = s.morton ? s.radix_nodes : 0;
  resize_retiring(keys_unsorted_, keyed, old);
  resize_retiring(keys_, keyed, old);
  resize_retiring(ids_unsorted_, keyed, old);
  for (auto* b : {&first_, &last_, &prefix_bits_, &cells_, &offset_}) resize_retiring(*b, radix, old);
  resize_retiring(parent_, s.morton ? 2 * n_ - 1 : 0, old);
  resize_retiring(cell_parent_, s.morton ? static_cast<std::size_t>(max_cells_) : 0, old);
  resize_retiring(arrivals_, s.morton ? static_cast<std::size_t>(max_cells_) : 0, old);
}

void BarnesHutBuffers::grow_cells(int cells, cudaStream_t stream) {
  if (cells <= max_cells_) return;
  DeviceBuffer<float4> node(n_ + static_cast<std::size_t>(cells));
  if (node_.size() >= n_ && n_)
    NBL_CUDA_CHECK(cudaMemcpyAsync(node.data(), node_.data(), n_ * sizeof(float4), cudaMemcpyDeviceToDevice, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));  // the old array is freed next
  node_ = std::move(node);
  child_.resize(static_cast<std::size_t>(cells) * 8);
  depth_.resize(cells);
  count_.resize(cells);
  start_.resize(cells);
  second_.resize(cells);
  second_xz_yz_.resize(cells);
  open_size2_.resize(cells);
  reach_.resize(cells);
  box_.resize(cells);
  if (morton_) cell_parent_.resize(cells), arrivals_.resize(cells);
  max_cells_ = cells;
}

std::size_t BarnesHutBuffers::bytes() const {
  std::size_t total = node_.bytes() + vel_.bytes() + acc_.bytes() + groups_.bytes() + block_bounds_.bytes() +
                      control_.bytes() + keys_unsorted_.bytes() + keys_.bytes() + second_.bytes() +
                      second_xz_yz_.bytes() + open_size2_.bytes() + reach_.bytes() + box_.bytes();
  total += cell_parent_.bytes() + arrivals_.bytes();
  for (const auto* b : {&child_, &depth_, &count_, &start_, &sorted_, &body_depth_, &rank_, &ids_unsorted_, &first_,
                        &last_, &prefix_bits_, &parent_, &cells_, &offset_})
    total += b->bytes();
  return total;
}

bh::Tree BarnesHutBuffers::tree(const BarnesHutPhysics& physics) {
  bh::Tree t{};
  t.n = static_cast<int>(n_);
  t.max_cells = max_cells_;
  t.node = node_.data();
  t.vel = vel_.data();
  t.acc = acc_.data();
  t.child = child_.data();
  t.depth = depth_.data();
  t.count = count_.data();
  t.start = start_.data();
  t.sorted = sorted_.data();
  t.body_depth = body_depth_.data();
  t.groups = groups_.data();
  t.block_bounds = block_bounds_.data();
  t.ctl = control_.data();
  t.dt = physics.dt;
  t.eps2 = physics.eps2;
  t.theta = physics.theta;
  t.second = second_.data();
  t.second_xz_yz = second_xz_yz_.data();
  t.open_size2 = open_size2_.data();
  t.reach = reach_.data();
  t.box = box_.data();
  return t;
}

bh::Morton BarnesHutBuffers::morton() {
  bh::Morton m{};
  m.keys = keys_.data();
  m.first = first_.data();
  m.last = last_.data();
  m.prefix_bits = prefix_bits_.data();
  m.parent = parent_.data();
  m.cells = cells_.data();
  m.offset = offset_.data();
  m.cell_parent = cell_parent_.data();
  m.arrivals = arrivals_.data();
  m.ctl = control_.data();
  return m;
}

int* BarnesHutBuffers::rank() {
  rank_.resize(n_);
  return rank_.data();
}

bh::Control BarnesHutBuffers::read_control(cudaStream_t stream) {
  NBL_CUDA_CHECK(
      cudaMemcpyAsync(control_host_.data(), control_.data(), sizeof(bh::Control), cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  return *control_host_.data();
}

void BarnesHutBuffers::reset_control(cudaStream_t stream) {
  NBL_CUDA_CHECK(cudaMemsetAsync(control_.data(), 0, sizeof(bh::Control), stream));
}

}  // namespace nbl
