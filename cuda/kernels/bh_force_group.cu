// Barnes-Hut kernel 5 of 6, group interaction lists (beyond the tutorial; the idea of Barnes 1990 and
// of the Bonsai GPU code). A warp takes a group of up to NBL_BH_GROUP_SIZE bodies that are neighbours
// in tree order, NBL_BH_GROUP_SIZE / 32 per lane; it walks the tree ONCE for the group, opening a cell
// unless it is far from the group's whole bounding box (so it is far for every body: the same
// cell_is_far test, applied to the nearest point of the box). The walk handles 32 nodes per step, one
// per lane, so 32 independent loads are in flight instead of one; the cells and bodies it accepts go
// into interaction lists in shared memory, which the warp then evaluates like the all-pairs kernel:
// every lane reads the same entry (a broadcast) and applies it to each of its bodies from registers
// (register blocking, as the all-pairs kernel's bodies per thread). The groups are the runs bh_groups.cu
// cuts from the tree's cells (unsorted: runs of 32 in memory order).
// Lists: one of point masses (bodies, and cells acting through their monopoles), and with quadrupoles
// (NBL_BH_MOMENTS) one of cells with their quadrupoles.
#include "bh_force_common.cuh"

using namespace nbl::bh;

#if !defined(NBL_BH_LIST_CAP) || !defined(NBL_BH_CELL_CAP) || !defined(NBL_BH_GROUP_SIZE) || !defined(NBL_BH_FIT_SLOTS)
#error "bh_force_group.cu needs NBL_BH_LIST_CAP, _CELL_CAP, _GROUP_SIZE and _FIT_SLOTS from the switchboard"
#endif

namespace {

constexpr unsigned kAll = 0xffffffffu;
constexpr int kWarps = NBL_BH_BLOCK_SIZE / 32;
constexpr int kListCap = NBL_BH_LIST_CAP;
constexpr int kCellCap = NBL_BH_CELL_CAP;                         // 0 with monopoles: a cell's monopole is a point mass
constexpr int kGroupSize = NBL_BH_SORT ? NBL_BH_GROUP_SIZE : 32;  // unsorted: runs of 32 in memory order
constexpr int kPerLane = kGroupSize / 32;
static_assert(kGroupSize % 32 == 0 && kPerLane >= 1 && kGroupSize <= kMaxGroupSize, "group size: 32 to 128");
static_assert(kListCap >= 64 && (!NBL_BH_QUADRUPOLE || kCellCap >= 64), "lists must hold two steps' entries");

// The lane's bodies of its group, and what acts on them so far.
struct LaneBodies {
  float x[kPerLane], y[kPerLane], z[kPerLane];
  float ax[kPerLane], ay[kPerLane], az[kPerLane];
};

// The list applied to the lane's first `kSlots` bodies.
template <int kSlots>
__device__ __forceinline__ void evaluate_points_in(const float4* list, int count, LaneBodies& b, float eps2) {
#pragma unroll 4
  for (int j = 0; j < count; ++j) {
    const float4 e = list[j];
#pragma unroll
    for (int k = 0; k < kSlots; ++k) interact(e, b.x[k], b.y[k], b.z[k], eps2, b.ax[k], b.ay[k], b.az[k]);
  }
}

// NBL_BH_FIT_SLOTS: a group of 40 bodies fills one slot of every lane and 8 lanes' second; with groups
// of 96 a lane has three, and without the switch every lane evaluates all three. `slots`, the group's
// filled slots per lane (the same in every lane), picks a loop over just those; the others' bodies
// are copies of the group's first and their results are dropped anyway.
__device__ __forceinline__ void evaluate_points(const float4* list, int count, LaneBodies& b, float eps2,
                                                [[maybe_unused]] int slots) {
#if NBL_BH_FIT_SLOTS
  if constexpr (kPerLane > 1) {
    if (slots == 1) return evaluate_points_in<1>(list, count, b, eps2);
  }
  if constexpr (kPerLane > 2) {
    if (slots == 2) return evaluate_points_in<2>(list, count, b, eps2);
  }
  if constexpr (kPerLane > 3) {
    if (slots == 3) return evaluate_points_in<3>(list, count, b, eps2);
  }
#endif
  evaluate_points_in<kPerLane>(list, count, b, eps2);
}

#if NBL_BH_QUADRUPOLE
template <int kSlots>
__device__ __forceinline__ void evaluate_cells_in(const float4* cells, const float4* quads, const float2* quads_yz,
                                                  int count, LaneBodies& b, float eps2) {
#pragma unroll 2
  for (int j = 0; j < count; ++j) {
    const float4 c = cells[j], q = quads[j];
    const float2 r = quads_yz[j];
    const nbl::Quadrupole quad{q.x, q.y, q.z, q.w, r.x, r.y};
#pragma unroll
    for (int k = 0; k < kSlots; ++k)
      interact_quadrupole(c, quad, b.x[k], b.y[k], b.z[k], eps2, b.ax[k], b.ay[k], b.az[k]);
  }
}

__device__ __forceinline__ void evaluate_cells(const float4* cells, const float4* quads, const float2* quads_yz,
                                               int count, LaneBodies& b, float eps2, [[maybe_unused]] int slots) {
#if NBL_BH_FIT_SLOTS
  if constexpr (kPerLane > 1) {
    if (slots == 1) return evaluate_cells_in<1>(cells, quads, quads_yz, count, b, eps2);
  }
  if constexpr (kPerLane > 2) {
    if (slots == 2) return evaluate_cells_in<2>(cells, quads, quads_yz, count, b, eps2);
  }
  if constexpr (kPerLane > 3) {
    if (slots == 3) return evaluate_cells_in<3>(cells, quads, quads_yz, count, b, eps2);
  }
#endif
  evaluate_cells_in<kPerLane>(cells, quads, quads_yz, count, b, eps2);
}
#endif

}  // namespace

// Dynamic shared memory, per warp (kWarps of each, in this order): the point list (kListCap float4),
// the cell list (kCellCap float4 positions and masses, kCellCap float4 and kCellCap float2 of quadrupole
// and trace), the node stack (t.stack_cap ints and the slack that rules out overflow, last: the launch
// sizes it). bh_tree.hpp's group_shared_bytes_per_warp gives the same total.
extern "C" __global__ void __launch_bounds__(NBL_BH_BLOCK_SIZE) bh_force(Tree t) {
  extern __shared__ float4 shared[];
  const Control* ctl = t.ctl;
  if (tree_failed(ctl) || walk_stopped(t)) return;  // stopped: the user left this variant
  const int warp = threadIdx.x >> 5;
  const unsigned lane = lane_id();
  float4* points = shared + warp * kListCap;
  [[maybe_unused]] float4* cells = shared + kWarps * kListCap + warp * kCellCap;
  [[maybe_unused]] float4* quads = shared + kWarps * (kListCap + kCellCap) + warp * kCellCap;
  float2* after_quads = reinterpret_cast<float2*>(shared + kWarps * (kListCap + 2 * kCellCap));
  [[maybe_unused]] float2* quads_yz = after_quads + warp * kCellCap;
  const int stack_cap = t.stack_cap;
  int* stack = reinterpret_cast<int*>(after_quads + kWarps * kCellCap) + warp * group_stack_entries(stack_cap);
  const int n = t.n;
  const int root = ctl->root;
  // The opening test, once per kernel. Built per group, its t.theta load moved into the group loop and
  // the PTX of the point list's hot loop grew by an instruction (the shared memory base address,
  // materialized again every iteration).
  const OpeningTest opening(t);
  const float eps2 = t.eps2;
  const unsigned lanes_below = (1u << lane) - 1u;
  unsigned long long interactions = 0;

#if NBL_BH_SORT
  const int groups = ctl->groups;
#else
  const int groups = (n + kGroupSize - 1) / kGroupSize;
#endif
  // This launch's slice of the groups (Tree::slice): all of them unless the pass is sliced.
  const int last_group = slice_last(groups, t.slice, t.slices);
  for (int g = slice_first(groups, t.slice, t.slices) + blockIdx.x * kWarps + warp; g < last_group;
       g += gridDim.x * kWarps) {
#if NBL_BH_SORT
    const int2 group = __ldg(&t.groups[g]);
#else
    const int2 group = make_int2(g * kGroupSize, min(kGroupSize, n - g * kGroupSize));
#endif
    const int slots = (group.y + 31) >> 5;  // slots of each lane the group fills, at least partly
    LaneBodies b;
    int body[kPerLane];
    bool valid[kPerLane];
    int mine = 0;  // valid bodies of this lane
    float lo_x, lo_y, lo_z, hi_x, hi_y, hi_z;
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      const int slot = static_cast<int>(lane) + 32 * k;
      valid[k] = slot < group.y;
      // Invalid slots repeat the group's first body, which lies inside the box anyway.
      body[k] = body_for(t, group.x + (valid[k] ? slot : 0));
      const float4 p = t.node[body[k]];
      b.x[k] = p.x, b.y[k] = p.y, b.z[k] = p.z;
      b.ax[k] = b.ay[k] = b.az[k] = 0.0f;
      mine += valid[k];
      if (k == 0) {
        lo_x = hi_x = p.x, lo_y = hi_y = p.y, lo_z = hi_z = p.z;
      } else {
        lo_x = fminf(lo_x, p.x), lo_y = fminf(lo_y, p.y), lo_z = fminf(lo_z, p.z);
        hi_x = fmaxf(hi_x, p.x), hi_y = fmaxf(hi_y, p.y), hi_z = fmaxf(hi_z, p.z);
      }
    }
    // The group's bounding box.
    lo_x = warp_min(lo_x), lo_y = warp_min(lo_y), lo_z = warp_min(lo_z);
    hi_x = warp_max(hi_x), hi_y = warp_max(hi_y), hi_z = warp_max(hi_z);
    const float box_x = 0.5f * (lo_x + hi_x), box_y = 0.5f * (lo_y + hi_y), box_z = 0.5f * (lo_z + hi_z);
    const float half_x = 0.5f * (hi_x - lo_x), half_y = 0.5f * (hi_y - lo_y), half_z = 0.5f * (hi_z - lo_z);

    int listed = 0, touched = 0, entries = 0;
    [[maybe_unused]] int celled = 0;
    if (lane == 0) stack[0] = root;
    int top = 1;  // stack height, the same in every lane
    __syncwarp();
    while (top > 0) {
      const int room = (stack_cap - top) >> 3;
      const int take = min(min(32, top), max(1, room));
      const int id = static_cast<int>(lane) < take ? stack[top - take + static_cast<int>(lane)] : kNull;
      __syncwarp();
      top -= take;
      touched += take;

      bool accept = false, visit_bodies = false;
      [[maybe_unused]] bool as_monopole = true;  // an accepted cell acts through its monopole
      float4 q = make_float4(0, 0, 0, 0);
      int kids[8] = {kNull, kNull, kNull, kNull, kNull, kNull, kNull, kNull};
#if NBL_BH_QUADRUPOLE
      nbl::Quadrupole quad{0, 0, 0, 0, 0, 0};
#endif
      if (id != kNull) {
        q = tree_node(t, id);
        if (id < n) {
          accept = true;
        } else {
          const float open_size2 = tree_open_size2(t, id);
          // Eight 4-byte loads: two 16-byte ones were 1-2% slower on the H200 (BENCHMARKS.md).
#pragma unroll
          for (int j = 0; j < 8; ++j) kids[j] = tree_child(t, id, j);  // loaded alongside the node
#if NBL_BH_QUADRUPOLE
          quad = cell_quadrupole(t, id);  // most cells visited are accepted: load it in the same round
#endif
          // Distance from the cell's centre of mass to the nearest point of the group's box.
          const float dx = fmaxf(fabsf(q.x - box_x) - half_x, 0.0f);
          const float dy = fmaxf(fabsf(q.y - box_y) - half_y, 0.0f);
          const float dz = fmaxf(fabsf(q.z - box_z) - half_z, 0.0f);
          const float near2 = dx * dx + dy * dy + dz * dz;
          nbl::Acceptance as = opening.judge(open_size2, near2, q.w);
          if (as == nbl::Acceptance::open &&
              opening.light(t, id, q.w, near2, box_x, box_y, box_z, half_x, half_y, half_z))
            as = nbl::Acceptance::monopole;
          accept = as != nbl::Acceptance::open;
          visit_bodies = !accept && bodies_to_visit(open_size2);  // a deepest cell with resolved bodies
          as_monopole = as == nbl::Acceptance::monopole;
        }
      }
      // Opened cells at the deepest level have no child cells: the warp appends their bodies, 32 at a time.
      for (unsigned wide = __ballot_sync(kAll, visit_bodies); wide; wide &= wide - 1) {
        const int owner = __ffs(wide) - 1;
        const int2 mine = visit_bodies ? body_range(t, id) : make_int2(0, 0);
        const int2 range = make_int2(__shfl_sync(kAll, mine.x, owner), __shfl_sync(kAll, mine.y, owner));
        for (int offset = 0; offset < range.y; offset += 32) {
          if (listed > kListCap - 32) {
            evaluate_points(points, listed, b, eps2, slots);
            entries += listed;
            listed = 0;
            __syncwarp();
          }
          const bool has = offset + static_cast<int>(lane) < range.y;
          const unsigned present = __ballot_sync(kAll, has);
          if (has)
            points[listed + __popc(present & lanes_below)] = tree_node(t, __ldg(&t.sorted[range.x + offset + lane]));
          listed += __popc(present);
          touched += __popc(present);
          __syncwarp();
        }
      }
      if (listed > kListCap - 32) {  // room for this step's accepted nodes
        evaluate_points(points, listed, b, eps2, slots);
        entries += listed;
        listed = 0;
        __syncwarp();
      }
      // Accepted nodes join their list (compacted with a ballot).
      const bool as_point = accept && (id < n || as_monopole);
      const unsigned pointed = __ballot_sync(kAll, as_point);
      if (as_point) points[listed + __popc(pointed & lanes_below)] = q;
      listed += __popc(pointed);
#if NBL_BH_QUADRUPOLE
      const bool as_cell = accept && !as_point;
      const unsigned cell_mask = __ballot_sync(kAll, as_cell);
      if (as_cell) {
        const int at = celled + __popc(cell_mask & lanes_below);
        cells[at] = q;
        quads[at] = make_float4(quad.xx, quad.yy, quad.xy, quad.xz);
        quads_yz[at] = make_float2(quad.yz, quad.trace);
      }
      celled += __popc(cell_mask);
#endif
      // Opened cells push their children (an exclusive prefix sum over lanes places them).
      int count = 0;
      if (!accept && !visit_bodies && id != kNull) {
#pragma unroll
        for (int j = 0; j < 8; ++j) count += kids[j] != kNull;
      }
      int offset = count;
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const int v = __shfl_up_sync(kAll, offset, d);
        if (static_cast<int>(lane) >= d) offset += v;
      }
      const int pushed = __shfl_sync(kAll, offset, 31);
      int at = top + offset - count;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (count && kids[j] != kNull) stack[at++] = kids[j];
      top += pushed;
      __syncwarp();
      // The next step adds at most 32 entries to each list: evaluate a list that could overflow.
      if (listed > kListCap - 32) {
        evaluate_points(points, listed, b, eps2, slots);
        entries += listed;
        listed = 0;
        __syncwarp();
      }
#if NBL_BH_QUADRUPOLE
      if (celled > kCellCap - 32) {
        evaluate_cells(cells, quads, quads_yz, celled, b, eps2, slots);
        entries += celled;
        celled = 0;
        __syncwarp();
      }
#endif
    }
    evaluate_points(points, listed, b, eps2, slots);
    entries += listed;
#if NBL_BH_QUADRUPOLE
    evaluate_cells(cells, quads, quads_yz, celled, b, eps2, slots);
    entries += celled;
#endif
    __syncwarp();
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      if (valid[k]) t.acc[body[k]] = make_float4(b.ax[k], b.ay[k], b.az[k], 0.0f);
      add_touched_stats(t.ctl, touched, valid[k]);
    }
    interactions += static_cast<unsigned long long>(mine) * entries;
  }
  for (int offset = 16; offset > 0; offset >>= 1) interactions += __shfl_xor_sync(kAll, interactions, offset);
  if (lane == 0) atomicAdd(&t.ctl->interactions, interactions);
}
static_assert(nbl::kHasSignature<decltype(bh_force), decltype(kForceKernel)>);
