// Barnes-Hut on the CPU (reference 000, Part II, as a host program): bounding box, octree build,
// summarize (mass and centre of mass per cell), force walk with the shared opening criterion and
// softening, and the shared leapfrog. Bodies walk the tree in groups of neighbours in tree order, as
// the GPU's sorted bodies do a warp at a time; OpenMP hands the groups to threads.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>

#include "physics/color_keys.hpp"
#include "physics/gravity.hpp"
#include "sim/cpu_backend_common.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/force_sums.hpp"

namespace nbl {

namespace {

// Leaves hold up to this many bodies, summed directly: deeper trees cost more walking than they save.
constexpr std::size_t kLeafCapacity = 16;
// Bodies still together after this many halvings of the root cube are (nearly) coincident: they stay
// in one leaf, so no input can make the build recurse without end.
constexpr int kMaxDepth = 48;

// One cell, 32 bytes, stored in depth-first preorder: an internal node's first child is the next node,
// and `skip` is the first node after its subtree. The walk then needs no stack: "open" is i + 1,
// "done with this cell" is skip.
struct Node {
  float com_x, com_y, com_z, mass;  // monopole: total mass at the centre of mass
  float edge;                       // cube edge length: the cell_size of the opening criterion
  std::int32_t skip;
  std::int32_t point_begin;  // leaves: their point masses [point_begin, point_end); internal: -1
  std::int32_t point_end;
};
static_assert(sizeof(Node) == 32);

// Where a cell is and which bodies it holds, for the overlay, the statistics and forming the walk's
// groups; the walk itself never reads it.
struct NodeGeometry {
  double center[3];
  double half;
  int depth;
  std::uint32_t item_begin, item_end;  // the cell's bodies, contiguous in tree order
};

// A body in tree order, with its index in the caller's arrays.
struct Item {
  float x, y, z, mass;
  std::uint32_t body;
};

struct WalkCounts {
  std::int64_t body_interactions = 0;
  std::int64_t cell_interactions = 0;
  std::int64_t touched = 0;
};

class Octree {
 public:
  // Builds the tree over `bodies`; false (and no tree) when a position is NaN or infinite.
  bool build(const Bodies& bodies) {
    const std::size_t n = bodies.size();
    nodes_.clear();
    geometry_.clear();
    point_x_.clear();
    point_y_.clear();
    point_z_.clear();
    point_mass_.clear();
    groups_.clear();
    crowded_leaves_ = 0;
    crowded_bodies_ = 0;
    max_depth_ = 0;
    if (n == 0) return true;

    double lo[3], hi[3];
    if (!bounding_box(bodies, lo, hi)) return false;
    double half = 0;
    for (int a = 0; a < 3; ++a) half = std::max(half, 0.5 * (hi[a] - lo[a]));
    // A hair larger than the bounding box so the extreme bodies fall strictly inside; never zero, so
    // a scene of coincident bodies still has a cell size.
    half = half * (1 + 1e-6) + std::numeric_limits<float>::min();
    const double center[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};

    items_.resize(n);
    scratch_.resize(n);
    body_depth_.resize(n);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      items_[i] = {bodies.x[i], bodies.y[i], bodies.z[i], bodies.mass[i], static_cast<std::uint32_t>(i)};
    }
    point_x_.reserve(n);
    point_y_.reserve(n);
    point_z_.reserve(n);
    point_mass_.reserve(n);
    build_node(0, n, center, half, 0);
    form_groups();
    return true;
  }

  // Mass and centre of mass of every cell, children before parents (reverse preorder).
  void summarize() {
    const auto count = static_cast<std::int64_t>(nodes_.size());
    std::vector<double> mass(nodes_.size()), mx(nodes_.size()), my(nodes_.size()), mz(nodes_.size());
#pragma omp parallel for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < count; ++i) {
      const Node& node = nodes_[i];
      if (node.point_begin < 0) continue;
      double m = 0, sx = 0, sy = 0, sz = 0;
      for (std::int32_t p = node.point_begin; p < node.point_end; ++p) {
        const double pm = point_mass_[p];
        m += pm;
        sx += pm * point_x_[p];
        sy += pm * point_y_[p];
        sz += pm * point_z_[p];
      }
      mass[i] = m;
      mx[i] = sx;
      my[i] = sy;
      mz[i] = sz;
    }
    for (std::int64_t i = count - 1; i >= 0; --i) {
      Node& node = nodes_[i];
      if (node.point_begin < 0) {
        double m = 0, sx = 0, sy = 0, sz = 0;
        for (std::int32_t c = static_cast<std::int32_t>(i) + 1; c < node.skip; c = nodes_[c].skip) {
          m += mass[c];
          sx += mx[c];
          sy += my[c];
          sz += mz[c];
        }
        mass[i] = m;
        mx[i] = sx;
        my[i] = sy;
        mz[i] = sz;
      }
      node.mass = static_cast<float>(mass[i]);
      // A massless cell attracts nothing; its geometric centre keeps the distance finite.
      const NodeGeometry& g = geometry_[i];
      node.com_x = static_cast<float>(mass[i] > 0 ? mx[i] / mass[i] : g.center[0]);
      node.com_y = static_cast<float>(mass[i] > 0 ? my[i] / mass[i] : g.center[1]);
      node.com_z = static_cast<float>(mass[i] > 0 ? mz[i] / mass[i] : g.center[2]);
    }
  }

  // Bodies that walk the tree together: the bodies of the largest subtrees that hold at most
  // kGroupSize of them (or a slice of a crowded leaf), contiguous in tree order.
  struct Group {
    std::uint32_t begin, end;  // tree-order bodies [begin, end)
    std::int32_t node;         // root of the group's subtree
  };
  static constexpr std::size_t kGroupSize = 32;
  const std::vector<Group>& groups() const { return groups_; }

  // What one group walk gathers: the point masses (far cells' monopoles and opened leaves' bodies)
  // that act on the group, one array per coordinate.
  struct InteractionList {
    std::vector<float> x, y, z, mass;
    void clear() {
      x.clear();
      y.clear();
      z.clear();
      mass.clear();
    }
    void add(float px, float py, float pz, float m) {
      x.push_back(px);
      y.push_back(py);
      z.push_back(pz);
      mass.push_back(m);
    }
  };

  // Accelerations of one group's bodies. The group walks the tree as one, like a GPU warp walking
  // the union of its threads' paths (reference 000, Part II, "Compute force"; the bh_traversal = warp
  // variant): a cell stands in for its bodies only when cell_is_far holds for every body of the group,
  // each at its own distance, so no body is approximated more coarsely than it would be walking
  // alone. The walk only gathers what acts on the group; each body then sums that list in one long
  // vector loop, the all-pairs kernel in miniature, instead of branching through the tree itself.
  void walk(const Group& group, float theta, float eps2, InteractionList& list, float* out_x, float* out_y,
            float* out_z, WalkCounts& counts) const {
    const std::size_t g = group.end - group.begin;
    float px[kGroupSize], py[kGroupSize], pz[kGroupSize];
    float lo[3] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    float hi[3] = {-lo[0], -lo[1], -lo[2]};
    for (std::size_t b = 0; b < g; ++b) {
      const Item& it = items_[group.begin + b];
      px[b] = it.x;
      py[b] = it.y;
      pz[b] = it.z;
      lo[0] = std::min(lo[0], it.x), hi[0] = std::max(hi[0], it.x);
      lo[1] = std::min(lo[1], it.y), hi[1] = std::max(hi[1], it.y);
      lo[2] = std::min(lo[2], it.z), hi[2] = std::max(hi[2], it.z);
    }
    const std::int32_t group_node = group.node;
    const std::int32_t group_skip = nodes_[group_node].skip;
    const auto node_count = static_cast<std::int32_t>(nodes_.size());
    std::int64_t touched = 0, cells = 0, points = 0;
    list.clear();
    std::int32_t i = 0;
    while (i < node_count) {
      const Node& node = nodes_[i];
      ++touched;
      // A cell that holds any of the group's bodies is never replaced by its monopole: a body would
      // pull on itself, and the cell's mass would sit at a distance that bears no relation to the
      // body's. In preorder those cells are the group root's ancestors and its own subtree.
      const bool holds_group_body = (i <= group_node && group_node < node.skip) || (group_node <= i && i < group_skip);
      if (!holds_group_body) {
        // The group's bounding box settles most cells at once: every body lies between the box's
        // nearest and farthest points from the centre of mass, and cell_is_far grows with distance.
        // Only cells in between need each body's own test; the verdict is the same either way.
        const float com[3] = {node.com_x, node.com_y, node.com_z};
        float near2 = 0, far2 = 0;
        for (int a = 0; a < 3; ++a) {
          const float below = lo[a] - com[a], above = com[a] - hi[a];
          const float gap = std::max({below, above, 0.0f});
          const float span = std::max(std::abs(com[a] - lo[a]), std::abs(hi[a] - com[a]));
          near2 += gap * gap;
          far2 += span * span;
        }
        int all_far = cell_is_far(near2, node.edge, theta);
        if (!all_far && cell_is_far(far2, node.edge, theta)) {
          all_far = 1;
#pragma omp simd reduction(&& : all_far)
          for (std::size_t b = 0; b < g; ++b) {
            const float dx = node.com_x - px[b], dy = node.com_y - py[b], dz = node.com_z - pz[b];
            all_far = all_far && cell_is_far(dx * dx + dy * dy + dz * dz, node.edge, theta);
          }
        }
        if (all_far) {
          list.add(node.com_x, node.com_y, node.com_z, node.mass);
          ++cells;
          i = node.skip;
          continue;
        }
      }
      if (node.point_begin >= 0) {
        for (std::int32_t j = node.point_begin; j < node.point_end; ++j) {
          list.add(point_x_[j], point_y_[j], point_z_[j], point_mass_[j]);
        }
        points += node.point_end - node.point_begin;
        i = node.skip;
        continue;
      }
      ++i;
    }

    const float* x = list.x.data();
    const float* y = list.y.data();
    const float* z = list.z.data();
    const float* m = list.mass.data();
    const std::size_t length = list.mass.size();
    for (std::size_t b = 0; b < g; ++b) {
      float ax = 0, ay = 0, az = 0;
      if (eps2 > 0) {
        // With softening a body's term on itself is exactly zero (physics/gravity.hpp): no test.
        sum_accelerations(x, y, z, m, 0, length, px[b], py[b], pz[b], eps2, ax, ay, az);
      } else {
        sum_accelerations_apart(x, y, z, m, 0, length, px[b], py[b], pz[b], ax, ay, az);
      }
      const std::uint32_t body = items_[group.begin + b].body;
      out_x[body] = ax;
      out_y[body] = ay;
      out_z[body] = az;
    }
    counts.touched = touched;
    counts.cell_interactions = cells * static_cast<std::int64_t>(g);
    // Every body met every point of the leaves opened, less itself.
    counts.body_interactions = (points - 1) * static_cast<std::int64_t>(g);
  }

  std::size_t body_count() const { return items_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<NodeGeometry>& geometry() const { return geometry_; }
  int max_depth() const { return max_depth_; }
  int body_depth(std::size_t body) const { return body_depth_[body]; }
  std::size_t crowded_leaves() const { return crowded_leaves_; }
  std::size_t crowded_bodies() const { return crowded_bodies_; }

  double children_per_cell() const {
    std::size_t internal = 0, children = 0;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].point_begin >= 0) continue;
      ++internal;
      for (std::int32_t c = static_cast<std::int32_t>(i) + 1; c < nodes_[i].skip; c = nodes_[c].skip) ++children;
    }
    return internal ? static_cast<double>(children) / static_cast<double>(internal) : 0.0;
  }

 private:
  static bool bounding_box(const Bodies& bodies, double lo[3], double hi[3]) {
    const std::size_t n = bodies.size();
    float min_x = bodies.x[0], min_y = bodies.y[0], min_z = bodies.z[0];
    float max_x = min_x, max_y = min_y, max_z = min_z;
    int finite = 1;
#pragma omp parallel for schedule(static) reduction(min : min_x, min_y, min_z) reduction(max : max_x, max_y, max_z) \
    reduction(&& : finite)
    for (std::size_t i = 0; i < n; ++i) {
      const float x = bodies.x[i], y = bodies.y[i], z = bodies.z[i];
      finite = finite && std::isfinite(x) && std::isfinite(y) && std::isfinite(z);
      min_x = std::min(min_x, x);
      min_y = std::min(min_y, y);
      min_z = std::min(min_z, z);
      max_x = std::max(max_x, x);
      max_y = std::max(max_y, y);
      max_z = std::max(max_z, z);
    }
    lo[0] = min_x, lo[1] = min_y, lo[2] = min_z;
    hi[0] = max_x, hi[1] = max_y, hi[2] = max_z;
    return finite != 0;
  }

  // Items [begin, end) all lie in the cube (center, half); appends its subtree in preorder.
  void build_node(std::size_t begin, std::size_t end, const double center[3], double half, int depth) {
    const auto index = static_cast<std::int32_t>(nodes_.size());
    nodes_.push_back(Node{0, 0, 0, 0, static_cast<float>(2 * half), 0, -1, -1});
    geometry_.push_back({{center[0], center[1], center[2]}, half, depth, static_cast<std::uint32_t>(begin),
                         static_cast<std::uint32_t>(end)});
    max_depth_ = std::max(max_depth_, depth);
    const std::size_t count = end - begin;

    if (count <= kLeafCapacity || depth == kMaxDepth) {
      make_leaf(index, begin, end, depth);
      nodes_[index].skip = static_cast<std::int32_t>(nodes_.size());
      return;
    }

    // Counting sort of the items into the eight octants (bit 0: x, bit 1: y, bit 2: z above centre).
    std::size_t octant_count[8] = {};
    auto octant = [&](const Item& it) {
      return (it.x >= center[0] ? 1 : 0) | (it.y >= center[1] ? 2 : 0) | (it.z >= center[2] ? 4 : 0);
    };
    for (std::size_t s = begin; s < end; ++s) ++octant_count[octant(items_[s])];
    std::size_t octant_begin[9];
    octant_begin[0] = begin;
    for (int o = 0; o < 8; ++o) octant_begin[o + 1] = octant_begin[o] + octant_count[o];
    std::size_t fill[8];
    std::copy(octant_begin, octant_begin + 8, fill);
    for (std::size_t s = begin; s < end; ++s) scratch_[fill[octant(items_[s])]++] = items_[s];
    std::copy(scratch_.begin() + static_cast<std::ptrdiff_t>(begin), scratch_.begin() + static_cast<std::ptrdiff_t>(end),
              items_.begin() + static_cast<std::ptrdiff_t>(begin));

    const double child_half = 0.5 * half;
    for (int o = 0; o < 8; ++o) {
      if (octant_count[o] == 0) continue;
      const double child_center[3] = {center[0] + ((o & 1) ? child_half : -child_half),
                                      center[1] + ((o & 2) ? child_half : -child_half),
                                      center[2] + ((o & 4) ? child_half : -child_half)};
      build_node(octant_begin[o], octant_begin[o + 1], child_center, child_half, depth + 1);
    }
    nodes_[index].skip = static_cast<std::int32_t>(nodes_.size());
  }

  void form_groups() {
    const auto count = static_cast<std::int32_t>(nodes_.size());
    std::int32_t i = 0;
    while (i < count) {
      const NodeGeometry& g = geometry_[i];
      const std::size_t bodies = g.item_end - g.item_begin;
      if (bodies <= kGroupSize || nodes_[i].point_begin >= 0) {
        for (std::uint32_t s = g.item_begin; s < g.item_end; s += kGroupSize) {
          groups_.push_back({s, static_cast<std::uint32_t>(std::min<std::size_t>(g.item_end, s + kGroupSize)), i});
        }
        i = nodes_[i].skip;
      } else {
        ++i;
      }
    }
  }

  void make_leaf(std::int32_t index, std::size_t begin, std::size_t end, int depth) {
    Node& node = nodes_[index];
    node.point_begin = static_cast<std::int32_t>(point_mass_.size());
    for (std::size_t s = begin; s < end; ++s) body_depth_[items_[s].body] = static_cast<std::uint8_t>(depth);
    if (end - begin > kLeafCapacity) {
      // Only at the depth limit: these bodies are (nearly) coincident. Bodies at one exact position
      // act on everything else as one point of their summed mass (and on each other not at all, being
      // softened at zero distance), so they are merged: a million bodies at one point cost one
      // interaction each, not a million.
      ++crowded_leaves_;
      crowded_bodies_ += end - begin;
      std::sort(items_.begin() + static_cast<std::ptrdiff_t>(begin), items_.begin() + static_cast<std::ptrdiff_t>(end),
                [](const Item& a, const Item& b) {
                  if (a.x != b.x) return a.x < b.x;
                  if (a.y != b.y) return a.y < b.y;
                  return a.z < b.z;
                });
      for (std::size_t s = begin; s < end; ++s) {
        const Item& it = items_[s];
        const std::size_t last = point_mass_.size() - 1;
        if (s > begin && point_x_[last] == it.x && point_y_[last] == it.y && point_z_[last] == it.z) {
          point_mass_[last] += it.mass;
        } else {
          append_point(it);
        }
      }
    } else {
      for (std::size_t s = begin; s < end; ++s) append_point(items_[s]);
    }
    node.point_end = static_cast<std::int32_t>(point_mass_.size());
  }

  void append_point(const Item& it) {
    point_x_.push_back(it.x);
    point_y_.push_back(it.y);
    point_z_.push_back(it.z);
    point_mass_.push_back(it.mass);
  }

  std::vector<Node> nodes_;
  std::vector<NodeGeometry> geometry_;
  std::vector<Item> items_, scratch_;
  std::vector<Group> groups_;
  std::vector<std::uint8_t> body_depth_;  // per caller's body: the depth of its leaf
  std::vector<float> point_x_, point_y_, point_z_, point_mass_;
  int max_depth_ = 0;
  std::size_t crowded_leaves_ = 0, crowded_bodies_ = 0;
};

class CpuBarnesHut final : public CpuBackendBase {
 public:
  std::string name() const override { return "Barnes-Hut, CPU (" + cpu_thread_description() + ")"; }
  Algorithm algorithm() const override { return Algorithm::barneshut; }

  std::vector<CellBox> tree_cells(int max_depth) override {
    StepStats ignored;
    ensure_accelerations(ignored);  // the tree is built with the forces
    std::vector<CellBox> cells;
    if (!tree_valid_) return cells;
    for (const NodeGeometry& g : tree_.geometry()) {
      if (g.depth > max_depth) continue;
      cells.push_back({{static_cast<float>(g.center[0]), static_cast<float>(g.center[1]), static_cast<float>(g.center[2])},
                       static_cast<float>(g.half), g.depth});
    }
    return cells;
  }

 protected:
  bool configure_forces(const Settings& settings) override {
    const bool changed = settings.opening_angle != opening_angle_;
    opening_angle_ = settings.opening_angle;
    return changed;
  }

  void compute_forces(StepStats& stats) override {
    const std::size_t n = bodies_.size();
    stats.has_tree = true;
    const StageClock build_clock;
    tree_valid_ = tree_.build(bodies_);
    add_stage_time(stats, stage_name(Stage::tree_build), build_clock.elapsed_ms());
    if (!tree_valid_) {
      // No tree can hold a NaN: report it and leave accelerations that keep the state visibly broken.
      std::fill(accel_x_.begin(), accel_x_.end(), std::numeric_limits<float>::quiet_NaN());
      std::fill(accel_y_.begin(), accel_y_.end(), std::numeric_limits<float>::quiet_NaN());
      std::fill(accel_z_.begin(), accel_z_.end(), std::numeric_limits<float>::quiet_NaN());
      stats.non_finite = true;
      stats.notices.push_back("a position is NaN or infinite: no octree can be built; the simulation has blown up");
      return;
    }
    if (tree_.crowded_leaves() > 0) {
      std::ostringstream m;
      m << tree_.crowded_bodies() << " bodies could not be separated within " << kMaxDepth
        << " tree levels (coincident or nearly so); they share " << tree_.crowded_leaves()
        << (tree_.crowded_leaves() == 1 ? " leaf" : " leaves") << " and interact directly";
      stats.notices.push_back(m.str());
    }

    const StageClock summarize_clock;
    tree_.summarize();
    add_stage_time(stats, stage_name(Stage::summarize), summarize_clock.elapsed_ms());

    const StageClock force_clock;
    const auto theta = static_cast<float>(opening_angle_);
    const auto eps2 = static_cast<float>(softening_ * softening_);
    std::int64_t body_interactions = 0, cell_interactions = 0, touched_sum = 0;
    std::int64_t touched_min = std::numeric_limits<std::int64_t>::max(), touched_max = 0;
    float* out_x = accel_x_.data();
    float* out_y = accel_y_.data();
    float* out_z = accel_z_.data();
    const auto& groups = tree_.groups();
    const auto group_count = static_cast<std::int64_t>(groups.size());
#pragma omp parallel reduction(+ : body_interactions, cell_interactions, touched_sum) reduction(min : touched_min) \
    reduction(max : touched_max)
    {
      Octree::InteractionList list;  // one per thread, reused across its groups
#pragma omp for schedule(dynamic, 4)
      for (std::int64_t k = 0; k < group_count; ++k) {
        const auto& group = groups[k];
        WalkCounts counts;
        tree_.walk(group, theta, eps2, list, out_x, out_y, out_z, counts);
        body_interactions += counts.body_interactions;
        cell_interactions += counts.cell_interactions;
        // Each body of the group touched every node its group walk touched.
        touched_sum += counts.touched * static_cast<std::int64_t>(group.end - group.begin);
        touched_min = std::min(touched_min, counts.touched);
        touched_max = std::max(touched_max, counts.touched);
      }
    }
    add_stage_time(stats, stage_name(Stage::force), force_clock.elapsed_ms());

    stats.interactions += static_cast<double>(body_interactions + cell_interactions);
    stats.tree.max_depth = tree_.max_depth();
    stats.tree.cells = static_cast<std::int64_t>(tree_.nodes().size());
    stats.tree.children_per_cell = tree_.children_per_cell();
    if (n > 0) {
      stats.tree.nodes_touched = {static_cast<double>(touched_min), static_cast<double>(touched_sum) / static_cast<double>(n),
                                  static_cast<double>(touched_max)};
    }
  }

  void tree_depth_keys(float* keys) const override {
    const std::size_t n = bodies_.size();
    const int deepest = tree_valid_ ? tree_.max_depth() : 0;
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = depth_key(tree_.body_depth(i), deepest);
    }
  }

 private:
  double opening_angle_ = 0.5;
  Octree tree_;
  bool tree_valid_ = false;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_barneshut(const Settings& settings) {
  auto backend = std::make_unique<CpuBarnesHut>();
  backend->configure(settings);
  return backend;
}

}  // namespace nbl
