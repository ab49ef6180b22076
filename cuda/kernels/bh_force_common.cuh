// What the three force-kernel variants share: how tree data is read, the opening test per level and
// the interaction itself (physics/gravity.hpp, the one force law).
#pragma once
#include "bh_common.cuh"

// One macro per toggle from the switchboard, plus NBL_BH_SOFTENED (softening > 0: a body's
// interaction with itself is exactly zero, so no test is needed).
#if !defined(NBL_BH_RSQRT) || !defined(NBL_BH_AVOID_VOLATILE) || !defined(NBL_BH_SORT) || !defined(NBL_BH_SOFTENED) || \
    !defined(NBL_BH_BLOCK_SIZE) || !defined(NBL_BH_MOMENTS) || !defined(NBL_BH_MOMENTS_QUADRUPOLE) ||                  \
    !defined(NBL_BH_OPENING) || !defined(NBL_BH_TOLERANCE)
#error \
    "the force kernels need NBL_BH_RSQRT, _AVOID_VOLATILE, _SORT, _SOFTENED, _BLOCK_SIZE, _MOMENTS, _OPENING and _TOLERANCE from the switchboard"
#endif

// bh_opening: cells open by an angle (theta), or by the share of the bodies' RMS pull their error would
// be (relative, with the tolerance bh_tolerance in units of kToleranceUnit; physics/gravity.hpp).
#define NBL_BH_RELATIVE (NBL_BH_OPENING == NBL_BH_OPENING_RELATIVE)

// bh_moments: a far cell acts through its monopole (mass at the centre of mass) or also through its
// quadrupole (physics/gravity.hpp, accumulate_quadrupole): every far cell, or with `adaptive` only the
// cells a monopole test at kMonopoleShare * theta would open, those closest to the opening limit where a
// monopole's error is largest (it grows as (size / distance)^2).
#define NBL_BH_ADAPTIVE (NBL_BH_MOMENTS == NBL_BH_MOMENTS_ADAPTIVE)
#define NBL_BH_QUADRUPOLE (NBL_BH_MOMENTS == NBL_BH_MOMENTS_QUADRUPOLE || NBL_BH_ADAPTIVE)

namespace nbl::bh {

// Adaptive moments: physics/gravity.hpp, kAdaptiveMonopoleShare.
constexpr float kMonopoleShare = nbl::kAdaptiveMonopoleShare;

// The tree no longer changes while forces are computed, so ordinary cached loads are safe
// (Burtscher's CUDA optimization tutorial, Part II: "Minimize volatile accesses"); with the toggle off every read is volatile,
// as a kernel that must not trust its caches would do.
#if NBL_BH_AVOID_VOLATILE
__device__ __forceinline__ float4 tree_node(const Tree& t, int id) { return __ldg(&t.node[id]); }
__device__ __forceinline__ int tree_child(const Tree& t, int cell, int slot) {
  return __ldg(&t.child[(cell - t.n) * 8 + slot]);
}
__device__ __forceinline__ float tree_open_size2(const Tree& t, int cell) { return __ldg(&t.open_size2[cell - t.n]); }
__device__ __forceinline__ float4 tree_box(const Tree& t, int cell) { return __ldg(&t.box[cell - t.n]); }
#else
__device__ __forceinline__ float4 tree_node(const Tree& t, int id) {
  const volatile float4* p = t.node + id;
  return make_float4(p->x, p->y, p->z, p->w);
}
__device__ __forceinline__ int tree_child(const Tree& t, int cell, int slot) {
  return load_volatile(&t.child[(cell - t.n) * 8 + slot]);
}
__device__ __forceinline__ float tree_open_size2(const Tree& t, int cell) {
  return load_volatile(&t.open_size2[cell - t.n]);
}
__device__ __forceinline__ float4 tree_box(const Tree& t, int cell) {
  const volatile float4* p = t.box + (cell - t.n);
  return make_float4(p->x, p->y, p->z, p->w);
}
#endif

// Whether the lab's stepping thread has asked this walk to stop (Tree::stop): lane 0 reads the word (a
// relaxed load at system scope: a copy writes it while the kernel runs; not a volatile tree read) and
// the warp shares the answer, so whole warps leave together. Every lane must call it.
__device__ __forceinline__ bool walk_stopped(const Tree& t) {
  if (!t.stop) return false;
  int raised = 0;
  if (lane_id() == 0) asm volatile("ld.relaxed.sys.global.s32 %0, [%1];" : "=r"(raised) : "l"(t.stop));
  return __shfl_sync(0xffffffffu, raised, 0) != 0;
}

// Which body the k-th thread computes: tree order when sorted (NBL_BH_SORT), memory order otherwise.
__device__ __forceinline__ int body_for(const Tree& t, int k) {
#if NBL_BH_SORT
  return __ldg(&t.sorted[k]);
#else
  return k;
#endif
}

// The opening test per cell, one multiply and one compare: far when size^2 < theta^2 * distance^2
// (physics/gravity.hpp, cell_is_far), with the size summarize wrote for the cell (Tree::open_size2: its
// edge, stretched for rods and sheets). A cell at kMaxDepth whose bodies are unresolved (bh_common.cuh,
// opening_size2: coincident, or spread over far less than the softening length) has size2 = -1 and is
// far from everything: it acts as one point mass at their centre of mass, so k coincident bodies cost
// O(k), not O(k^2), and their pulls on each other, softened at such distances, are negligible.
__device__ __forceinline__ bool is_far(float open_size2, float theta2, float dist2) {
  return open_size2 < theta2 * dist2;
}

// The opening test a walk applies to every cell, set up once per kernel: by angle (is_far above, and
// for adaptive moments the monopole's narrower angle), or with bh_opening = relative by the share of
// the previous pass's RMS acceleration, which bh_pull_scale (below) left in Control::pull_rms
// (physics/gravity.hpp, relative_acceptance and relative_budget). Without previous accelerations
// (Tree::previous_acc null: a new state's first pass) the relative walk opens by angle too.
struct OpeningTest {
  float theta2, monopole_theta2;
#if NBL_BH_RELATIVE
  float budget;  // the error one accepted cell may make; < 0: open by angle
#endif
  __device__ explicit OpeningTest(const Tree& t) {
    theta2 = t.theta * t.theta;
    monopole_theta2 = kMonopoleShare * kMonopoleShare * theta2;
#if NBL_BH_RELATIVE
    budget = t.previous_acc ? nbl::relative_budget(NBL_BH_TOLERANCE, t.ctl->pull_rms) : -1.0f;
#endif
  }

  // What a cell of squared opening size `size2` and mass `mass`, its centre of mass `dist2` (squared)
  // from the bodies, is taken as: opened, or accepted as a monopole or with its quadrupole.
  __device__ __forceinline__ nbl::Acceptance judge(float size2, float dist2, [[maybe_unused]] float mass) const {
#if NBL_BH_RELATIVE
    if (budget >= 0.0f) {
      const nbl::Acceptance as = nbl::relative_acceptance(size2, dist2, mass, budget, NBL_BH_QUADRUPOLE != 0);
#if NBL_BH_QUADRUPOLE && !NBL_BH_ADAPTIVE
      if (as == nbl::Acceptance::monopole) return nbl::Acceptance::quadrupole;  // every accepted cell's
#endif
      return as;
    }
#endif
    if (!is_far(size2, theta2, dist2)) return nbl::Acceptance::open;
#if NBL_BH_ADAPTIVE
    return is_far(size2, monopole_theta2, dist2) ? nbl::Acceptance::monopole : nbl::Acceptance::quadrupole;
#elif NBL_BH_QUADRUPOLE
    return nbl::Acceptance::quadrupole;
#else
    return nbl::Acceptance::monopole;
#endif
  }

  // Whether a cell judge() opens is light (physics/gravity.hpp, light_cell), so that its monopole
  // stands in for it all the same: at the gap between its cube and a box (centre c, half extents h;
  // a body is a box of size zero). `dist2` is judge()'s distance: where the bound fails even there,
  // the cube is not looked up. Only with the relative test, and never in a new state's first pass.
  __device__ __forceinline__ bool light([[maybe_unused]] const Tree& t, [[maybe_unused]] int cell,
                                        [[maybe_unused]] float mass, [[maybe_unused]] float dist2,
                                        [[maybe_unused]] float cx, [[maybe_unused]] float cy, [[maybe_unused]] float cz,
                                        [[maybe_unused]] float hx, [[maybe_unused]] float hy,
                                        [[maybe_unused]] float hz) const {
#if NBL_BH_RELATIVE
    if (!(budget >= 0.0f) || !nbl::light_cell(mass, dist2, budget)) return false;
    const float4 cube = tree_box(t, cell);
    const float half = 0.5f * cube.w;
    const float gx = fmaxf(fabsf(cube.x - cx) - half - hx, 0.0f);
    const float gy = fmaxf(fabsf(cube.y - cy) - half - hy, 0.0f);
    const float gz = fmaxf(fabsf(cube.z - cz) - half - hz, 0.0f);
    return nbl::light_cell(mass, gx * gx + gy * gy + gz * gz, budget);
#else
    return false;
#endif
  }
};

#if NBL_BH_RELATIVE
// The relative test's scale, run just before the force kernel: the RMS of Tree::previous_acc's
// magnitudes into Control::pull_rms. On the bounding box's grid (bounds_blocks x kBoundsThreads): each
// block sums its grid-stride share in double (squared pulls overflow a float where bodies meet
// unsoftened) and leaves it in block_bounds (room for 6 floats a block, 3 doubles); the last block to
// finish adds the blocks' sums in block order. The same order every time: the same scale every run.
extern "C" __global__ void __launch_bounds__(kBoundsThreads) bh_pull_scale(Tree t) {
  constexpr int kWarps = kBoundsThreads / 32;
  __shared__ double s_sum[kWarps];
  __shared__ bool s_last;
  // Like every kernel after the bounding box, nothing to do once it failed. A plain load:
  // an earlier kernel set the flag (tree_failed's volatile one would count as a volatile tree read).
  if (t.ctl->error & (kErrorPoolExhausted | kErrorSpinLimit | kErrorNonFinite)) return;
  double* partial = reinterpret_cast<double*>(t.block_bounds);
  double sum = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < t.n; i += blockDim.x * gridDim.x) {
    const float4 a = __ldg(&t.previous_acc[i]);
    sum += static_cast<double>(a.x) * a.x + static_cast<double>(a.y) * a.y + static_cast<double>(a.z) * a.z;
  }
  const auto block_sum = [&](double v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane_id() == 0) s_sum[threadIdx.x >> 5] = v;
    __syncthreads();
    v = 0.0;
    for (int w = 0; w < kWarps; ++w) v += s_sum[w];
    return v;
  };
  sum = block_sum(sum);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence();  // our sum is visible before we take a ticket
    s_last = atomicAdd(&t.ctl->blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!s_last) return;
  sum = 0.0;
  // Other blocks wrote them: loaded from L2 (ld.global.cg), past this SM's cache.
  for (int blk = threadIdx.x; blk < gridDim.x; blk += blockDim.x) sum += __ldcg(&partial[blk]);
  __syncthreads();  // s_sum is read by every thread above before it is written again
  sum = block_sum(sum);
  if (threadIdx.x == 0) {
    t.ctl->pull_rms = static_cast<float>(sqrt(sum / t.n));
    t.ctl->blocks_done = 0;
  }
}
static_assert(nbl::kHasSignature<decltype(bh_pull_scale), decltype(kPullScaleKernel)>);
#endif

// A deepest cell whose bodies are resolved apart (open_size2 = +inf: never far) is opened by visiting
// its bodies: it has no child cells.
__device__ __forceinline__ bool bodies_to_visit(float open_size2) { return open_size2 == __int_as_float(0x7f800000); }

// Its bodies: the range [start, start + count) of the tree order.
__device__ __forceinline__ int2 body_range(const Tree& t, int cell) {
  return make_int2(__ldg(&t.start[cell - t.n]), __ldg(&t.count[cell - t.n]));
}

// A cell's quadrupole from the second moments summarize wrote (bh_tree.hpp, Tree::second).
__device__ __forceinline__ nbl::Quadrupole cell_quadrupole(const Tree& t, int cell) {
  const float4 s = __ldg(&t.second[cell - t.n]);
  const float2 r = __ldg(&t.second_xz_yz[cell - t.n]);
  return quadrupole_from_second_moments(s.x, s.y, s.z, s.w, r.x, r.y);
}

__device__ __forceinline__ void interact(float4 other, float px, float py, float pz, float eps2, float& ax, float& ay,
                                         float& az) {
  const float dx = other.x - px, dy = other.y - py, dz = other.z - pz;
#if NBL_BH_SOFTENED
  accumulate_acceleration<NBL_BH_RSQRT != 0, true>(dx, dy, dz, other.w, eps2, ax, ay, az);
#else
  // Without softening a body meeting itself (distance 0) must add nothing rather than 0 * inf.
  const float dist2 = dx * dx + (dy * dy + dz * dz);
  if (dist2 > 0.0f) accumulate_acceleration<NBL_BH_RSQRT != 0, true>(dx, dy, dz, other.w, 0.0f, ax, ay, az);
#endif
}

// A cell with its quadrupole. Without softening, a cell at the body's own position (a deepest cell it
// belongs to) adds nothing rather than 0 * inf, as interact() does for a body meeting itself.
__device__ __forceinline__ void interact_quadrupole(float4 cell, const nbl::Quadrupole& q, float px, float py, float pz,
                                                    float eps2, float& ax, float& ay, float& az) {
  const float dx = cell.x - px, dy = cell.y - py, dz = cell.z - pz;
#if !NBL_BH_SOFTENED
  if (!(dx * dx + (dy * dy + dz * dz) > 0.0f)) return;
#endif
  accumulate_quadrupole<NBL_BH_RSQRT != 0>(dx, dy, dz, cell.w, q.xx, q.yy, q.xy, q.xz, q.yz, q.trace, eps2, ax, ay, az);
}

// What a cell the walk accepts adds to a body: its monopole, or with NBL_BH_QUADRUPOLE its quadrupole too
// (adaptive or relative: only when the opening test said so; `as`, never Acceptance::open here).
__device__ __forceinline__ void interact_cell(const Tree& t, int cell, float4 node, nbl::Acceptance as, float px,
                                              float py, float pz, float eps2, float& ax, float& ay, float& az) {
#if NBL_BH_QUADRUPOLE
#if NBL_BH_ADAPTIVE || NBL_BH_RELATIVE
  if (as == nbl::Acceptance::monopole) {
    interact(node, px, py, pz, eps2, ax, ay, az);
    return;
  }
#endif
  interact_quadrupole(node, cell_quadrupole(t, cell), px, py, pz, eps2, ax, ay, az);
#else
  (void)as;
  interact(node, px, py, pz, eps2, ax, ay, az);
#endif
}

}  // namespace nbl::bh
