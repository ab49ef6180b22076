#include "sim/force_sums.hpp"

#include "physics/gravity.hpp"

// Compiled twice, for AVX2 and for the x86-64 baseline, and the loader picks what the CPU has (GCC
// and Clang function multi-versioning): the build stays portable and the CPU fallback still uses
// 8-wide vectors where it can. The reduction order, and so the last bits of a sum, follow the width.
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define NBL_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef NBL_VECTOR_CLONES
#define NBL_VECTOR_CLONES
#endif

namespace nbl {

namespace {

// omp simd lets the compiler reorder the three sums across vector lanes, which plain C++ forbids.
template <typename T>
inline void sum_range(const T* __restrict x, const T* __restrict y, const T* __restrict z, const T* __restrict mass,
                      std::size_t begin, std::size_t end, T xi, T yi, T zi, T eps2, T& ax, T& ay, T& az) {
  T sx = 0, sy = 0, sz = 0;
#pragma omp simd reduction(+ : sx, sy, sz)
  for (std::size_t j = begin; j < end; ++j) {
    accumulate_acceleration(x[j] - xi, y[j] - yi, z[j] - zi, mass[j], eps2, sx, sy, sz);
  }
  ax += sx;
  ay += sy;
  az += sz;
}

}  // namespace

NBL_VECTOR_CLONES
void sum_accelerations(const float* x, const float* y, const float* z, const float* mass, std::size_t begin,
                       std::size_t end, float xi, float yi, float zi, float eps2, float& ax, float& ay, float& az) {
  sum_range(x, y, z, mass, begin, end, xi, yi, zi, eps2, ax, ay, az);
}

NBL_VECTOR_CLONES
void sum_accelerations(const double* x, const double* y, const double* z, const double* mass, std::size_t begin,
                       std::size_t end, double xi, double yi, double zi, double eps2, double& ax, double& ay,
                       double& az) {
  sum_range(x, y, z, mass, begin, end, xi, yi, zi, eps2, ax, ay, az);
}

NBL_VECTOR_CLONES
void sum_accelerations_apart(const float* __restrict x, const float* __restrict y, const float* __restrict z,
                             const float* __restrict mass, std::size_t begin, std::size_t end, float xi, float yi,
                             float zi, float& ax, float& ay, float& az) {
  float sx = 0, sy = 0, sz = 0;
#pragma omp simd reduction(+ : sx, sy, sz)
  for (std::size_t j = begin; j < end; ++j) {
    const float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
    // A coincident mass becomes zero mass at unit distance: exactly zero, and no branch in the loop.
    const bool apart = dx * dx + dy * dy + dz * dz > 0;
    accumulate_acceleration(dx, dy, dz, apart ? mass[j] : 0.0f, apart ? 0.0f : 1.0f, sx, sy, sz);
  }
  ax += sx;
  ay += sy;
  az += sz;
}

NBL_VECTOR_CLONES
void sum_quadrupole_accelerations(const QuadrupoleCells& cells, std::size_t count, float xi, float yi, float zi,
                                  float eps2, float& ax, float& ay, float& az) {
  const float* __restrict x = cells.x;
  const float* __restrict y = cells.y;
  const float* __restrict z = cells.z;
  const float* __restrict mass = cells.mass;
  const float* __restrict qxx = cells.qxx;
  const float* __restrict qyy = cells.qyy;
  const float* __restrict qxy = cells.qxy;
  const float* __restrict qxz = cells.qxz;
  const float* __restrict qyz = cells.qyz;
  const float* __restrict trace = cells.trace;
  float sx = 0, sy = 0, sz = 0;
#pragma omp simd reduction(+ : sx, sy, sz)
  for (std::size_t j = 0; j < count; ++j) {
    accumulate_quadrupole(x[j] - xi, y[j] - yi, z[j] - zi, mass[j], qxx[j], qyy[j], qxy[j], qxz[j], qyz[j], trace[j],
                          eps2, sx, sy, sz);
  }
  ax += sx;
  ay += sy;
  az += sz;
}

}  // namespace nbl
