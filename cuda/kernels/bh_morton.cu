// Barnes-Hut kernel 2 of 6, Morton build (beyond the tutorial): no locks, no retries, no waits.
// 1. bh_morton_keys: each body's cell path as a 63-bit Morton key (21 levels of 3 bits).
// 2. (host) sort the keys with their body ids (CUB radix sort): tree order, for free.
// 3. bh_radix_tree: the binary radix tree over the sorted keys, every node built independently from a
//    few binary searches (Karras, "Maximizing parallelism in the construction of BVHs, octrees, and
//    k-d trees", HPG 2012).
// 4. bh_octree_count / (host) scan / bh_octree_emit / bh_octree_attach: a radix node whose common
//    prefix crosses multiples of 3 bits stands for that many octree cells (Karras, section 4); cells of
//    at most NBL_BH_LEAF_CAPACITY bodies become leaves.
// 5. bh_octree_summarize: each cell's mass, centre of mass and second moments from its children,
//    bottom-up (the last child to finish summarizes its parent), in double about a point inside the
//    cell, so a small cell deep in the tree keeps its digits however wide the tree.
// Produces the same tree layout as the lock-based build (bh_tree.hpp), so kernels 5 and 6 are shared.
#include "bh_common.cuh"

using namespace nbl::bh;

#ifndef NBL_BH_LEAF_CAPACITY
#error "bh_morton.cu needs NBL_BH_LEAF_CAPACITY from the switchboard"
#endif

namespace {

// A cell holding at most this many bodies is a leaf (1..8: its bodies fit in its 8 child slots).
constexpr int kLeafCapacity = NBL_BH_LEAF_CAPACITY;
static_assert(kLeafCapacity >= 1 && kLeafCapacity <= 8, "leaf capacity must lie in [1, 8]");

__device__ __forceinline__ unsigned compact_bits(unsigned long long x) {  // every third bit -> 21 bits
  x &= 0x1249249249249249ull;
  x = (x | x >> 2) & 0x10c30c30c30c30c3ull;
  x = (x | x >> 4) & 0x100f00f00f00f00full;
  x = (x | x >> 8) & 0x1f0000ff0000ffull;
  x = (x | x >> 16) & 0x1f00000000ffffull;
  x = (x | x >> 32) & 0x1fffffull;
  return static_cast<unsigned>(x);
}

__device__ __forceinline__ unsigned long long spread_bits(unsigned v) {  // 21 bits -> every third bit
  unsigned long long x = v & 0x1fffffu;
  x = (x | x << 32) & 0x1f00000000ffffull;
  x = (x | x << 16) & 0x1f0000ff0000ffull;
  x = (x | x << 8) & 0x100f00f00f00f00full;
  x = (x | x << 4) & 0x10c30c30c30c30c3ull;
  x = (x | x << 2) & 0x1249249249249249ull;
  return x;
}

// Octal digit of `key` at `level` (1..21): the child slot a body takes inside its level-1 cell.
// Same numbering as bh_build_insert.cu's octant(): x is bit 0, y bit 1, z bit 2.
__device__ __forceinline__ int digit(unsigned long long key, int level) {
  return static_cast<int>((key >> (63 - 3 * level)) & 7u);
}

// Leading bits keys i and j share; identical keys are told apart by their positions, so every pair
// differs somewhere (result > 62). -1 outside the array.
__device__ __forceinline__ int common_bits(const unsigned long long* keys, int n, int i, int j) {
  if (j < 0 || j >= n) return -1;
  const unsigned long long a = keys[i], b = keys[j];
  if (a == b) return 63 + __clz(static_cast<unsigned>(i ^ j));
  return __clzll(a ^ b) - 1;  // bit 63 is always 0
}

// First octree level of radix node `node`'s chain of cells (the root's chain starts at level 0).
__device__ __forceinline__ int chain_top(const Morton& m, int node) {
  return node == 0 ? 0 : m.prefix_bits[m.parent[node]] / 3 + 1;
}

__device__ __forceinline__ int range_size(const Morton& m, int node) { return m.last[node] - m.first[node] + 1; }

// The radix node whose chain of cells holds `level`, searching upward from `node`.
__device__ __forceinline__ int chain_holding(const Morton& m, int node, int level) {
  while (node != 0 && chain_top(m, node) > level) node = m.parent[node];
  return node;
}

}  // namespace

// The Morton key of a position inside a cube (lowest corner x0, y0, z0; `scale` = 2^levels / edge),
// `levels` bits per axis.
__device__ __forceinline__ unsigned long long cube_key(float4 p, float x0, float y0, float z0, float scale,
                                                       unsigned top) {
  const unsigned qx = min(static_cast<unsigned>(fmaxf((p.x - x0) * scale, 0.0f)), top);
  const unsigned qy = min(static_cast<unsigned>(fmaxf((p.y - y0) * scale, 0.0f)), top);
  const unsigned qz = min(static_cast<unsigned>(fmaxf((p.z - z0) * scale, 0.0f)), top);
  return spread_bits(qz) << 2 | spread_bits(qy) << 1 | spread_bits(qx);
}

// Writes unsorted keys and body ids to `keys` / `ids`; the host sorts them into m.keys / t.sorted.
// A split root (Control::split) gives the level-1 digit to the bulk's cube (0) or the rest (1), and the
// 20 levels below it to the position inside that cube; otherwise 21 levels span the root cube.
extern "C" __global__ void bh_morton_keys(Tree t, unsigned long long* keys, int* ids) {
  Control* ctl = t.ctl;
  if (bodies_not_finite(ctl)) return;
  const bool split = ctl->split;
  const int levels = split ? kMaxDepth - 1 : kMaxDepth;
  const unsigned top = (1u << levels) - 1u;
  const float root_scale = ldexpf(1.0f, levels) / ctl->root_size;
  const float x0 = ctl->root_x - 0.5f * ctl->root_size, y0 = ctl->root_y - 0.5f * ctl->root_size,
              z0 = ctl->root_z - 0.5f * ctl->root_size;
  const float core_half = 0.5f * ctl->core_size, core_scale = ldexpf(1.0f, levels) / ctl->core_size;
  const float cx = ctl->core_x, cy = ctl->core_y, cz = ctl->core_z;
  int outside = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < t.n; i += blockDim.x * gridDim.x) {
    const float4 p = t.node[i];
    const bool bulk =
        !split || (fabsf(p.x - cx) < core_half && fabsf(p.y - cy) < core_half && fabsf(p.z - cz) < core_half);
    keys[i] = bulk ? cube_key(p, cx - core_half, cy - core_half, cz - core_half, core_scale, top)
                   : 1ull << (3 * (kMaxDepth - 1)) | cube_key(p, x0, y0, z0, root_scale, top);
    outside += !bulk;
    ids[i] = i;
  }
  outside = warp_sum(outside);
  if (lane_id() == 0 && outside) atomicAdd(&ctl->outer_bodies, outside);
}

// Karras 2012, algorithm 2: internal node i covers a range with i at one end; the direction, the
// other end and the split all follow from binary searches on common_bits().
extern "C" __global__ void bh_radix_tree(int n, Morton m) {
  if (bodies_not_finite(m.ctl)) return;  // the keys were never written
  const unsigned long long* keys = m.keys;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - 1; i += blockDim.x * gridDim.x) {
    const int dir = common_bits(keys, n, i, i + 1) > common_bits(keys, n, i, i - 1) ? 1 : -1;
    const int min_bits = common_bits(keys, n, i, i - dir);
    int span_max = 2;
    while (common_bits(keys, n, i, i + span_max * dir) > min_bits) span_max <<= 1;
    int span = 0;
    for (int step = span_max >> 1; step >= 1; step >>= 1)
      if (common_bits(keys, n, i, i + (span + step) * dir) > min_bits) span += step;
    const int j = i + span * dir;
    const int node_bits = common_bits(keys, n, i, j);
    int split = 0, step = span;
    do {
      step = (step + 1) >> 1;
      if (common_bits(keys, n, i, i + (split + step) * dir) > node_bits) split += step;
    } while (step > 1);
    const int gamma = i + split * dir + min(dir, 0);
    const int lo = min(i, j), hi = max(i, j);
    m.first[i] = lo;
    m.last[i] = hi;
    m.prefix_bits[i] = node_bits;
    // Children: positions gamma and gamma + 1, each a leaf when its range is a single key.
    m.parent[lo == gamma ? n - 1 + gamma : gamma] = i;
    m.parent[hi == gamma + 1 ? n - 1 + gamma + 1 : gamma + 1] = i;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) m.parent[0] = -1;
}

// How many octree cells each radix node stands for: one per level its chain spans (a multiple of 3
// bits crossed), unless it lies inside a leaf (its enclosing cell holds <= NBL_BH_LEAF_CAPACITY bodies), or
// it is itself small enough to be one leaf.
extern "C" __global__ void bh_octree_count(int n, Morton m) {
  if (bodies_not_finite(m.ctl)) return;
  for (int node = blockIdx.x * blockDim.x + threadIdx.x; node < n - 1; node += blockDim.x * gridDim.x) {
    const int top = chain_top(m, node);
    const int bottom = min(m.prefix_bits[node] / 3, kMaxDepth);
    int cells = 0;
    if (top <= bottom) {
      const int enclosing = node == 0 ? -1 : chain_holding(m, m.parent[node], top - 1);
      const bool inside_leaf = enclosing >= 0 && range_size(m, enclosing) <= kLeafCapacity;
      if (!inside_leaf) cells = range_size(m, node) <= kLeafCapacity ? 1 : bottom - top + 1;
    }
    m.cells[node] = cells;
  }
}

// Writes each radix node's cells (ids n + offset ...), links the chain, hooks the top cell into the
// enclosing cell's child slot, and fills leaves with their bodies. Child slots start out kNull.
extern "C" __global__ void bh_octree_emit(Tree t, Morton m) {
  const int n = t.n;
  Control* ctl = t.ctl;
  if (bodies_not_finite(ctl)) return;  // no radix tree, cell counts or sorted ids to read
  const int total = m.offset[n - 2] + m.cells[n - 2];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    ctl->cells = total;
    ctl->root = n;
    ctl->bottom = n;
    if (total > t.max_cells) atomicOr(&ctl->error, kErrorPoolExhausted);
  }
  if (total > t.max_cells) return;  // the host grows the pool to `cells` and builds again
  int deepest = 0, overflow = 0;
  for (int node = blockIdx.x * blockDim.x + threadIdx.x; node < n - 1; node += blockDim.x * gridDim.x) {
    const int cells = m.cells[node];
    if (cells == 0) continue;
    const int top = chain_top(m, node);
    const int first = m.first[node], size = range_size(m, node);
    const unsigned long long key = m.keys[first];
    const int base = n + m.offset[node];
    // The cell enclosing this chain (index into the cell arrays), -1 above the root.
    const int enclosing_cell = node == 0 ? -1 : [&] {
      const int e = chain_holding(m, m.parent[node], top - 1);
      return m.offset[e] + m.cells[e] - 1;
    }();
    for (int q = 0; q < cells; ++q) {
      const int c = base + q - n, level = top + q;
      t.depth[c] = level;
      t.start[c] = first;
      t.count[c] = size;
      m.cell_parent[c] = q == 0 ? enclosing_cell : c - 1;
      m.arrivals[c] = 0;
      if (q + 1 < cells) t.child[c * 8 + digit(key, level + 1)] = base + q + 1;
    }
    const int bottom_level = top + cells - 1;
    deepest = max(deepest, bottom_level);
    if (bottom_level == kMaxDepth && size > 1) overflow += size;
    if (size <= kLeafCapacity || bottom_level == kMaxDepth) {
      // A leaf: its bodies go in its slots. A kMaxDepth cell may hold more than 8 (100,000 coincident
      // bodies): the walks read them as its range of the tree order, and bh_octree_attach gives them
      // their depth, one thread each.
      const int c = base + cells - 1 - n;
      for (int k = 0; k < min(size, 8); ++k) {
        const int body = t.sorted[first + k];
        if (k < 8) t.child[c * 8 + k] = body;
        t.body_depth[body] = bottom_level;
      }
    }
    if (enclosing_cell >= 0) t.child[enclosing_cell * 8 + digit(key, top)] = base;
  }
  deepest = warp_max(deepest);
  overflow = warp_sum(overflow);
  if (lane_id() == 0) {
    atomicMax(&ctl->max_depth, deepest);
    if (overflow) atomicAdd(&ctl->overflow_bodies, overflow);
  }
}

// A body (a leaf of the radix tree) that is alone in its octant hangs directly in the deepest cell
// enclosing its radix parent; bodies inside leaf cells were placed by bh_octree_emit.
extern "C" __global__ void bh_octree_attach(Tree t, Morton m) {
  const int n = t.n;
  if (tree_failed(t.ctl)) return;  // no cells emitted (pool exhausted, or a NaN before them)
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += blockDim.x * gridDim.x) {
    const int parent = m.parent[n - 1 + k];
    const int level = m.prefix_bits[parent] / 3;
    if (level >= kMaxDepth) {  // inside a deepest cell (bh_octree_emit filled its slots)
      t.body_depth[t.sorted[k]] = kMaxDepth;
      continue;
    }
    const int enclosing = chain_holding(m, parent, level);
    if (range_size(m, enclosing) <= kLeafCapacity) continue;
    const int cell = m.offset[enclosing] + m.cells[enclosing] - 1;
    const int body = t.sorted[k];
    t.child[cell * 8 + digit(m.keys[k], level + 1)] = body;
    t.body_depth[body] = level;
  }
}

// One body: a root cell (a leaf) holding it.
extern "C" __global__ void bh_octree_single(Tree t) {
  Control* ctl = t.ctl;
  if (bodies_not_finite(ctl)) return;
  ctl->cells = 1;
  ctl->root = t.n;
  ctl->bottom = t.n;
  t.depth[0] = 0;
  t.start[0] = 0;
  t.count[0] = 1;
  t.child[0] = t.sorted[0];
  t.body_depth[t.sorted[0]] = 0;
  t.node[t.n] = t.node[t.sorted[0]];
  t.second[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // one point: no spread
  t.second_xz_yz[0] = make_float2(0.0f, 0.0f);
  t.reach[0] = 0.0f;
  const float edge = ctl->root_size;
  t.box[0] = make_float4(ctl->root_x, ctl->root_y, ctl->root_z, edge);
  t.open_size2[0] = edge * edge;
}

// A cell's cube (centre and edge) from the key of any of its bodies and its level: the level's leading
// digits of the key, in the cube they refer to (bh_morton_keys).
__device__ __forceinline__ float4 cell_cube(const Control* ctl, unsigned long long key, int level) {
  float cx = ctl->root_x, cy = ctl->root_y, cz = ctl->root_z, edge = ctl->root_size;
  if (level == 0) return make_float4(cx, cy, cz, edge);
  int levels = kMaxDepth, below = level;  // the key's levels in its cube, and this cell's level there
  if (ctl->split) {
    levels = kMaxDepth - 1, below = level - 1;
    const bool bulk = (key >> (3 * levels)) == 0;  // the level-1 digit
    key &= (1ull << (3 * levels)) - 1;             // the position inside that cube
    if (bulk) cx = ctl->core_x, cy = ctl->core_y, cz = ctl->core_z, edge = ctl->core_size;
  }
  const int shift = levels - below;  // grid steps of the cube below this level
  const float size = ldexpf(edge, -below);
  const float x0 = cx - 0.5f * edge, y0 = cy - 0.5f * edge, z0 = cz - 0.5f * edge;
  const unsigned ix = compact_bits(key) >> shift, iy = compact_bits(key >> 1) >> shift,
                 iz = compact_bits(key >> 2) >> shift;
  return make_float4(x0 + (static_cast<float>(ix) + 0.5f) * size, y0 + (static_cast<float>(iy) + 0.5f) * size,
                     z0 + (static_cast<float>(iz) + 0.5f) * size, size);
}

namespace {

// Mass moments of a cell's contents, summed in double about a point inside the cell (its cube's
// centre, then its centre of mass): every term is the size of the cell, never of the whole tree, so a
// clump 1e-9 the root's size keeps its digits.
struct Moments {
  double m = 0, x = 0, y = 0, z = 0;                      // mass, mass-weighted offset
  double xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;  // second moments about the point
  __device__ void add_mass(float w, double dx, double dy, double dz) { m += w, x += w * dx, y += w * dy, z += w * dz; }
  __device__ void add_second(float w, double dx, double dy, double dz) {
    xx += w * dx * dx, yy += w * dy * dy, zz += w * dz * dz;
    xy += w * dx * dy, xz += w * dx * dz, yz += w * dy * dz;
  }
};

// What a child cell summarized by another thread left behind, read from L2 (__ldcg): the L1 of this SM
// may hold an older copy of the line, and the writer's fence made the values visible there.
struct ChildCell {
  float4 com;  // centre of mass and mass
  float4 second;
  float2 second_xz_yz;
  float reach;
};
__device__ __forceinline__ ChildCell load_child(const Tree& t, int cell) {
  return ChildCell{__ldcg(t.node + cell), __ldcg(t.second + (cell - t.n)), __ldcg(t.second_xz_yz + (cell - t.n)),
                   __ldcg(t.reach + (cell - t.n))};
}

// Sums over the lanes of a warp, every lane left with the total.
__device__ __forceinline__ double warp_total(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__device__ __forceinline__ void warp_total(Moments& s) {
  s.m = warp_total(s.m), s.x = warp_total(s.x), s.y = warp_total(s.y), s.z = warp_total(s.z);
  s.xx = warp_total(s.xx), s.yy = warp_total(s.yy), s.zz = warp_total(s.zz);
  s.xy = warp_total(s.xy), s.xz = warp_total(s.xz), s.yz = warp_total(s.yz);
}

// |(dx, dy, dz)| in float, for the reach (past float's range it is inf, and the cell's size then the
// largest float: opening_size2).
__device__ __forceinline__ float distance(double dx, double dy, double dz) {
  const float x = static_cast<float>(dx), y = static_cast<float>(dy), z = static_cast<float>(dz);
  return sqrtf(x * x + y * y + z * z);
}

// What summarize_cell finds for a cell, before it is stored.
struct CellSummary {
  float4 cube;     // centre and edge
  float4 com;      // centre of mass and mass
  Moments second;  // second moments about com (the mass fields unused)
  float reach;     // the farthest a body lies from com (at most)
};

// Cell c (an index into the cell arrays): its cube, mass, centre of mass and second moments about it.
// A cell without child cells (`leaf`) sums its range of bodies in tree order (all of a deepest cell's,
// even beyond its 8 slots); otherwise its slots, bodies and summarized cells. With lanes = 32 the whole
// warp calls it for one cell (a deepest cell may hold 100,000 coincident bodies), each lane taking every
// 32nd entry, and every lane gets the result; with lanes = 1 one thread does it all.
__device__ CellSummary summarize_cell(const Tree& t, const Morton& m, int c, bool leaf, int lane, int lanes) {
  const int n = t.n;
  const int first = t.start[c], count = t.count[c];
  CellSummary r;
  r.cube = cell_cube(t.ctl, m.keys[first], t.depth[c]);
  const float4 cube = r.cube;
  const int* slots = t.child + c * 8;
  const int entries = leaf ? count : 8;
  auto entry = [&](int k) { return leaf ? t.sorted[first + k] : slots[k]; };
  Moments about_centre;
  for (int k = lane; k < entries; k += lanes) {
    const int id = entry(k);
    if (id == kNull) continue;
    const float4 p = id < n ? t.node[id] : load_child(t, id).com;
    // In double: a clump 1e-5 across in a chain of cells 1e3 wide keeps its position (a float offset from
    // the cube's centre rounded it to 3e-5).
    about_centre.add_mass(p.w, static_cast<double>(p.x) - cube.x, static_cast<double>(p.y) - cube.y,
                          static_cast<double>(p.z) - cube.z);
  }
  if (lanes > 1) warp_total(about_centre);
  float4 com = make_float4(cube.x, cube.y, cube.z, static_cast<float>(about_centre.m));  // massless: the centre
  if (about_centre.m > 0)
    com.x = static_cast<float>(cube.x + about_centre.x / about_centre.m),
    com.y = static_cast<float>(cube.y + about_centre.y / about_centre.m),
    com.z = static_cast<float>(cube.z + about_centre.z / about_centre.m);
  r.com = com;
  // Second moments about the (float) centre of mass the walks use: bodies directly, child cells by
  // parallel axes; and the reach, from the bodies' distances and the child cells' reaches.
  Moments& s = r.second;
  float reach = 0;  // in float: a double square root per entry cost summarize a fifth more time (H200)
  for (int k = lane; k < entries; k += lanes) {
    const int id = entry(k);
    if (id == kNull) continue;
    if (id < n) {
      const float4 p = t.node[id];
      const double dx = static_cast<double>(p.x) - com.x, dy = static_cast<double>(p.y) - com.y,
                   dz = static_cast<double>(p.z) - com.z;
      s.add_second(p.w, dx, dy, dz);
      reach = fmaxf(reach, distance(dx, dy, dz));
    } else {
      const ChildCell child = load_child(t, id);
      s.xx += child.second.x, s.yy += child.second.y, s.zz += child.second.z, s.xy += child.second.w;
      s.xz += child.second_xz_yz.x, s.yz += child.second_xz_yz.y;
      const double dx = static_cast<double>(child.com.x) - com.x, dy = static_cast<double>(child.com.y) - com.y,
                   dz = static_cast<double>(child.com.z) - com.z;
      s.add_second(child.com.w, dx, dy, dz);
      reach = fmaxf(reach, distance(dx, dy, dz) + child.reach);
    }
  }
  if (lanes > 1) {
    warp_total(s);
    for (int offset = 16; offset > 0; offset >>= 1) reach = fmaxf(reach, __shfl_xor_sync(0xffffffffu, reach, offset));
  }
  r.reach = reach;
  return r;
}

// Writes what summarize_cell found for cell c, and the cell's size in the opening test.
__device__ void store_cell(const Tree& t, int c, const CellSummary& r) {
  const float4 second = make_float4(static_cast<float>(r.second.xx), static_cast<float>(r.second.yy),
                                    static_cast<float>(r.second.zz), static_cast<float>(r.second.xy));
  const float2 second_xz_yz = make_float2(static_cast<float>(r.second.xz), static_cast<float>(r.second.yz));
  t.node[t.n + c] = r.com;
  t.second[c] = second;
  t.second_xz_yz[c] = second_xz_yz;
  t.box[c] = r.cube;
  t.reach[c] = r.reach;
  t.open_size2[c] = opening_size2(t.depth[c], r.cube.w, r.com.w, t.count[c], second.x, second.y, second.z, second.w,
                                  second_xz_yz.x, second_xz_yz.y, r.reach, t.eps2);
}

// Bodies above which a cell without child cells is summed by its whole warp.
constexpr int kWarpLeafBodies = 64;

}  // namespace

// Every cell's mass, centre of mass and second moments, bottom-up without waiting: each thread starts
// at a cell without child cells, and climbs while it is the last of a parent's child cells to finish
// (an atomic count per cell; a fence before it publishes the child's results). Each cell is summarized
// once, from its children alone, in double about a point inside it.
extern "C" __global__ void bh_octree_summarize(Tree t, Morton m) {
  const int n = t.n;
  const Control* ctl = t.ctl;
  if (tree_failed(ctl)) return;
  const int cells = ctl->cells;
  const int lane = static_cast<int>(lane_id());
  unsigned long long used = 0;
  // Whole warps step through the cells together (the warp-wide sums below need every lane).
  for (int base = (blockIdx.x * blockDim.x + threadIdx.x) & ~31; base < cells; base += blockDim.x * gridDim.x) {
    const int c = base + lane;
    bool leaf = false;
    if (c < cells) {
      int child_cells = 0;
      for (int j = 0; j < 8; ++j) {
        const int id = t.child[c * 8 + j];
        used += id != kNull;
        child_cells += id >= n;
      }
      leaf = child_cells == 0;  // else summarized by the thread that finishes its last child cell
    }
    const bool big = leaf && t.count[c] > kWarpLeafBodies;
    CellSummary mine;
    for (unsigned pending = __ballot_sync(0xffffffffu, big); pending; pending &= pending - 1) {
      const int owner = __ffs(pending) - 1;
      const CellSummary r = summarize_cell(t, m, __shfl_sync(0xffffffffu, c, owner), true, lane, 32);
      if (lane == owner) mine = r;
    }
    if (!leaf) continue;
    if (!big) mine = summarize_cell(t, m, c, true, 0, 1);
    store_cell(t, c, mine);
    for (int parent = m.cell_parent[c]; parent >= 0; parent = m.cell_parent[parent]) {
      int expected = 0;
      for (int j = 0; j < 8; ++j) expected += t.child[parent * 8 + j] >= n;
      __threadfence();  // this child's results are visible before it counts as done
      if (atomicAdd(&m.arrivals[parent], 1u) + 1u != static_cast<unsigned>(expected)) break;
      __threadfence();  // and the other children's, before we read them
      store_cell(t, parent, summarize_cell(t, m, parent, false, 0, 1));
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) used += __shfl_xor_sync(0xffffffffu, used, offset);
  if (lane_id() == 0 && used) atomicAdd(&t.ctl->child_slots_used, used);
}

static_assert(nbl::kHasSignature<decltype(bh_morton_keys), decltype(kMortonKeysKernel)> &&
              nbl::kHasSignature<decltype(bh_radix_tree), decltype(kRadixTreeKernel)> &&
              nbl::kHasSignature<decltype(bh_octree_count), decltype(kOctreeCountKernel)> &&
              nbl::kHasSignature<decltype(bh_octree_emit), decltype(kOctreeEmitKernel)> &&
              nbl::kHasSignature<decltype(bh_octree_attach), decltype(kOctreeAttachKernel)> &&
              nbl::kHasSignature<decltype(bh_octree_single), decltype(kOctreeSingleKernel)> &&
              nbl::kHasSignature<decltype(bh_octree_summarize), decltype(kOctreeSummarizeKernel)>);
