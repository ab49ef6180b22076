#include "tests/cuda/bh_tree_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "cuda/kernels/bh_tree.hpp"

namespace nbl::test {

TreeCheck check_tree(const BarnesHutTreeCopy& t) {
  TreeCheck check;
  if (t.n == 0) return check;
  const int n = t.n, lo = t.first_cell, hi = t.last_cell;
  check.cells = hi - lo + 1;
  auto problem = [&](const std::string& p) {
    if (check.problems.size() < 20) check.problems.push_back(p);
  };
  auto node = [&](int id, int k) { return static_cast<double>(t.node[static_cast<std::size_t>(id) * 4 + k]); };
  auto cell_index = [&](int id) { return static_cast<std::size_t>(id - n); };
  std::vector<int> seen(static_cast<std::size_t>(n), 0);
  struct Sum {
    double m = 0, x = 0, y = 0, z = 0;
    double xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;  // second moments about the origin
    long long count = 0;
  };
  // Post-order over an explicit stack: children's sums first.
  std::vector<Sum> sums(static_cast<std::size_t>(std::max(0, hi - lo + 1)));
  std::vector<std::pair<int, bool>> stack{{t.root, false}};
  while (!stack.empty()) {
    auto [c, expanded] = stack.back();
    stack.pop_back();
    if (c < lo || c > hi) {
      problem("cell id " + std::to_string(c) + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      continue;
    }
    const int* slots = &t.child[cell_index(c) * 8];
    const int depth = t.depth[cell_index(c)];
    if (!expanded) {
      stack.push_back({c, true});
      for (int j = 0; j < 8; ++j) {
        if (slots[j] >= n) {
          stack.push_back({slots[j], false});
          if (t.depth[cell_index(slots[j])] != depth + 1)
            problem("cell " + std::to_string(slots[j]) + " is not one level below its parent");
        }
      }
      continue;
    }
    Sum s;                        // the subtree in double, from the bodies up: the counts and the root's figures
    Sum local;                    // what this cell should hold given its children's stored (float) values
    long long direct_bodies = 0;  // bodies this cell sums itself (float rounding grows with them)
    auto add = [](Sum& to, double m, double x, double y, double z) {
      to.m += m, to.x += m * x, to.y += m * y, to.z += m * z;
    };
    auto add_body = [&](int b) {
      if (b < 0 || b >= n) return problem("bad body id " + std::to_string(b));
      ++direct_bodies;
      ++seen[static_cast<std::size_t>(b)];
      add(s, node(b, 3), node(b, 0), node(b, 1), node(b, 2));
      const double m = node(b, 3), x = node(b, 0), y = node(b, 1), z = node(b, 2);
      s.xx += m * x * x, s.yy += m * y * y, s.zz += m * z * z, s.xy += m * x * y, s.xz += m * x * z, s.yz += m * y * z;
      add(local, node(b, 3), node(b, 0), node(b, 1), node(b, 2));
      ++s.count;
    };
    const int count = t.count[cell_index(c)];
    if (t.morton_build && depth >= bh::kMaxDepth && count > 8) {
      for (int k = 0; k < count; ++k)
        add_body(t.order[static_cast<std::size_t>(t.start[cell_index(c)] + k)]);  // beyond the 8 slots
    } else {
      for (int j = 0; j < 8; ++j) {
        const int id = slots[j];
        if (id == bh::kNull) continue;
        if (id >= n) {
          const Sum& cs = sums[static_cast<std::size_t>(id - lo)];
          s.m += cs.m, s.x += cs.x, s.y += cs.y, s.z += cs.z, s.count += cs.count;
          s.xx += cs.xx, s.yy += cs.yy, s.zz += cs.zz, s.xy += cs.xy, s.xz += cs.xz, s.yz += cs.yz;
          add(local, node(id, 3), node(id, 0), node(id, 1), node(id, 2));
        } else {
          add_body(id);
        }
      }
    }
    sums[static_cast<std::size_t>(c - lo)] = s;
    if (count != s.count)
      problem("cell " + std::to_string(c) + " counts " + std::to_string(count) + " bodies, its children " +
              std::to_string(s.count));
    // Float sums: a cell may differ from its children by a few roundings per term it adds up.
    const double mass_tolerance = (1e-6 + 1.2e-7 * static_cast<double>(direct_bodies)) * std::max(1e-30, local.m);
    if (std::fabs(node(c, 3) - local.m) > mass_tolerance)
      problem("cell " + std::to_string(c) + " mass " + std::to_string(node(c, 3)) + " != its children's " +
              std::to_string(local.m));
    if (local.m > 0) {
      // Within float rounding of the position and a thousandth of the cell's own spread (RMS about its
      // centre, from the double sums), never the root's size: a chain of cells around a clump 1e-5
      // across once put its centre 1.5e-5 off, and a tolerance of 1e-4 of the root hid it.
      const double cx = s.x / s.m, cy = s.y / s.m, cz = s.z / s.m;
      const double variance = std::max(0.0, (s.xx + s.yy + s.zz) / s.m - (cx * cx + cy * cy + cz * cz));
      const double tolerance =
          1e-6 * (std::fabs(cx) + std::fabs(cy) + std::fabs(cz)) + 1e-3 * std::sqrt(variance) + 1e-30;
      if (std::fabs(node(c, 0) - local.x / local.m) > tolerance ||
          std::fabs(node(c, 1) - local.y / local.m) > tolerance ||
          std::fabs(node(c, 2) - local.z / local.m) > tolerance)
        problem("cell " + std::to_string(c) + " centre of mass differs from its children's");
    }
  }
  // Second moments about each cell's stored centre of mass, from the direct sums over its bodies (in
  // double, about the origin, shifted): S = sum m x x^T - c (sum m x)^T - (sum m x) c^T + M c c^T.
  if (!t.second.empty()) {
    for (int c = lo; c <= hi; ++c) {
      const Sum& s = sums[static_cast<std::size_t>(c - lo)];
      if (s.count == 0) continue;  // not reached from the root (reported above)
      const double cx = node(c, 0), cy = node(c, 1), cz = node(c, 2);
      const double expected[6] = {
          s.xx - 2 * cx * s.x + s.m * cx * cx,        s.yy - 2 * cy * s.y + s.m * cy * cy,
          s.zz - 2 * cz * s.z + s.m * cz * cz,        s.xy - cx * s.y - cy * s.x + s.m * cx * cy,
          s.xz - cx * s.z - cz * s.x + s.m * cx * cz, s.yz - cy * s.z - cz * s.y + s.m * cy * cz};
      const double trace = std::max(0.0, expected[0] + expected[1] + expected[2]);
      // Float storage and float centres of mass: relative to the cell's own spread, plus what a centre
      // of mass off by a float rounding of its own position adds: directly (the second term), and
      // through the parallel-axis sums over children whose stored centres of mass are rounded (the
      // third: about 2 m |child - cell| rounding per level). Both builds sum a cell's moments from its
      // children, so nothing here scales with the whole tree (a Morton build that once took them as
      // differences of prefix sums over all bodies lost a small clump's moments in a wide halo, and a
      // tolerance of the root's size hid it).
      const double position = std::fabs(cx) + std::fabs(cy) + std::fabs(cz);
      const double scale = 1e-6 * position, spread = std::sqrt(trace / std::max(s.m, 1e-300));
      const double tolerance = 2e-3 * trace + s.m * scale * scale + 1e-6 * position * s.m * spread + 1e-30;
      for (int k = 0; k < 6; ++k) {
        const double stored = t.second[static_cast<std::size_t>(c - n) * 6 + static_cast<std::size_t>(k)];
        if (!(std::fabs(stored - expected[k]) <= tolerance)) {
          char numbers[200];
          std::snprintf(numbers, sizeof numbers,
                        " is %.9g, its bodies' direct sum %.9g (tolerance %.3g; %lld bodies, depth %d, centre of mass "
                        "%.9g %.9g %.9g)",
                        stored, expected[k], tolerance, s.count, t.depth[cell_index(c)], cx, cy, cz);
          problem("cell " + std::to_string(c) + " second moment " + std::to_string(k) + numbers);
          break;
        }
      }
    }
  }
  // Each cell's reach is at least how far its farthest body lies from its stored centre of mass (the
  // opening test counts the cell no smaller: physics/gravity.hpp, opening_size). A cell's bodies are
  // its range of the tree order.
  if (!t.reach.empty() && t.sorted) {
    for (int c = lo; c <= hi; ++c) {
      const std::size_t i = cell_index(c);
      const int first = t.start[i], count = t.count[i];
      if (count <= 0 || first < 0 || first + count > n) continue;  // not in the tree order (reported above)
      const double cx = node(c, 0), cy = node(c, 1), cz = node(c, 2);
      double farthest = 0;
      for (int k = 0; k < count; ++k) {
        const int b = t.order[static_cast<std::size_t>(first + k)];
        if (b < 0 || b >= n) continue;
        farthest = std::max(farthest, std::hypot(node(b, 0) - cx, node(b, 1) - cy, node(b, 2) - cz));
      }
      // Float differences and sums, a rounding of the positions per level at most.
      const double position = std::fabs(cx) + std::fabs(cy) + std::fabs(cz);
      const double stored = t.reach[i];
      if (!(farthest <= stored + 1e-5 * (position + farthest) + 1e-30)) {
        char numbers[200];
        std::snprintf(numbers, sizeof numbers,
                      " %.9g, but a body lies %.9g from its centre of mass (%d bodies, depth %d)", stored, farthest,
                      count, t.depth[i]);
        problem("cell " + std::to_string(c) + " reach" + numbers);
      }
    }
  }
  for (int b = 0; b < n; ++b)
    if (seen[static_cast<std::size_t>(b)] != 1)
      problem("body " + std::to_string(b) + " appears " + std::to_string(seen[static_cast<std::size_t>(b)]) +
              " times in the tree");
  if (t.sorted) {
    std::vector<int> hits(static_cast<std::size_t>(n), 0);
    for (int b : t.order)
      if (b >= 0 && b < n) ++hits[static_cast<std::size_t>(b)];
    for (int b = 0; b < n; ++b)
      if (hits[static_cast<std::size_t>(b)] != 1) {
        problem("the tree order lists body " + std::to_string(b) + " " +
                std::to_string(hits[static_cast<std::size_t>(b)]) + " times");
        break;
      }
  }
  if (t.has_groups) {
    std::vector<int> in_group(static_cast<std::size_t>(n), 0);
    for (int g = 0; g < t.groups; ++g) {
      const int first = t.group_first[static_cast<std::size_t>(g)], size = t.group_size[static_cast<std::size_t>(g)];
      if (size < 1 || size > bh::kMaxGroupSize)
        problem("group " + std::to_string(g) + " has " + std::to_string(size) + " bodies");
      for (int k = first; k < first + size; ++k)
        if (k >= 0 && k < n) ++in_group[static_cast<std::size_t>(t.order[static_cast<std::size_t>(k)])];
    }
    for (int b = 0; b < n; ++b)
      if (in_group[static_cast<std::size_t>(b)] != 1) {
        problem("body " + std::to_string(b) + " is in " + std::to_string(in_group[static_cast<std::size_t>(b)]) +
                " force groups");
        break;
      }
  }
  const Sum& root = sums.empty() ? Sum{} : sums[static_cast<std::size_t>(t.root - lo)];
  check.root_count = root.count;
  check.root_mass = root.m;
  if (root.m > 0)  // what the GPU stored for the root, checked by the caller against the bodies
    for (int k = 0; k < 3; ++k) check.root_center_of_mass[k] = node(t.root, k);
  return check;
}

}  // namespace nbl::test
