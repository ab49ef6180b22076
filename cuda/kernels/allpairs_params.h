// The all-pairs kernels' parameters, defined once for both sides: NVRTC compiles it into every kernel
// and the host backend (cuda/allpairs/backend.cpp) fills the same structs, so the two cannot disagree
// on a field's offset. Plain C++ without standard headers (NVRTC has none).
#pragma once

#include "kernel_signature.h"

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
typedef float4 nbl_float4;
#else
struct alignas(16) nbl_float4 {
  float x, y, z, w;
};
#endif

namespace nbl {
namespace allpairs {

// One body in the array-of-structs layout, as the `struct Body` of Burtscher's CUDA optimization tutorial (Part I:
// "Force Calculation C Code"); the accelerations live apart from it, in every layout.
struct BodyRecord {
  float mass, x, y, z;
  float vx, vy, vz;
};

// The three body layouts (the `layout` toggle). Only the force kernel's inner loop cares which one
// it reads; the O(n) kernels convert.
struct AosBodies {
  BodyRecord* body;
};
struct SoaBodies {
  float *x, *y, *z, *mass;
  float *vx, *vy, *vz;
};
struct Float4Bodies {
  nbl_float4* pos_mass;  // x, y, z, mass: one 16-byte load per body
  nbl_float4* vel;       // vx, vy, vz, unused
};

// Everything the kernels of one variant read besides the thread indices. Passed as the kernel
// argument, or copied once into __constant__ memory (the `params` toggle; the tutorial, Part I:
// "Constant Kernel Parameters").
template <class BodiesT, class Real>
struct Params {
  BodiesT bodies;
  Real *ax, *ay, *az;                 // accelerations: the force kernel's result, the kicks' input
  Real *force_x, *force_y, *force_z;  // where the force kernel writes: the accelerations, or one
                                      // partial sum per j-slice (n apart) when the j range is split
  int* status;                        // set to 1 by the kick kernel when a NaN or inf appears
  int n;                              // bodies
  int i_end;                          // forces are computed for bodies [0, i_end): n, or a timed sample
  int j_slice;                        // sources per j-slice (gridDim.y slices cover [0, n))
  // The first target body of this launch: 0, or where a slice of a sliced force pass begins (the lab's
  // StepControl, sim/backend.hpp: launches of a few milliseconds so the display draws between them).
  // A multiple of the bodies one block takes; the blocks' launch covers [i_first, i_end).
  int i_first;
  Real eps2;  // softening length squared
  float dt, half_dt;
};

// What the kernels take when their parameters sit in __constant__ memory (the `params` toggle): their
// launch's own targets, [i_first, i_end), and nothing else. The rest is the same for every launch of a
// configuration and is written there once; the range is not (a sliced force pass has two launches
// running at once, cuda/allpairs/force_pass.hpp).
struct LaunchRange {
  int i_first, i_end;
};

// The colour key modes, numbered as ColorMode in sim/settings.hpp (the backend checks they agree).
enum ColorKeyMode { kKeySpeed = 0, kKeyAcceleration, kKeyMass, kKeyBodyIndex, kKeyWarpId, kKeyTreeDepth };

// What the vertex kernel writes (sim/render_vertices.hpp): n float4 (x, y, z, mass), then n colour keys.
struct VertexParams {
  nbl_float4* position;
  float* color_key;
  int mode;  // ColorMode (sim/settings.hpp) as an int
  int n;
  float speed_scale;  // key = v / (v + scale): a typical speed maps to one half
  float accel_scale;
  float mass_max;
  int bodies_per_block;  // the force kernel's mapping of bodies to warps (warp colour mode)
  int block_size;
  int pad_;
};

// Every module of the all-pairs ladder has these kernels. Args is the variant's Params<...>, or LaunchRange
// with constant parameters (then c_params holds them).
inline constexpr const char* kParamsSymbol = "c_params";  // the __constant__ parameters
inline constexpr int kAdvanceBlockSize = 256;             // threads per block of the O(n) kernels
template <class Args>
inline constexpr KernelSignature<Args> kForceKernel{"allpairs_force"};
template <class Args>
inline constexpr KernelSignature<Args> kKickDriftKernel{"allpairs_kick_drift"};
template <class Args>
inline constexpr KernelSignature<Args> kKickKernel{"allpairs_kick"};
template <class Args>
inline constexpr KernelSignature<Args, int> kSumSlicesKernel{"allpairs_sum_slices"};
template <class Args>
inline constexpr KernelSignature<Args, VertexParams> kVerticesKernel{"allpairs_write_vertices"};

// The same layout on both sides: the host (g++) and NVRTC check the same sizes (NVRTC has no
// offsetof; the host also checks an offset).
static_assert(sizeof(BodyRecord) == 28 && sizeof(nbl_float4) == 16, "body layouts changed");
static_assert(sizeof(VertexParams) == 48, "VertexParams changed: update the sizes here on purpose");
static_assert(sizeof(Params<Float4Bodies, float>) == 104 && sizeof(Params<SoaBodies, double>) == 144,
              "Params changed: update the sizes here on purpose");
#if !defined(__CUDACC_RTC__)
static_assert(__builtin_offsetof(VertexParams, speed_scale) == 24 &&
              __builtin_offsetof(Params<AosBodies, float>, eps2) == 80);
#endif

}  // namespace allpairs
}  // namespace nbl
