// Force groups for the group-list traversal (bh_force_group.cu): runs of at
// most NBL_BH_GROUP_SIZE bodies that are contiguous in tree order AND share a cell, so a group's
// bounding box is never larger than that cell. A cell with more than the group size packs its children
// (in slot order, which is tree order) into runs; a child too big for a group gets its own turn; a cell
// at the deepest level, which has no child cells, is cut into runs of the group size. Each group is
// found by exactly one cell: the smallest enclosing cell with more bodies than a group holds (or the
// root, when all bodies fit in one).
//
// A run is also cut before it would reach across a child too big for a group. A run's bodies lie in
// the smallest block of octants holding its children (octant bits are the x, y and z halves), and when
// that block holds a dense child, the group's box spans part of it and its walk opens all of it. On
// the 10M collision, sparse bodies around a galaxy packed this way into groups of 64 whose walks
// touched a million nodes each, 274 times the median group, and the force pass waited on their warps
// (`nbodylab bench groups`).
#include "bh_common.cuh"

using namespace nbl::bh;

#ifndef NBL_BH_GROUP_SIZE
#error "bh_groups.cu needs NBL_BH_GROUP_SIZE from the switchboard"
#endif

namespace {

constexpr int kGroupSize = NBL_BH_GROUP_SIZE;
static_assert(kGroupSize >= 32 && kGroupSize <= kMaxGroupSize, "group size out of range");

__device__ __forceinline__ void emit(const Tree& t, int first, int count) {
  const int g = atomicAdd(&t.ctl->groups, 1);
  t.groups[g] = make_int2(first, count);
}

// Whether the block of octants from `low` (the AND of a run's slots) to `high` (their OR) holds a slot
// of `dense` (one bit per slot).
__device__ __forceinline__ bool block_holds(unsigned dense, int low, int high) {
  for (int k = 0; k < 8; ++k)
    if ((dense >> k & 1u) && (k & low) == low && (k & ~high & 7) == 0) return true;
  return false;
}

}  // namespace

// Cells are the ids [first_cell, last_cell]: [bottom, root] after the insertion build, [n, n + cells)
// after the Morton build (`insertion_build` is 0).
extern "C" __global__ void bh_make_groups(Tree t, int insertion_build) {
  const Control* ctl = t.ctl;
  if (tree_failed(ctl)) return;
  const int n = t.n;
  const int first_cell = insertion_build ? ctl->bottom : n;
  const int last_cell = insertion_build ? ctl->root : n + ctl->cells - 1;
  for (int c = first_cell + blockIdx.x * blockDim.x + threadIdx.x; c <= last_cell; c += blockDim.x * gridDim.x) {
    const int count = t.count[c - n];
    const int start = t.start[c - n];
    if (count <= kGroupSize) {
      if (c == ctl->root) emit(t, start, count);
      continue;
    }
    // A deepest cell is cut into runs of its bodies in tree order; the insertion build's cells below
    // it (bodies parted by id, bh_build_insert.cu) are inside those runs already.
    if (t.depth[c - n] > kMaxDepth) continue;
    if (t.depth[c - n] == kMaxDepth) {  // one atomic for all its runs (100,000 coincident bodies: 1,563 runs)
      const int runs = (count + kGroupSize - 1) / kGroupSize;
      const int g = atomicAdd(&t.ctl->groups, runs);
      for (int r = 0; r < runs; ++r)
        t.groups[g + r] = make_int2(start + r * kGroupSize, min(kGroupSize, count - r * kGroupSize));
      continue;
    }
    // Each child's octant, from where it lies: the insertion build's summarize packs a cell's children
    // to the front of its slots, so there a slot is not an octant (with groups of 96, runs that reached
    // across a dense child because of it made walks of 57,000 nodes on a Plummer sphere and 210,000
    // with a far outlier, against 7,000 for any group of the Morton build).
    int sizes[8], octants[8];
    unsigned dense = 0;
    const float4 centre = t.box[c - n];
    for (int j = 0; j < 8; ++j) {
      const int child = t.child[(c - n) * 8 + j];
      sizes[j] = child == kNull ? 0 : (child >= n ? t.count[child - n] : 1);
      octants[j] = 0;
      if (child == kNull) continue;
      const float4 at = child >= n ? t.box[child - n] : t.node[child];
      octants[j] = (at.x > centre.x ? 1 : 0) | (at.y > centre.y ? 2 : 0) | (at.z > centre.z ? 4 : 0);
      if (sizes[j] > kGroupSize) dense |= 1u << octants[j];
    }
    int position = start, run_first = start, run_count = 0, run_low = 7, run_high = 0;
    for (int j = 0; j < 8; ++j) {
      const int size = sizes[j];
      if (size == 0) continue;
      const int octant = octants[j];
      const bool reaches_dense = run_count > 0 && block_holds(dense, run_low & octant, run_high | octant);
      if (size > kGroupSize || run_count + size > kGroupSize || reaches_dense) {
        if (run_count) emit(t, run_first, run_count);
        run_first = position;
        run_count = 0;
        run_low = 7;
        run_high = 0;
      }
      if (size <= kGroupSize) {
        run_count += size;
        run_low &= octant;
        run_high |= octant;
      } else {
        run_first = position + size;  // its own cell forms its groups
      }
      position += size;
    }
    if (run_count) emit(t, run_first, run_count);
  }
}
static_assert(nbl::kHasSignature<decltype(bh_make_groups), decltype(kMakeGroupsKernel)>);
