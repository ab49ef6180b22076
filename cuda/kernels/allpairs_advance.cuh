// The O(n) kernels that travel with every force variant (Burtscher's CUDA optimization tutorial, Part I: "C to CUDA
// Conversion": the force kernel plus an AdvancingKernel), compiled with the same layout and
// parameter macros so they read the bodies the way the force kernel does. Kick-drift-kick leapfrog
// with the physics/gravity.hpp kick() and drift(); they cost well under 1% of a step.
#pragma once
#include "physics/color_keys.hpp"

using nbl::allpairs::kAdvanceBlockSize;

struct Motion {
  float x, y, z, vx, vy, vz;
};

#if NBL_LAYOUT == NBL_LAYOUT_AOS
__device__ inline Motion load_motion(const Bodies& b, int i) {
  const BodyRecord& r = b.body[i];
  return {r.x, r.y, r.z, r.vx, r.vy, r.vz};
}
__device__ inline void store_motion(const Bodies& b, int i, const Motion& m) {
  BodyRecord& r = b.body[i];
  r.x = m.x, r.y = m.y, r.z = m.z, r.vx = m.vx, r.vy = m.vy, r.vz = m.vz;
}
#elif NBL_LAYOUT == NBL_LAYOUT_SOA
__device__ inline Motion load_motion(const Bodies& b, int i) {
  return {b.x[i], b.y[i], b.z[i], b.vx[i], b.vy[i], b.vz[i]};
}
__device__ inline void store_motion(const Bodies& b, int i, const Motion& m) {
  b.x[i] = m.x, b.y[i] = m.y, b.z[i] = m.z, b.vx[i] = m.vx, b.vy[i] = m.vy, b.vz[i] = m.vz;
}
#else
__device__ inline Motion load_motion(const Bodies& b, int i) {
  const float4 p = b.pos_mass[i], v = b.vel[i];
  return {p.x, p.y, p.z, v.x, v.y, v.z};
}
__device__ inline void store_motion(const Bodies& b, int i, const Motion& m) {
  const float mass = b.pos_mass[i].w;
  b.pos_mass[i] = make_float4(m.x, m.y, m.z, mass);
  b.vel[i] = make_float4(m.vx, m.vy, m.vz, 0.0f);
}
#endif

// First half of the step: v += a dt/2 with the accelerations of the last force pass, then x += v dt.
extern "C" __global__ void __launch_bounds__(kAdvanceBlockSize) allpairs_kick_drift(const KernelArgs args) {
  const KernelParams& p = params(args);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  Motion m = load_motion(p.bodies, i);
  nbl::kick(m.vx, float(p.ax[i]), p.half_dt);
  nbl::kick(m.vy, float(p.ay[i]), p.half_dt);
  nbl::kick(m.vz, float(p.az[i]), p.half_dt);
  nbl::drift(m.x, m.vx, p.dt);
  nbl::drift(m.y, m.vy, p.dt);
  nbl::drift(m.z, m.vz, p.dt);
  store_motion(p.bodies, i, m);
}

// Second half: v += a dt/2 with the new accelerations. Also the blow-up detector: any NaN or inf in
// the new state raises p.status, which the host reads once per step (it is waiting for the step's
// timing events anyway).
extern "C" __global__ void __launch_bounds__(kAdvanceBlockSize) allpairs_kick(const KernelArgs args) {
  const KernelParams& p = params(args);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  Motion m = load_motion(p.bodies, i);
  nbl::kick(m.vx, float(p.ax[i]), p.half_dt);
  nbl::kick(m.vy, float(p.ay[i]), p.half_dt);
  nbl::kick(m.vz, float(p.az[i]), p.half_dt);
  store_motion(p.bodies, i, m);
  if (!(is_finite(m.x) && is_finite(m.y) && is_finite(m.z) && is_finite(m.vx) && is_finite(m.vy) && is_finite(m.vz)))
    *p.status = 1;
}

// Adds the partial accelerations of the j-slices in slice order: deterministic, unlike atomics.
extern "C" __global__ void __launch_bounds__(kAdvanceBlockSize) allpairs_sum_slices(const KernelArgs args, int slices) {
  const KernelParams& p = params(args);
  const auto launch = targets_of(args);
  const int i = launch.i_first + blockIdx.x * blockDim.x + threadIdx.x;  // the targets of this launch
  if (i >= launch.i_end) return;
  real sx = 0, sy = 0, sz = 0;
  for (int s = 0; s < slices; ++s) {
    const unsigned long long at = static_cast<unsigned long long>(s) * p.n + i;
    sx += p.force_x[at];
    sy += p.force_y[at];
    sz += p.force_z[at];
  }
  p.ax[i] = sx;
  p.ay[i] = sy;
  p.az[i] = sz;
}

// The renderer's vertex buffer (sim/render_vertices.hpp): position and mass, then a colour key in
// [0, 1] as physics/color_keys.hpp defines it for every backend.
extern "C" __global__ void __launch_bounds__(kAdvanceBlockSize)
    allpairs_write_vertices(const KernelArgs args, const VertexParams v) {
  const KernelParams& p = params(args);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  const Motion m = load_motion(p.bodies, i);
  const float mass = load_source(p.bodies, i).w;
  v.position[i] = make_float4(m.x, m.y, m.z, mass);
  float key = 0.0f;
  switch (v.mode) {
    case nbl::allpairs::kKeySpeed:
      key = nbl::magnitude_key(sqrtf(m.vx * m.vx + m.vy * m.vy + m.vz * m.vz), v.speed_scale);
      break;
    case nbl::allpairs::kKeyAcceleration: {
      const float ax = float(p.ax[i]), ay = float(p.ay[i]), az = float(p.az[i]);
      key = nbl::magnitude_key(sqrtf(ax * ax + ay * ay + az * az), v.accel_scale);
      break;
    }
    case nbl::allpairs::kKeyMass: key = nbl::mass_key(mass, v.mass_max); break;
    case nbl::allpairs::kKeyBodyIndex: key = nbl::order_key(i, v.n); break;
    case nbl::allpairs::kKeyWarpId: {
      // The warp that computes body i in the force kernel: body i sits in block i / bodies_per_block
      // at thread i % block_size.
      const int block = i / v.bodies_per_block, thread = i % v.block_size;
      key = nbl::warp_key(block * ((v.block_size + 31) / 32) + thread / 32);
      break;
    }
    default:  // tree depth: all-pairs has no tree
      key = 0.0f;
      break;
  }
  v.color_key[i] = key;
}

static_assert(
    nbl::kHasSignature<decltype(allpairs_kick_drift), decltype(nbl::allpairs::kKickDriftKernel<KernelArgs>)> &&
    nbl::kHasSignature<decltype(allpairs_kick), decltype(nbl::allpairs::kKickKernel<KernelArgs>)> &&
    nbl::kHasSignature<decltype(allpairs_sum_slices), decltype(nbl::allpairs::kSumSlicesKernel<KernelArgs>)> &&
    nbl::kHasSignature<decltype(allpairs_write_vertices), decltype(nbl::allpairs::kVerticesKernel<KernelArgs>)>);
