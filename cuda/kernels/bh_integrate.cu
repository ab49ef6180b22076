// Barnes-Hut kernel 6 of 6: advance the bodies (Burtscher's CUDA optimization tutorial, Part II, "Kernel 6: advance bodies").
// Kick-drift-kick leapfrog (physics/gravity.hpp): bh_kick_drift before the tree is built, bh_kick
// after the forces. Regular, fully coalesced streaming; both also watch for NaN/inf.
#include "bh_common.cuh"
#include "physics/color_keys.hpp"

using namespace nbl;
using namespace nbl::bh;

extern "C" __global__ void bh_kick_drift(Tree t) {
  const float half_dt = 0.5f * t.dt;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < t.n; i += blockDim.x * gridDim.x) {
    float4 p = t.node[i], v = t.vel[i];
    const float4 a = t.acc[i];
    kick(v.x, a.x, half_dt), kick(v.y, a.y, half_dt), kick(v.z, a.z, half_dt);
    drift(p.x, v.x, t.dt), drift(p.y, v.y, t.dt), drift(p.z, v.z, t.dt);
    t.node[i] = p;
    t.vel[i] = v;
  }
}

extern "C" __global__ void bh_kick(Tree t) {
  if (tree_failed(t.ctl)) return;  // no forces this time: the host rebuilds and runs us again
  const float half_dt = 0.5f * t.dt;
  bool bad = false;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < t.n; i += blockDim.x * gridDim.x) {
    float4 v = t.vel[i];
    const float4 a = t.acc[i];
    kick(v.x, a.x, half_dt), kick(v.y, a.y, half_dt), kick(v.z, a.z, half_dt);
    t.vel[i] = v;
    bad |= !isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z);
  }
  if (__any_sync(0xffffffffu, bad) && lane_id() == 0) atomicOr(&t.ctl->error, kErrorNonFinite);
}

// The renderer's vertex buffer (sim/render_vertices.hpp): n float4 (x, y, z, mass), then n colour
// keys as physics/color_keys.hpp defines them for every backend. mode: 0 speed, 1 acceleration,
// 2 mass, 3 body index, 4 warp id, 5 tree depth. `rank` (tree order of each body) may be null.

extern "C" __global__ void bh_write_vertices(Tree t, float4* positions, float* keys, int mode, VertexScales scales,
                                             const int* rank) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < t.n; i += blockDim.x * gridDim.x) {
    const float4 p = t.node[i];
    positions[i] = p;
    const int order = rank ? rank[i] : i;
    float key = 0.0f;
    switch (mode) {
      case 0: {
        const float4 v = t.vel[i];
        key = magnitude_key(sqrtf(v.x * v.x + v.y * v.y + v.z * v.z), scales.speed);
        break;
      }
      case 1: {
        const float4 a = t.acc[i];
        key = magnitude_key(sqrtf(a.x * a.x + a.y * a.y + a.z * a.z), scales.acceleration);
        break;
      }
      case 2: key = mass_key(p.w, scales.max_mass); break;
      case 3: key = order_key(order, t.n); break;
      case 4: key = warp_key(order >> 5); break;  // the force kernel's warps take 32 bodies in tree order
      case 5: key = depth_key(t.body_depth[i], scales.max_depth); break;
    }
    keys[i] = key;
  }
}

// rank[sorted[k]] = k: where each body sits in tree order (colour by body index or warp).
extern "C" __global__ void bh_rank(Tree t, int* rank) {
  if (tree_failed(t.ctl)) return;  // `sorted` holds no tree order this step
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < t.n; k += blockDim.x * gridDim.x) rank[t.sorted[k]] = k;
}

static_assert(nbl::kHasSignature<decltype(bh_kick_drift), decltype(kKickDriftKernel)> &&
              nbl::kHasSignature<decltype(bh_kick), decltype(kKickKernel)> &&
              nbl::kHasSignature<decltype(bh_write_vertices), decltype(kWriteVerticesKernel)> &&
              nbl::kHasSignature<decltype(bh_rank), decltype(kRankKernel)>);
