// The all-pairs kernels' parameters, defined once for both sides: NVRTC compiles it into every kernel
// and the host backend (cuda/allpairs_backend.cpp) fills the same structs, so the two cannot disagree
// on a field's offset. Plain C++ without standard headers (NVRTC has none).
#pragma once

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
typedef float4 nbl_float4;
#else
struct alignas(16) nbl_float4 {
  float x, y, z, w;
};
#endif

namespace nbl {
namespace allpairs {

// One body in the array-of-structs layout, as the tutorial's `struct Body` (reference 000, Part I:
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
// argument, or copied once into __constant__ memory (the `params` toggle; reference 000, Part I:
// "Constant Kernel Parameters").
template <class BodiesT, class Real>
struct Params {
  BodiesT bodies;
  Real *ax, *ay, *az;           // accelerations: the force kernel's result, the kicks' input
  Real *force_x, *force_y, *force_z;  // where the force kernel writes: the accelerations, or one
                                      // partial sum per j-slice (n apart) when the j range is split
  int* status;                  // set to 1 by the kick kernel when a NaN or inf appears
  int n;                        // bodies
  int i_end;                    // forces are computed for bodies [0, i_end): n, or a timed sample
  int j_slice;                  // sources per j-slice (gridDim.y slices cover [0, n))
  int pad_;
  Real eps2;                    // softening length squared
  float dt, half_dt;
};

// The colour key modes, numbered as ColorMode in sim/settings.hpp (the backend checks they agree).
enum ColorKeyMode { kKeySpeed = 0, kKeyAcceleration, kKeyMass, kKeyBodyIndex, kKeyWarpId, kKeyTreeDepth };

// What the vertex kernel writes (sim/render_vertices.hpp): n float4 (x, y, z, mass), then n colour keys.
struct VertexParams {
  nbl_float4* position;
  float* color_key;
  int mode;           // ColorMode (sim/settings.hpp) as an int
  int n;
  float speed_scale;  // key = v / (v + scale): a typical speed maps to one half
  float accel_scale;
  float mass_max;
  int bodies_per_block;  // the force kernel's mapping of bodies to warps (warp colour mode)
  int block_size;
  int pad_;
};

}  // namespace allpairs
}  // namespace nbl
