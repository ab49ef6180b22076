// The one inner loop of every CPU force path: the acceleration that a run of point masses (structure
// of arrays) exerts at one position, by the shared force law (physics/gravity.hpp). All-pairs sums
// all bodies with it, Barnes-Hut its interaction lists, the reference its rows in double; and its
// sibling for cells with quadrupole moments, Barnes-Hut's far cells when bh_moments is quadrupole.
// Internal to sim/.
#pragma once
#include <cstddef>

namespace nbl {

// Adds to (ax, ay, az) the acceleration at (xi, yi, zi) from masses [begin, end) of the arrays. With
// eps2 > 0 a mass at exactly (xi, yi, zi), the body itself included, adds exactly zero.
void sum_accelerations(const float* x, const float* y, const float* z, const float* mass, std::size_t begin,
                       std::size_t end, float xi, float yi, float zi, float eps2, float& ax, float& ay, float& az);
void sum_accelerations(const double* x, const double* y, const double* z, const double* mass, std::size_t begin,
                       std::size_t end, double xi, double yi, double zi, double eps2, double& ax, double& ay,
                       double& az);

// The same for unsoftened forces (eps2 = 0), where a mass at exactly (xi, yi, zi) would divide zero by
// zero: such masses are skipped (the body itself, and any body at its very position).
void sum_accelerations_apart(const float* x, const float* y, const float* z, const float* mass, std::size_t begin,
                             std::size_t end, float xi, float yi, float zi, float& ax, float& ay, float& az);

// Far cells with quadrupole moments, one array per quantity: centre of mass, mass, and the quadrupole
// about the centre of mass as physics/gravity.hpp's Quadrupole stores it (xx, yy, xy, xz, yz, trace).
struct QuadrupoleCells {
  const float *x, *y, *z, *mass, *qxx, *qyy, *qxy, *qxz, *qyz, *trace;
};

// Adds to (ax, ay, az) the acceleration at (xi, yi, zi) from cells [0, count) (accumulate_quadrupole).
// No cell may sit at (xi, yi, zi) when eps2 is 0: far cells never do.
void sum_quadrupole_accelerations(const QuadrupoleCells& cells, std::size_t count, float xi, float yi, float zi,
                                  float eps2, float& ax, float& ay, float& az);

}  // namespace nbl
