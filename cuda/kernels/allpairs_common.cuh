// What every all-pairs kernel file shares: the toggles turned into types and small helpers, so each
// kernel file shows only its own idea. The switchboard (cuda/allpairs/variant.cpp) defines one macro
// per toggle, named after it (NBL_LAYOUT, NBL_RSQRT, NBL_UNROLL, ...), plus one constant per choice
// (NBL_LAYOUT_FLOAT4, NBL_SELF_SOFTENING, ...). Nothing here tests a toggle at run time.
#pragma once
#include "allpairs_params.h"
#include "physics/gravity.hpp"

#if !defined(NBL_LAYOUT) || !defined(NBL_PARAMS) || !defined(NBL_RSQRT) || !defined(NBL_SELF) ||                      \
    !defined(NBL_UNROLL) || !defined(NBL_FMA_ORDER) || !defined(NBL_BODIES_PER_THREAD) || !defined(NBL_BLOCK_SIZE) || \
    !defined(NBL_PRECISION)
#error "all-pairs kernels are compiled through the switchboard, which defines one NBL_* macro per toggle"
#endif

using nbl::allpairs::BodyRecord;
using nbl::allpairs::VertexParams;

// ---- precision: interactions in float, or in double from the same float positions ----
#if NBL_PRECISION == NBL_PRECISION_FP64
typedef double real;
#else
typedef float real;
#endif

constexpr int kBlockSize = NBL_BLOCK_SIZE;
constexpr int kBodiesPerThread = NBL_BODIES_PER_THREAD;
constexpr bool kFastRsqrt =
    NBL_RSQRT != 0;  // Burtscher's CUDA optimization tutorial, Part I: "Using the RSQRTF Instruction"
constexpr bool kFmaOrder = NBL_FMA_ORDER != 0;  // the tutorial, Part I: "Rearranging Terms"

// ---- layout: how a body's position and mass are read (the tutorial, Part I: "Using Scalar Arrays") ----
#if NBL_LAYOUT == NBL_LAYOUT_AOS
typedef nbl::allpairs::AosBodies Bodies;
__device__ inline float4 load_source(const Bodies& b, int j) {
  const BodyRecord& r = b.body[j];
  return make_float4(r.x, r.y, r.z, r.mass);
}
#elif NBL_LAYOUT == NBL_LAYOUT_SOA
typedef nbl::allpairs::SoaBodies Bodies;
__device__ inline float4 load_source(const Bodies& b, int j) { return make_float4(b.x[j], b.y[j], b.z[j], b.mass[j]); }
#else
typedef nbl::allpairs::Float4Bodies Bodies;
__device__ inline float4 load_source(const Bodies& b, int j) { return b.pos_mass[j]; }  // one 16-byte load
#endif

// ---- parameters: a kernel argument, or __constant__ memory written once per configuration ----
typedef nbl::allpairs::Params<Bodies, real> KernelParams;
#if NBL_PARAMS == NBL_PARAMS_CONSTANT
using nbl::allpairs::LaunchRange;  // the kernels take their targets: n, softening and the pointers sit in c_params
typedef LaunchRange KernelArgs;
__constant__ KernelParams c_params;
__device__ inline const KernelParams& params(const LaunchRange&) { return c_params; }
__device__ inline LaunchRange targets_of(const LaunchRange& r) { return r; }
#else
typedef KernelParams KernelArgs;
__device__ inline const KernelParams& params(const KernelParams& p) { return p; }
__device__ inline nbl::allpairs::LaunchRange targets_of(const KernelParams& p) { return {p.i_first, p.i_end}; }
#endif

// ---- the bodies one thread computes ----
// kBodiesPerThread of them, in registers: every source body the thread reads serves all of them
// (register blocking; Volkov, "Better Performance at Lower Occupancy": more independent work per
// thread instead of more threads).
struct Targets {
  real x[kBodiesPerThread], y[kBodiesPerThread], z[kBodiesPerThread];
  real ax[kBodiesPerThread], ay[kBodiesPerThread], az[kBodiesPerThread];
  int index[kBodiesPerThread];
};

// Bodies first, first + stride, ...: a warp's k-th bodies are adjacent, so loads and stores coalesce.
// Indices past the end read the last body, so that thread still helps with tiles and barriers; it
// stores nothing.
__device__ inline Targets load_targets(const KernelParams& p, int first, int stride) {
  Targets t;
#pragma unroll
  for (int k = 0; k < kBodiesPerThread; ++k) {
    const int i = first + k * stride;
    const float4 b = load_source(p.bodies, min(i, p.n - 1));
    t.x[k] = b.x;
    t.y[k] = b.y;
    t.z[k] = b.z;
    t.ax[k] = t.ay[k] = t.az[k] = 0;
    t.index[k] = i;
  }
  return t;
}

// Writes the accelerations (or this j-slice's partial sums: slice blockIdx.y, n apart) of the targets
// before `end`.
__device__ inline void store_targets(const KernelParams& p, const Targets& t, int end) {
  const unsigned long long slice = static_cast<unsigned long long>(blockIdx.y) * p.n;
#pragma unroll
  for (int k = 0; k < kBodiesPerThread; ++k) {
    const int i = t.index[k];
    if (i < end) {
      p.force_x[slice + i] = t.ax[k];
      p.force_y[slice + i] = t.ay[k];
      p.force_z[slice + i] = t.az[k];
    }
  }
}

// The source bodies this block visits: slice blockIdx.y of [0, n). The host splits the j range when
// there are too few blocks along i to fill every SM (small n, many bodies per thread).
struct SourceRange {
  int begin, end;
};
__device__ inline SourceRange source_range(const KernelParams& p) {
  const int begin = static_cast<int>(blockIdx.y) * p.j_slice;
  return {begin, min(p.n, begin + p.j_slice)};
}

// ---- interactions: THE force law, physics/gravity.hpp ----
__device__ inline void interact(Targets& t, int k, float4 s, real eps2) {
  nbl::accumulate_acceleration<kFastRsqrt, kFmaOrder>(real(s.x) - t.x[k], real(s.y) - t.y[k], real(s.z) - t.z[k],
                                                      real(s.w), eps2, t.ax[k], t.ay[k], t.az[k]);
}
__device__ inline void interact_all(Targets& t, float4 s, real eps2) {
#pragma unroll
  for (int k = 0; k < kBodiesPerThread; ++k) interact(t, k, s, eps2);
}
__device__ inline void interact_all_but_self(Targets& t, float4 s, int j, real eps2) {
#pragma unroll
  for (int k = 0; k < kBodiesPerThread; ++k)
    if (t.index[k] != j) interact(t, k, s, eps2);
}
// The first of this thread's bodies in [from, end), or end.
__device__ inline int next_own_body(const Targets& t, int from, int end) {
  int next = end;
#pragma unroll
  for (int k = 0; k < kBodiesPerThread; ++k)
    if (t.index[k] >= from && t.index[k] < next) next = t.index[k];
  return next;
}

// The inner loop: the thread's bodies against sources first_j .. first_j + count - 1, where
// source(jj) fetches source first_j + jj from wherever the kernel staged it (global memory, a
// shared tile, another lane). How a body skips itself is the self_interaction toggle.
template <class SourceAt>
__device__ inline void interact_run(Targets& t, SourceAt source, int first_j, int count, real eps2) {
#if NBL_SELF == NBL_SELF_SOFTENING
  // The tutorial, Part I: "Eliminating the If Statement": with softening > 0 a body's pull on
  // itself is exactly zero (d = 0), so no test is needed at all.
#pragma unroll NBL_UNROLL
  for (int jj = 0; jj < count; ++jj) interact_all(t, source(jj), eps2);
#elif NBL_SELF == NBL_SELF_BRANCH
  // The tutorial's `if (i != j)` in the inner loop.
#pragma unroll NBL_UNROLL
  for (int jj = 0; jj < count; ++jj) interact_all_but_self(t, source(jj), first_j + jj, eps2);
#else
  // The tutorial, Part I: "Using 2 Loops to Avoid If Statement": test-free loops up to each of the
  // thread's own bodies, stepping over it.
  int jj = 0;
  while (jj < count) {
    const int stop = next_own_body(t, first_j + jj, first_j + count) - first_j;
#pragma unroll NBL_UNROLL
    for (int j2 = jj; j2 < stop; ++j2) interact_all(t, source(j2), eps2);
    jj = stop;
    if (jj < count) {
      interact_all_but_self(t, source(jj), first_j + jj, eps2);
      ++jj;
    }
  }
#endif
}

__device__ inline bool is_finite(float x) { return fabsf(x) < __int_as_float(0x7f800000); }

// The O(n) kernels every variant module carries: kick-drift-kick and the vertex buffer.
#include "allpairs_advance.cuh"
