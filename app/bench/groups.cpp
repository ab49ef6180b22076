// bench groups: where the group walk's time goes. The force kernel's warps each walk the
// tree once for a group of bodies, opening every cell that is not far from the group's whole bounding
// box, so one group whose box reaches across a dense region walks far more of the tree than the others,
// and the pass waits for its warp. This steps the scene on the GPU Barnes-Hut backend, copies the tree
// the last step built, and walks it on the host once per group by the same rule (a cell is opened
// unless its size is below theta times the distance from its centre of mass to the group's box; cell
// sizes are their bodies' bounding boxes, which the GPU's per-cell sizes bound from below), counting
// the nodes each group touches. It prints the distribution and the costliest groups, with what they
// are: how many bodies, how far their box reaches, and the cell that encloses them.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "app/bench/bench.hpp"
#include "app/core/simulation.hpp"
#include "cuda/barneshut/backend.hpp"
#include "cuda/barneshut/tree_copy.hpp"
#include "sim/error.hpp"
#include "sim/statistics.hpp"

namespace nbl {

namespace {

struct Box {
  std::array<float, 3> lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  void add(const float* p) {
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
  }
  void add(const Box& b) {
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], b.lo[a]), hi[a] = std::max(hi[a], b.hi[a]);
  }
  float extent() const { return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 0.0f}); }
  double distance2(const float* p) const {  // from p to the nearest point of the box (0 inside)
    double d2 = 0;
    for (int a = 0; a < 3; ++a) {
      const double d = p[a] < lo[a] ? lo[a] - p[a] : (p[a] > hi[a] ? p[a] - hi[a] : 0.0);
      d2 += d * d;
    }
    return d2;
  }
};

struct TreeView {
  const BarnesHutTreeCopy& t;
  std::vector<Box> cell_box;  // indexed by id - n
  bool is_cell(int id) const { return id >= t.n; }
  const float* position(int id) const { return &t.node[static_cast<std::size_t>(id) * 4]; }
  int child(int cell, int j) const { return t.child[static_cast<std::size_t>(cell - t.n) * 8 + j]; }
  int bodies(int id) const {  // in a slot: a cell's count, or one body
    return is_cell(id) ? t.count[static_cast<std::size_t>(id - t.n)] : 1;
  }
};

TreeView view_of(const BarnesHutTreeCopy& t) {
  TreeView v{t, std::vector<Box>(static_cast<std::size_t>(t.last_cell - t.n + 1))};
  std::vector<int> cells;
  for (int c = t.first_cell; c <= t.last_cell; ++c)
    if (t.count[static_cast<std::size_t>(c - t.n)] > 0) cells.push_back(c);
  std::sort(cells.begin(), cells.end(), [&](int a, int b) {
    return t.depth[static_cast<std::size_t>(a - t.n)] > t.depth[static_cast<std::size_t>(b - t.n)];
  });
  for (int c : cells) {  // deepest first: a cell's box is its children's
    Box& box = v.cell_box[static_cast<std::size_t>(c - t.n)];
    for (int j = 0; j < 8; ++j) {
      const int ch = v.child(c, j);
      if (ch < 0) continue;
      if (v.is_cell(ch)) {
        box.add(v.cell_box[static_cast<std::size_t>(ch - t.n)]);
      } else {
        box.add(v.position(ch));
      }
    }
  }
  return v;
}

// Nodes one group's walk touches (each child of an opened cell), by the group kernel's rule.
long long walk(const TreeView& v, const Box& group, double theta2, std::vector<int>& stack) {
  long long touched = 0;
  stack.clear();
  stack.push_back(v.t.root);
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    for (int j = 0; j < 8; ++j) {
      const int ch = v.child(c, j);
      if (ch < 0) continue;
      ++touched;
      if (!v.is_cell(ch)) continue;
      const double d2 = group.distance2(v.position(ch));
      const double size = v.cell_box[static_cast<std::size_t>(ch - v.t.n)].extent();
      if (d2 == 0.0 || size * size > theta2 * d2) stack.push_back(ch);
    }
  }
  return touched;
}

// The deepest cell holding every body of the tree-order range [first, first + size), and whether
// it has a child with more bodies than a group (a dense part the group's box may reach across).
struct Enclosing {
  int cell = -1, depth = 0, count = 0;
  bool beside_bigger = false;
};
Enclosing enclosing(const TreeView& v, int first, int size, int group_size) {
  Enclosing e;
  int c = v.t.root;
  for (;;) {
    const int start = v.t.start[static_cast<std::size_t>(c - v.t.n)];
    int position = start, next = -1;
    bool bigger = false;
    for (int j = 0; j < 8; ++j) {
      const int ch = v.child(c, j);
      if (ch < 0) continue;
      const int k = v.bodies(ch);
      if (k > group_size) bigger = true;
      if (v.is_cell(ch) && position <= first && first + size <= position + k) next = ch;
      position += k;
    }
    if (next < 0) {
      e.cell = c;
      e.depth = v.t.depth[static_cast<std::size_t>(c - v.t.n)];
      e.count = v.t.count[static_cast<std::size_t>(c - v.t.n)];
      e.beside_bigger = bigger;
      return e;
    }
    c = next;
  }
}

}  // namespace

Table groups_table(const Settings& base, const BenchOptions& options, int top, const std::string& load_file) {
  Settings s = base;
  s.algorithm = Algorithm::barneshut;
  if (s.backend != BackendKind::gpu) throw InputError("bench groups needs the GPU backend (--backend gpu)");
  Simulation sim(s, load_file);
  auto* backend = dynamic_cast<BarnesHutBackend*>(&sim.backend());
  if (!backend) throw InputError("bench groups needs the GPU Barnes-Hut backend; this run has " + sim.backend().name());
  for (int i = 0; i < options.warmup_steps + options.steps; ++i)
    if (sim.step().non_finite) throw Error("NaN or inf in the bodies: nothing to measure");
  const BarnesHutTreeCopy tree = backend->copy_tree();
  if (!tree.has_groups || tree.groups == 0)
    throw InputError("this variant forms no force groups (bh_traversal must be group)");
  const TreeView v = view_of(tree);
  const int group_size = s.toggles["bh_group_size"];
  const double theta2 = s.opening_angle * s.opening_angle;

  const std::size_t groups = static_cast<std::size_t>(tree.groups);
  std::vector<Box> box(groups);
  std::vector<long long> touched(groups);
#pragma omp parallel
  {
    std::vector<int> stack;
#pragma omp for schedule(dynamic, 256)
    for (std::size_t g = 0; g < groups; ++g) {
      const int first = tree.group_first[g], size = tree.group_size[g];
      for (int k = first; k < first + size; ++k) box[g].add(v.position(tree.order[static_cast<std::size_t>(k)]));
      touched[g] = walk(v, box[g], theta2, stack);
    }
  }
  std::vector<double> t_all(touched.begin(), touched.end()), extent;
  for (const Box& b : box) extent.push_back(b.extent());
  std::vector<std::size_t> rank(groups);
  std::iota(rank.begin(), rank.end(), 0);
  std::sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) { return touched[a] > touched[b]; });
  const double total = std::accumulate(t_all.begin(), t_all.end(), 0.0);
  double top_share = 0;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, groups / 100); ++i)
    top_share += static_cast<double>(touched[rank[i]]);
  const double root_extent = v.cell_box[static_cast<std::size_t>(tree.root - tree.n)].extent();

  Table t("Force groups' walks, host replay of the last step's tree: " + std::to_string(sim.body_count()) +
          " bodies, " + std::string(to_string(s.scene)) + ", groups of " + std::to_string(group_size) + ", theta " +
          std::to_string(s.opening_angle).substr(0, 4));
  t.column("rank", "rank")
      .column("touched", "nodes touched")
      .column("x_median", "x median")
      .column("bodies", "bodies")
      .column("extent", "box extent")
      .column("extent_share", "of the scene")
      .column("cell_depth", "cell depth")
      .column("cell_bodies", "cell bodies")
      .column("beside_bigger", "cell has a child > group");
  const double med = median(std::vector<double>(t_all));
  const double med_extent = median(std::vector<double>(extent));
  for (int i = 0; i < top && static_cast<std::size_t>(i) < groups; ++i) {
    const std::size_t g = rank[static_cast<std::size_t>(i)];
    const Enclosing e = enclosing(v, tree.group_first[g], tree.group_size[g], group_size);
    t.row()
        .add(static_cast<double>(i + 1), 0)
        .add(static_cast<double>(touched[g]), 0)
        .add(touched[g] / med, 1)
        .add(static_cast<double>(tree.group_size[g]), 0)
        .add_sci(box[g].extent(), 2)
        .add_sci(box[g].extent() / root_extent, 2)
        .add(static_cast<double>(e.depth), 0)
        .add(static_cast<double>(e.count), 0)
        .add(e.beside_bigger ? "yes" : "no");
  }
  char line[512];
  std::snprintf(line, sizeof line,
                "%zu groups; nodes touched per group: median %.0f, p99 %.0f, max %.0f (%.0fx the median); the "
                "costliest 1%% of groups touch %.1f%% of all; box extent: median %.3g, scene %.3g",
                groups, med, quantile(t_all, 0.99), static_cast<double>(touched[rank[0]]),
                static_cast<double>(touched[rank[0]]) / med, 100.0 * top_share / total, med_extent, root_extent);
  t.note(line);
  t.note(
      "A host replay: cell sizes are their bodies' bounding boxes (the GPU's opening sizes are at least these, "
      "stretched for rods and sheets), so the counts rank the groups rather than reproduce the kernel's.");
  return t;
}

}  // namespace nbl
