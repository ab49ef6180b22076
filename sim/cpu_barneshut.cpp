// Barnes-Hut on the CPU (Burtscher's CUDA optimization tutorial, Part II, as a host program): bounding box, octree build,
// summarize (mass, centre of mass and second moments per cell), force walk with the shared opening
// criterion and softening, and the shared leapfrog. Far cells act as monopoles or, with the toggle
// bh_moments at quadrupole, through their quadrupole moments too (physics/gravity.hpp). Bodies walk
// the tree in groups of neighbours in tree order, as the GPU's sorted bodies do a warp at a time;
// OpenMP hands the groups to threads.
// Any geometry costs about what a Plummer sphere does (build_node, make_leaf, opening_stretch; see
// docs/barneshut.md, "Any geometry").
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
#include "sim/error.hpp"
#include "sim/force_sums.hpp"

namespace nbl {

namespace {

// The RMS of n accelerations' magnitudes, summed in order in double (the same for every run).
float rms_magnitude(const float* x, const float* y, const float* z, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i)
    sum += static_cast<double>(x[i]) * x[i] + static_cast<double>(y[i]) * y[i] + static_cast<double>(z[i]) * z[i];
  return n ? static_cast<float>(std::sqrt(sum / static_cast<double>(n))) : 0.0f;
}

// Leaves hold up to this many bodies, summed directly: deeper trees cost more walking than they save.
constexpr std::size_t kLeafCapacity = 16;
// Bodies closer together than this are one point mass: float squares of smaller distances lose their
// precision and then vanish (below 2^-126), so no opening criterion can tell such bodies apart and a
// walk among them would open every cell, O(k^2). Softened, their pulls on each other are negligible
// (at most their mass times this distance over the softening length cubed).
constexpr double kUnresolvedExtent = 0x1p-60;  // about 8.7e-19
// The cube edge halves at every level (build_node) from at most 2^129 (the float range), and a cell
// narrower than kUnresolvedExtent is a leaf, so no input takes a path past about 190 levels. The
// limit guards against a bug; no input is meant to reach it.
constexpr int kMaxDepth = 320;

// One cell, 32 bytes, stored in depth-first preorder: an internal node's first child is the next node,
// and `skip` is the first node after its subtree. The walk then needs no stack: "open" is i + 1,
// "done with this cell" is skip.
struct Node {
  float com_x, com_y, com_z, mass;  // monopole: total mass at the centre of mass
  float edge;  // the cell_size of the opening criterion: the cube's edge, stretched for rods and sheets
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
    merged_points_ = 0;
    merged_bodies_ = 0;
    capped_leaves_ = 0;
    capped_bodies_ = 0;
    max_depth_ = 0;
    if (n == 0) return true;

    Box box;
    if (!bounding_box(bodies, box)) return false;

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
    double center[3], largest = 0;
    for (int a = 0; a < 3; ++a) {
      center[a] = 0.5 * (static_cast<double>(box.lo[a]) + static_cast<double>(box.hi[a]));
      largest = std::max(largest, static_cast<double>(box.hi[a]) - static_cast<double>(box.lo[a]));
    }
    build_node(0, n, box, center, 0.5 * largest, 0);
    form_groups();
    return true;
  }

  // Mass, centre of mass and second moments of every cell, children before parents (reverse
  // preorder), and from them each cell's size in the opening criterion and its quadrupole moment.
  void summarize() {
    const std::size_t count = nodes_.size();
    moments_.resize(count);
    quadrupoles_.resize(count);
#pragma omp parallel for schedule(dynamic, 256)
    for (std::size_t i = 0; i < count; ++i) {
      const Node& node = nodes_[i];
      if (node.point_begin < 0) continue;
      Moments& mo = moments_[i];
      mo = {};
      for (std::int32_t p = node.point_begin; p < node.point_end; ++p) {
        const double pm = point_mass_[p];
        mo.mass += pm;
        mo.mass2 += pm * pm;
        mo.com[0] += pm * point_x_[p];
        mo.com[1] += pm * point_y_[p];
        mo.com[2] += pm * point_z_[p];
      }
      if (mo.mass > 0)
        for (double& c : mo.com) c /= mo.mass;
      for (std::int32_t p = node.point_begin; p < node.point_end; ++p) {
        const double dx = point_x_[p] - mo.com[0], dy = point_y_[p] - mo.com[1], dz = point_z_[p] - mo.com[2];
        mo.add_second(point_mass_[p], dx, dy, dz);
        mo.reach = std::max(mo.reach, std::sqrt(dx * dx + dy * dy + dz * dz));
      }
    }
    for (std::size_t k = count; k-- > 0;) {
      Node& node = nodes_[k];
      Moments& mo = moments_[k];
      const auto i = static_cast<std::int32_t>(k);
      if (node.point_begin < 0) {
        mo = {};
        for (std::int32_t c = i + 1; c < node.skip; c = nodes_[c].skip) {
          const Moments& child = moments_[c];
          mo.mass += child.mass;
          mo.mass2 += child.mass2;
          for (int a = 0; a < 3; ++a) mo.com[a] += child.mass * child.com[a];
        }
        if (mo.mass > 0)
          for (double& c : mo.com) c /= mo.mass;
        // Parallel axes: each child's moments about its own centre plus its mass at its offset.
        for (std::int32_t c = i + 1; c < node.skip; c = nodes_[c].skip) {
          const Moments& child = moments_[c];
          for (int q = 0; q < 6; ++q) mo.second[q] += child.second[q];
          const double dx = child.com[0] - mo.com[0], dy = child.com[1] - mo.com[1], dz = child.com[2] - mo.com[2];
          mo.add_second(child.mass, dx, dy, dz);
          mo.reach = std::max(mo.reach, std::sqrt(dx * dx + dy * dy + dz * dz) + child.reach);
        }
      }
      node.mass = static_cast<float>(mo.mass);
      // A massless cell attracts nothing; its geometric centre keeps the distance finite.
      const NodeGeometry& g = geometry_[k];
      node.com_x = static_cast<float>(mo.mass > 0 ? mo.com[0] : g.center[0]);
      node.com_y = static_cast<float>(mo.mass > 0 ? mo.com[1] : g.center[1]);
      node.com_z = static_cast<float>(mo.mass > 0 ? mo.com[2] : g.center[2]);
      const double effective_count = mo.mass2 > 0 ? mo.mass * mo.mass / mo.mass2 : 0;
      const double* m2 = mo.second;
      const double edge = 2 * g.half;
      // Rods and sheets count as larger than their cube, and no cell as smaller than its reach.
      const double stretched =
          edge * opening_stretch(m2[0], m2[1], m2[2], m2[3], m2[4], m2[5], mo.mass, effective_count, edge);
      node.edge = static_cast<float>(opening_size(stretched, mo.reach));
      // From the double moments, rounded to float once: a few flops per cell, so every walk has them.
      quadrupoles_[k] = quadrupole_from_second_moments(m2[0], m2[1], m2[2], m2[3], m2[4], m2[5]);
    }
  }

  // Bodies that walk the tree together: the bodies of the largest subtrees that hold at most
  // kGroupSize of them (or a slice of a leaf of coincident bodies), contiguous in tree order.
  struct Group {
    std::uint32_t begin, end;  // tree-order bodies [begin, end)
    std::int32_t node;         // root of the group's subtree
  };
  static constexpr std::size_t kGroupSize = 32;
  const std::vector<Group>& groups() const { return groups_; }

  // What one group walk gathers, one array per quantity: the point masses that act on the group (far
  // cells' monopoles and opened leaves' bodies), and, with quadrupole moments, the far cells with their
  // quadrupoles, summed in a loop of their own.
  struct InteractionList {
    struct Points {
      std::vector<float> x, y, z, mass;
    } points;
    struct Cells {
      std::vector<float> x, y, z, mass, qxx, qyy, qxy, qxz, qyz, trace;
    } cells;
    void clear() {
      for (auto* v : {&points.x, &points.y, &points.z, &points.mass}) v->clear();
      for (auto* v : {&cells.x, &cells.y, &cells.z, &cells.mass, &cells.qxx, &cells.qyy, &cells.qxy, &cells.qxz,
                      &cells.qyz, &cells.trace})
        v->clear();
    }
    void add_point(float px, float py, float pz, float m) {
      points.x.push_back(px);
      points.y.push_back(py);
      points.z.push_back(pz);
      points.mass.push_back(m);
    }
    void add_cell(const Node& node, const Quadrupole& q) {
      cells.x.push_back(node.com_x);
      cells.y.push_back(node.com_y);
      cells.z.push_back(node.com_z);
      cells.mass.push_back(node.mass);
      cells.qxx.push_back(q.xx);
      cells.qyy.push_back(q.yy);
      cells.qxy.push_back(q.xy);
      cells.qxz.push_back(q.xz);
      cells.qyz.push_back(q.yz);
      cells.trace.push_back(q.trace);
    }
  };

  // Accelerations of one group's bodies. The group walks the tree as one, like a GPU warp walking
  // the union of its threads' paths (the tutorial, Part II, "Compute force"; the bh_traversal = warp
  // variant): a cell stands in for its bodies only when cell_is_far holds for every body of the group,
  // each at its own distance, so no body is approximated more coarsely than it would be walking
  // alone. The walk only gathers what acts on the group; each body then sums that list in one long
  // vector loop, the all-pairs kernel in miniature, instead of branching through the tree itself.
  // Quadrupoles: far cells go to the list of cells with their quadrupole moments, and cost one
  // interaction each like a monopole (at about twice its arithmetic); opened leaves' bodies stay
  // point masses either way.
  // Adaptive: only cells that the opening test at kAdaptiveMonopoleShare * theta would open take their
  // quadrupole (physics/gravity.hpp); the rest keep their monopole.
  // Relative opening (budget >= 0, the tolerance times the last pass's RMS acceleration): a cell
  // is judged by physics/gravity.hpp's relative_acceptance at the group box's nearest distance, as the
  // GPU's group walk judges it, instead of by theta; one it would open is still accepted as a monopole
  // when it is light (light_cell) at the gap between the group's box and the cell's cube.
  template <bool Quadrupoles, bool Adaptive = false>
  void walk(const Group& group, float theta, float budget, float eps2, InteractionList& list, float* out_x,
            float* out_y, float* out_z, WalkCounts& counts) const {
    const float monopole_theta = kAdaptiveMonopoleShare * theta;
    const std::size_t g = group.end - group.begin;
    float px[kGroupSize], py[kGroupSize], pz[kGroupSize];
    float lo[3] = {std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
                   std::numeric_limits<float>::max()};
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
        Acceptance as = Acceptance::open;
        bool light = false;  // accepted by light_cell: a monopole, whose error that bound holds
        if (budget >= 0) {
          as = relative_acceptance(node.edge * node.edge, near2, node.mass, budget, Quadrupoles);
          if (as == Acceptance::open && light_cell(node.mass, near2, budget)) {
            const NodeGeometry& cube = geometry_[i];
            float gap2 = 0;
            for (int a = 0; a < 3; ++a) {
              const auto below = static_cast<float>(cube.center[a] - cube.half) - hi[a];
              const auto above = lo[a] - static_cast<float>(cube.center[a] + cube.half);
              const float gap = std::max({below, above, 0.0f});
              gap2 += gap * gap;
            }
            light = light_cell(node.mass, gap2, budget);
            if (light) as = Acceptance::monopole;
          }
        } else {
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
            as = Quadrupoles && !(Adaptive && cell_is_far(near2, node.edge, monopole_theta)) ? Acceptance::quadrupole
                                                                                             : Acceptance::monopole;
          }
        }
        if (as != Acceptance::open) {
          // With quadrupoles but not adaptive, every accepted cell brings its quadrupole (as on the GPU),
          // but a light one, whose bound is the monopole's.
          if (Quadrupoles && !light && (as == Acceptance::quadrupole || !Adaptive)) {
            list.add_cell(node, quadrupoles_[i]);
          } else {
            list.add_point(node.com_x, node.com_y, node.com_z, node.mass);
          }
          ++cells;
          i = node.skip;
          continue;
        }
      }
      if (node.point_begin >= 0) {
        for (std::int32_t j = node.point_begin; j < node.point_end; ++j) {
          list.add_point(point_x_[j], point_y_[j], point_z_[j], point_mass_[j]);
        }
        points += node.point_end - node.point_begin;
        i = node.skip;
        continue;
      }
      ++i;
    }

    const InteractionList::Points& p = list.points;
    const InteractionList::Cells& c = list.cells;
    const std::size_t length = p.mass.size();
    for (std::size_t b = 0; b < g; ++b) {
      float ax = 0, ay = 0, az = 0;
      if (eps2 > 0) {
        // With softening a body's term on itself is exactly zero (physics/gravity.hpp): no test.
        sum_accelerations(p.x.data(), p.y.data(), p.z.data(), p.mass.data(), 0, length, px[b], py[b], pz[b], eps2, ax,
                          ay, az);
      } else {
        sum_accelerations_apart(p.x.data(), p.y.data(), p.z.data(), p.mass.data(), 0, length, px[b], py[b], pz[b], ax,
                                ay, az);
      }
      if constexpr (Quadrupoles) {
        // Far cells never hold the body, so their distance is never zero, softened or not.
        sum_quadrupole_accelerations({c.x.data(), c.y.data(), c.z.data(), c.mass.data(), c.qxx.data(), c.qyy.data(),
                                      c.qxy.data(), c.qxz.data(), c.qyz.data(), c.trace.data()},
                                     c.mass.size(), px[b], py[b], pz[b], eps2, ax, ay, az);
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
  // The caller's index of the body at `position` in tree order.
  std::uint32_t body_at(std::size_t position) const { return items_[position].body; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const Quadrupole& quadrupole(std::size_t node) const { return quadrupoles_[node]; }
  const std::vector<NodeGeometry>& geometry() const { return geometry_; }
  int max_depth() const { return max_depth_; }
  int body_depth(std::size_t body) const { return body_depth_[body]; }
  // Bodies merged with others into one point mass (make_leaf), and how many such points there are.
  std::size_t merged_bodies() const { return merged_bodies_; }
  std::size_t merged_points() const { return merged_points_; }
  // Leaves cut off at kMaxDepth (never, unless the halving argument above is broken) and their bodies.
  std::size_t capped_leaves() const { return capped_leaves_; }
  std::size_t capped_bodies() const { return capped_bodies_; }

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
  // The tight bounding box of some bodies, in their own float coordinates.
  struct Box {
    float lo[3], hi[3];
  };

  static bool bounding_box(const Bodies& bodies, Box& box) {
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
    box = {{min_x, min_y, min_z}, {max_x, max_y, max_z}};
    return finite != 0;
  }

  // Items [begin, end) lie in the cube (center, half) and have the tight bounding box `box`; appends
  // their subtree in preorder.
  //
  // Cells are the cubes of a regular octree, halved level by level, except that a cell whose bodies
  // span at most half its edge is first shrunk to the cube around their bounding box. In a filled
  // region that never happens and the tree is the classic one (whose regular cubes give a better
  // accuracy for their cost on a Plummer sphere than cells fitted to their bodies do); where bodies
  // leave space empty it replaces a chain of nearly empty cubes by one cell, so a far outlier costs
  // one extra level instead of every other body sharing one deep leaf, and a tight cluster gets cells
  // as fine as itself however far the root reaches. A cube is split on the axes its bodies span more
  // than half of: a line or a plane is not cut across its zero thickness, and a cluster beside a far
  // body is not cut along axes where it is small. Every split makes progress: the bodies cross the
  // centre on the split axes, so at least two children are non-empty (a tree of N bodies has fewer
  // than 2N cells), and the cube edge halves at every level.
  void build_node(std::size_t begin, std::size_t end, const Box& box, const double cube_center[3], double cube_half,
                  int depth) {
    const auto index = static_cast<std::int32_t>(nodes_.size());
    double extent[3], box_center[3], largest = 0;
    for (int a = 0; a < 3; ++a) {
      extent[a] = static_cast<double>(box.hi[a]) - static_cast<double>(box.lo[a]);
      box_center[a] = 0.5 * (static_cast<double>(box.lo[a]) + static_cast<double>(box.hi[a]));
      largest = std::max(largest, extent[a]);
    }
    double center[3] = {cube_center[0], cube_center[1], cube_center[2]};
    double half = cube_half;
    auto shrink = [&] {
      std::copy(box_center, box_center + 3, center);
      half = 0.5 * largest;
    };
    if (largest <= half) shrink();
    nodes_.push_back(Node{0, 0, 0, 0, static_cast<float>(2 * half), 0, -1, -1});
    geometry_.push_back({{center[0], center[1], center[2]},
                         half,
                         depth,
                         static_cast<std::uint32_t>(begin),
                         static_cast<std::uint32_t>(end)});
    max_depth_ = std::max(max_depth_, depth);
    const std::size_t count = end - begin;

    // Below kUnresolvedExtent (0 included: every body at one position) no split can usefully separate them.
    const bool unresolved = largest < kUnresolvedExtent;
    if (count <= kLeafCapacity || unresolved || depth == kMaxDepth) {
      make_leaf(index, begin, end, depth, unresolved);
      nodes_[index].skip = static_cast<std::int32_t>(nodes_.size());
      return;
    }

    // Counting sort of the items into the octants (bit 0: x, bit 1: y, bit 2: z at or above the
    // centre, on the axes that are split).
    bool split[3];
    auto octant = [&](const Item& it) {
      return (split[0] && it.x >= center[0] ? 1 : 0) | (split[1] && it.y >= center[1] ? 2 : 0) |
             (split[2] && it.z >= center[2] ? 4 : 0);
    };
    std::size_t octant_count[8];
    auto count_octants = [&] {
      for (int a = 0; a < 3; ++a) split[a] = extent[a] > half;
      std::fill(octant_count, octant_count + 8, 0);
      for (std::size_t s = begin; s < end; ++s) ++octant_count[octant(items_[s])];
      return *std::max_element(octant_count, octant_count + 8) < count;
    };
    if (!count_octants()) {
      // Only where rounding leaves the cube a hair off its bodies: the cube around the bounding box
      // has its centre strictly between the lowest and highest body on the longest axis.
      shrink();
      if (!count_octants()) throw Error("Barnes-Hut (CPU): an octree cell could not be split; this is a bug");
      nodes_[index].edge = static_cast<float>(2 * half);
      geometry_[index].center[0] = center[0], geometry_[index].center[1] = center[1],
      geometry_[index].center[2] = center[2];
      geometry_[index].half = half;
    }
    std::size_t octant_begin[9];
    octant_begin[0] = begin;
    for (int o = 0; o < 8; ++o) octant_begin[o + 1] = octant_begin[o] + octant_count[o];
    std::size_t fill[8];
    std::copy(octant_begin, octant_begin + 8, fill);
    constexpr float inf = std::numeric_limits<float>::infinity();
    Box child_box[8];
    for (Box& b : child_box) b = {{inf, inf, inf}, {-inf, -inf, -inf}};
    for (std::size_t s = begin; s < end; ++s) {
      const Item& it = items_[s];
      const int o = octant(it);
      scratch_[fill[o]++] = it;
      Box& b = child_box[o];
      b.lo[0] = std::min(b.lo[0], it.x), b.hi[0] = std::max(b.hi[0], it.x);
      b.lo[1] = std::min(b.lo[1], it.y), b.hi[1] = std::max(b.hi[1], it.y);
      b.lo[2] = std::min(b.lo[2], it.z), b.hi[2] = std::max(b.hi[2], it.z);
    }
    std::copy(scratch_.begin() + static_cast<std::ptrdiff_t>(begin),
              scratch_.begin() + static_cast<std::ptrdiff_t>(end), items_.begin() + static_cast<std::ptrdiff_t>(begin));

    const double child_half = 0.5 * half;
    for (int o = 0; o < 8; ++o) {
      if (octant_count[o] == 0) continue;
      double child_center[3];
      for (int a = 0; a < 3; ++a) {
        const bool upper = (o >> a) & 1;
        if (split[a]) {
          child_center[a] = center[a] + (upper ? child_half : -child_half);
        } else if (box.hi[a] < center[a]) {
          child_center[a] = center[a] - child_half;  // the bodies lie in one half: keep to the grid
        } else if (box.lo[a] >= center[a]) {
          child_center[a] = center[a] + child_half;
        } else {
          child_center[a] = box_center[a];  // across the centre but at most half as wide as the cube
        }
      }
      build_node(octant_begin[o], octant_begin[o + 1], child_box[o], child_center, child_half, depth + 1);
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

  // A leaf's point masses: its bodies, with the bodies at one exact position merged into one point of
  // their summed mass, and all of them merged at their centre of mass when the leaf is `unresolved`
  // (they all lie within kUnresolvedExtent). Exact merging changes no force: such bodies pull on
  // everything else as that point would, and on each other not at all (softened at zero distance, or
  // skipped as coincident without softening). So k bodies at one position cost one interaction per
  // body that meets them, not k, and the k bodies themselves walk the tree in groups like any others:
  // O(k), not O(k^2).
  void make_leaf(std::int32_t index, std::size_t begin, std::size_t end, int depth, bool unresolved) {
    Node& node = nodes_[index];
    node.point_begin = static_cast<std::int32_t>(point_mass_.size());
    for (std::size_t s = begin; s < end; ++s) body_depth_[items_[s].body] = static_cast<std::uint16_t>(depth);
    if (end - begin > kLeafCapacity && depth == kMaxDepth && !unresolved) {
      ++capped_leaves_;
      capped_bodies_ += end - begin;
    }
    if (unresolved) {
      double mass = 0, mx = 0, my = 0, mz = 0;
      for (std::size_t s = begin; s < end; ++s) {
        const Item& it = items_[s];
        mass += it.mass;
        mx += static_cast<double>(it.mass) * it.x;
        my += static_cast<double>(it.mass) * it.y;
        mz += static_cast<double>(it.mass) * it.z;
      }
      const Item& first = items_[begin];
      if (mass > 0) {
        append_point(static_cast<float>(mx / mass), static_cast<float>(my / mass), static_cast<float>(mz / mass),
                     static_cast<float>(mass));
      } else {
        append_point(first.x, first.y, first.z, 0.0f);
      }
      if (end - begin > 1) {
        ++merged_points_;
        merged_bodies_ += end - begin;
      }
      node.point_end = static_cast<std::int32_t>(point_mass_.size());
      return;
    }
    // Sorted by position, equal positions are neighbours.
    std::sort(items_.begin() + static_cast<std::ptrdiff_t>(begin), items_.begin() + static_cast<std::ptrdiff_t>(end),
              [](const Item& a, const Item& b) {
                if (a.x != b.x) return a.x < b.x;
                if (a.y != b.y) return a.y < b.y;
                return a.z < b.z;
              });
    for (std::size_t s = begin; s < end;) {
      const Item& first = items_[s];
      double mass = 0;
      std::size_t same = s;
      for (; same < end && items_[same].x == first.x && items_[same].y == first.y && items_[same].z == first.z;
           ++same) {
        mass += items_[same].mass;
      }
      append_point(first.x, first.y, first.z, static_cast<float>(mass));
      if (same - s > 1) {
        ++merged_points_;
        merged_bodies_ += same - s;
      }
      s = same;
    }
    node.point_end = static_cast<std::int32_t>(point_mass_.size());
  }

  void append_point(float x, float y, float z, float mass) {
    point_x_.push_back(x);
    point_y_.push_back(y);
    point_z_.push_back(z);
    point_mass_.push_back(mass);
  }

  std::vector<Node> nodes_;
  std::vector<NodeGeometry> geometry_;
  // Mass moments of every cell, in double: mass, sum of squared masses (for the effective body count),
  // centre of mass, and second moments about it (xx, yy, zz, xy, xz, yz).
  struct Moments {
    double mass = 0, mass2 = 0;
    double com[3] = {0, 0, 0};
    double second[6] = {0, 0, 0, 0, 0, 0};
    double reach = 0;  // no body of the cell lies farther than this from its centre of mass
    void add_second(double m, double dx, double dy, double dz) {
      second[0] += m * dx * dx;
      second[1] += m * dy * dy;
      second[2] += m * dz * dz;
      second[3] += m * dx * dy;
      second[4] += m * dx * dz;
      second[5] += m * dy * dz;
    }
  };
  std::vector<Moments> moments_;
  std::vector<Quadrupole> quadrupoles_;  // per cell, from moments_ (summarize)
  std::vector<Item> items_, scratch_;
  std::vector<Group> groups_;
  std::vector<std::uint16_t> body_depth_;  // per caller's body: the depth of its leaf
  std::vector<float> point_x_, point_y_, point_z_, point_mass_;
  int max_depth_ = 0;
  std::size_t merged_points_ = 0, merged_bodies_ = 0, capped_leaves_ = 0, capped_bodies_ = 0;
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
      // A hair larger, so the bodies on a face stay inside after rounding to float.
      cells.push_back(
          {{static_cast<float>(g.center[0]), static_cast<float>(g.center[1]), static_cast<float>(g.center[2])},
           static_cast<float>(g.half * (1 + 1e-6)),
           g.depth});
    }
    return cells;
  }

 protected:
  bool configure_forces(const Settings& settings) override {
    const bool quadrupoles = !settings.toggles.is(Choice{"bh_moments", "monopole"});
    const bool adaptive = settings.toggles.is(Choice{"bh_moments", "adaptive"});
    const bool relative = settings.toggles.is(Choice{"bh_opening", "relative"});
    const int tolerance = settings.toggles["bh_tolerance"];
    const bool changed = settings.opening_angle != opening_angle_ || quadrupoles != quadrupoles_ ||
                         adaptive != adaptive_ || relative != relative_ || (relative && tolerance != tolerance_);
    opening_angle_ = settings.opening_angle;
    quadrupoles_ = quadrupoles;
    adaptive_ = adaptive;
    relative_ = relative;
    tolerance_ = tolerance;
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
    if (tree_.merged_bodies() > 0) {
      std::ostringstream m;
      m << tree_.merged_bodies() << " bodies sit on top of others (at one position, or within 8.7e-19, closer than "
        << "float arithmetic resolves) and are merged into " << tree_.merged_points()
        << (tree_.merged_points() == 1 ? " point mass" : " point masses")
        << ": each point pulls on everything else with their summed mass; bodies at one position exert no force on "
           "each other, and bodies merged by distance next to none once softened";
      stats.notices.push_back(m.str());
    }
    if (tree_.capped_leaves() > 0) {
      std::ostringstream m;
      m << tree_.capped_bodies() << " bodies could not be separated within " << kMaxDepth << " tree levels; they share "
        << tree_.capped_leaves() << (tree_.capped_leaves() == 1 ? " leaf" : " leaves") << " and interact directly";
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
    // One walk of every group; `relative`: judged against the RMS of the accelerations in
    // accel_x_/y_/z_ now, the last pass's (physics/gravity.hpp, relative_budget). In slices of groups when
    // the step may be abandoned (for_slices); the counts add up over the slices.
    const auto pass = [&](bool relative) {
      body_interactions = cell_interactions = touched_sum = touched_max = 0;
      touched_min = std::numeric_limits<std::int64_t>::max();
      const float budget = relative ? relative_budget(tolerance_, rms_magnitude(out_x, out_y, out_z, n)) : -1.0f;
      return for_slices(static_cast<std::size_t>(group_count), stats, [&](std::size_t first, std::size_t last) {
        std::int64_t bodies = 0, cells = 0, sum = 0, low = std::numeric_limits<std::int64_t>::max(), high = 0;
        const auto begin = static_cast<std::int64_t>(first), end = static_cast<std::int64_t>(last);
#pragma omp parallel reduction(+ : bodies, cells, sum) reduction(min : low) reduction(max : high)
        {
          Octree::InteractionList list;  // one per thread, reused across its groups
#pragma omp for schedule(dynamic, 4)
          for (std::int64_t k = begin; k < end; ++k) {
            const auto& group = groups[k];
            WalkCounts counts;
            if (adaptive_) {
              tree_.walk<true, true>(group, theta, budget, eps2, list, out_x, out_y, out_z, counts);
            } else if (quadrupoles_) {
              tree_.walk<true>(group, theta, budget, eps2, list, out_x, out_y, out_z, counts);
            } else {
              tree_.walk<false>(group, theta, budget, eps2, list, out_x, out_y, out_z, counts);
            }
            bodies += counts.body_interactions;
            cells += counts.cell_interactions;
            // Each body of the group touched every node its group walk touched.
            sum += counts.touched * static_cast<std::int64_t>(group.end - group.begin);
            low = std::min(low, counts.touched);
            high = std::max(high, counts.touched);
          }
        }
        body_interactions += bodies;
        cell_interactions += cells;
        touched_sum += sum;
        touched_min = std::min(touched_min, low);
        touched_max = std::max(touched_max, high);
      });
    };
    // Relative opening needs the pull the bodies felt: the last pass's, or a geometric pass's first.
    if (relative_ && !accelerations_valid_) pass(false);
    if (!pass(relative_)) {
      force_abandoned_ = true;
      return;
    }
    add_stage_time(stats, stage_name(Stage::force), force_clock.elapsed_ms());

    stats.interactions += static_cast<double>(body_interactions + cell_interactions);
    stats.tree.max_depth = tree_.max_depth();
    stats.tree.cells = static_cast<std::int64_t>(tree_.nodes().size());
    stats.tree.children_per_cell = tree_.children_per_cell();
    if (n > 0) {
      stats.tree.nodes_touched = {static_cast<double>(touched_min),
                                  static_cast<double>(touched_sum) / static_cast<double>(n),
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
  bool quadrupoles_ = false;  // bh_moments: far cells act through their quadrupole moments too
  bool adaptive_ = false;     // ... only near the opening limit (bh_moments = adaptive)
  bool relative_ = false;     // bh_opening = relative: cells judged by their error against the pull
  int tolerance_ = 0;         // bh_tolerance, in units of kToleranceUnit
  Octree tree_;
  bool tree_valid_ = false;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_barneshut(const Settings& settings) {
  auto backend = std::make_unique<CpuBarnesHut>();
  backend->configure(settings);
  return backend;
}

std::vector<CpuOctreeCell> cpu_octree_cells(const Bodies& bodies) {
  Octree tree;
  std::vector<CpuOctreeCell> cells;
  if (!tree.build(bodies)) return cells;
  tree.summarize();
  for (std::size_t i = 0; i < tree.nodes().size(); ++i) {
    const Node& node = tree.nodes()[i];
    const NodeGeometry& g = tree.geometry()[i];
    CpuOctreeCell cell{node.mass, {node.com_x, node.com_y, node.com_z}, tree.quadrupole(i), {}};
    for (std::uint32_t s = g.item_begin; s < g.item_end; ++s) cell.bodies.push_back(tree.body_at(s));
    cells.push_back(std::move(cell));
  }
  return cells;
}

}  // namespace nbl
