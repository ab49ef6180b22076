// Barnes-Hut kernel 5 of 6, group interaction lists (beyond the tutorial; the idea of Barnes 1990 and
// of the Bonsai GPU code). A warp takes a group of up to 32 bodies that share a cell (bh_groups.cu
// forms them from the tree, so a group never straddles empty space); it walks the tree ONCE for the
// group, opening a cell unless it is far from the group's whole bounding box (so it is far for every
// body: the same cell_is_far test, applied to the nearest point of the box). The walk
// handles 32 nodes per step, one per lane, so 32 independent loads are in flight instead of one; the
// cells and bodies it accepts go into an interaction list in shared memory, which the warp then
// evaluates like the all-pairs kernel: every lane reads the same entry (a broadcast) and runs the
// plain force law, about 13 instructions per interaction.
// Shared memory per warp: the list (NBL_BH_LIST_CAP float4) and the stack of nodes still to visit.
#include "bh_force_common.cuh"

using namespace nbl::bh;

#if !defined(NBL_BH_LIST_CAP) || !defined(NBL_BH_STACK_CAP)
#error "bh_force_group.cu needs NBL_BH_LIST_CAP and NBL_BH_STACK_CAP from the switchboard"
#endif

namespace {

constexpr unsigned kAll = 0xffffffffu;
constexpr int kWarps = NBL_BH_BLOCK_SIZE / 32;
constexpr int kListCap = NBL_BH_LIST_CAP;
constexpr int kStackCap = NBL_BH_STACK_CAP;
constexpr int kStackAlloc = group_stack_entries(kStackCap);  // with the slack that rules out overflow

__device__ __forceinline__ void evaluate(const float4* list, int count, float px, float py, float pz, float eps2,
                                         float& ax, float& ay, float& az) {
#pragma unroll 8
  for (int j = 0; j < count; ++j) interact(list[j], px, py, pz, eps2, ax, ay, az);
}

}  // namespace

// Dynamic shared memory: kWarps lists of kListCap float4, then kWarps stacks of kStackAlloc ints.
extern "C" __global__ void __launch_bounds__(NBL_BH_BLOCK_SIZE) bh_force(Tree t) {
  extern __shared__ float4 shared[];
  __shared__ float size2[kMaxDepth + 1];
  const Control* ctl = t.ctl;
  if (tree_failed(ctl)) return;
  fill_level_sizes(size2, ctl);
  __syncthreads();
  const int warp = threadIdx.x >> 5;
  const unsigned lane = lane_id();
  float4* list = shared + warp * kListCap;
  int* stack = reinterpret_cast<int*>(shared + kWarps * kListCap) + warp * kStackAlloc;
  const int n = t.n;
  const int root = ctl->root;
  const float theta2 = t.theta * t.theta;
  const unsigned lanes_below = (1u << lane) - 1u;
  unsigned long long interactions = 0;

#if NBL_BH_SORT
  const int groups = ctl->groups;
#else
  const int groups = (n + kGroupSize - 1) / kGroupSize;  // unsorted: 32 bodies in memory order
#endif
  for (int g = blockIdx.x * kWarps + warp; g < groups; g += gridDim.x * kWarps) {
#if NBL_BH_SORT
    const int2 group = __ldg(&t.groups[g]);
#else
    const int2 group = make_int2(g * kGroupSize, min(kGroupSize, n - g * kGroupSize));
#endif
    const bool valid = static_cast<int>(lane) < group.y;
    const int i = body_for(t, group.x + (valid ? static_cast<int>(lane) : 0));
    const float4 p = t.node[i];
    // The group's bounding box (invalid lanes repeat the first body, which is inside it anyway).
    const float lo_x = warp_min(p.x), lo_y = warp_min(p.y), lo_z = warp_min(p.z);
    const float hi_x = warp_max(p.x), hi_y = warp_max(p.y), hi_z = warp_max(p.z);
    const float box_x = 0.5f * (lo_x + hi_x), box_y = 0.5f * (lo_y + hi_y), box_z = 0.5f * (lo_z + hi_z);
    const float half_x = 0.5f * (hi_x - lo_x), half_y = 0.5f * (hi_y - lo_y), half_z = 0.5f * (hi_z - lo_z);

    float ax = 0, ay = 0, az = 0;
    int listed = 0, touched = 0, entries = 0;
    if (lane == 0) stack[0] = root;
    int top = 1;  // stack height, the same in every lane
    __syncwarp();
    while (top > 0) {
      const int room = (kStackCap - top) >> 3;
      const int take = min(min(32, top), max(1, room));
      int id = static_cast<int>(lane) < take ? stack[top - take + static_cast<int>(lane)] : kNull;
      __syncwarp();
      top -= take;
      touched += take;

      bool accept = false, visit_bodies = false;
      float4 q = make_float4(0, 0, 0, 0);
      int kids[8] = {kNull, kNull, kNull, kNull, kNull, kNull, kNull, kNull};
      if (id != kNull) {
        q = tree_node(t, id);
        if (id < n) {
          accept = true;
        } else {
          const int level = tree_depth(t, id);
#pragma unroll
          for (int j = 0; j < 8; ++j) kids[j] = tree_child(t, id, j);  // loaded alongside the node
          // Distance from the cell's centre of mass to the nearest point of the group's box.
          const float dx = fmaxf(fabsf(q.x - box_x) - half_x, 0.0f);
          const float dy = fmaxf(fabsf(q.y - box_y) - half_y, 0.0f);
          const float dz = fmaxf(fabsf(q.z - box_z) - half_z, 0.0f);
          accept = is_far(size2, level, theta2, dx * dx + dy * dy + dz * dz);
          visit_bodies = !accept && level >= kMaxDepth;  // no child cells: its bodies join the list
        }
      }
      // Opened cells at the deepest level: the warp appends their bodies, 32 at a time.
      for (unsigned wide = __ballot_sync(kAll, visit_bodies); wide; wide &= wide - 1) {
        const int owner = __ffs(wide) - 1;
        const int2 mine = visit_bodies ? body_range(t, id) : make_int2(0, 0);
        const int2 range = make_int2(__shfl_sync(kAll, mine.x, owner), __shfl_sync(kAll, mine.y, owner));
        for (int offset = 0; offset < range.y; offset += 32) {
          if (listed > kListCap - 32) {
            evaluate(list, listed, p.x, p.y, p.z, t.eps2, ax, ay, az);
            entries += listed;
            listed = 0;
            __syncwarp();
          }
          const bool has = offset + static_cast<int>(lane) < range.y;
          const unsigned present = __ballot_sync(kAll, has);
          if (has) list[listed + __popc(present & lanes_below)] = tree_node(t, __ldg(&t.sorted[range.x + offset + lane]));
          listed += __popc(present);
          touched += __popc(present);
          __syncwarp();
        }
      }
      if (visit_bodies) id = kNull;  // handled: pushes no children
      // Accepted nodes join the interaction list (compacted with a ballot).
      const unsigned accepted = __ballot_sync(kAll, accept);
      if (accept) list[listed + __popc(accepted & lanes_below)] = q;
      listed += __popc(accepted);
      // Opened cells push their children (an exclusive prefix sum over lanes places them).
      int count = 0;
      if (!accept && id != kNull) {
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
      if (listed > kListCap - 32) {  // the next step could overflow the list: evaluate it now
        evaluate(list, listed, p.x, p.y, p.z, t.eps2, ax, ay, az);
        entries += listed;
        listed = 0;
        __syncwarp();
      }
    }
    evaluate(list, listed, p.x, p.y, p.z, t.eps2, ax, ay, az);
    entries += listed;
    __syncwarp();
    if (valid) t.acc[i] = make_float4(ax, ay, az, 0.0f);
    interactions += valid ? entries : 0;
    add_touched_stats(t.ctl, touched, valid);
  }
  for (int offset = 16; offset > 0; offset >>= 1) interactions += __shfl_xor_sync(kAll, interactions, offset);
  if (lane == 0) atomicAdd(&t.ctl->interactions, interactions);
}
static_assert(nbl::kHasSignature<decltype(bh_force), decltype(kForceKernel)>);
