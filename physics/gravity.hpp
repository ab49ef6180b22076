// The one definition of the force law: Plummer-softened Newtonian gravity in N-body units (G = 1).
// Used by the CPU reference, the CPU backends and every GPU kernel (nvcc and NVRTC alike), so the
// reference and the kernels cannot drift apart. The kernel toggles "rsqrt" and "fma_order" are template
// parameters here: they change the instructions, never the law.
#pragma once
#include "physics/hd.hpp"

namespace nbl {

// Acceleration that body j (mass_j, at offset dx, dy, dz from body i) adds to body i:
//   a_i += m_j * d / (|d|^2 + eps^2)^(3/2)
// FastRsqrt: use the hardware reciprocal square root (Burtscher's CUDA optimization tutorial, Part I: "Using the RSQRTF
// instruction") instead of 1/sqrt. FmaOrder: group the sum as dx*dx + (dy*dy + (dz*dz + eps2)) so the
// compiler can fuse every multiply-add (the tutorial, Part I: "Rearranging terms").
// With eps2 > 0 a body's interaction with itself adds exactly zero (d = 0), which is what lets the
// kernels drop the `if (i != j)` test ("Eliminating the if statement").
template <bool FastRsqrt = false, bool FmaOrder = false, typename T>
NBL_HD inline void accumulate_acceleration(T dx, T dy, T dz, T mass_j, T eps2, T& ax, T& ay, T& az) {
  T dist2;
  if constexpr (FmaOrder) {
    dist2 = dx * dx + (dy * dy + (dz * dz + eps2));
  } else {
    dist2 = dx * dx + dy * dy + dz * dz + eps2;
  }
  T inv_dist;
  if constexpr (FastRsqrt) {
    inv_dist = nbl_rsqrt_fast(dist2);
  } else {
    inv_dist = T(1) / nbl_sqrt(dist2);
  }
  const T scale = mass_j * inv_dist * inv_dist * inv_dist;
  ax += dx * scale;
  ay += dy * scale;
  az += dz * scale;
}

// A cell's quadrupole moment about its centre of mass, traceless and symmetric:
//   Q = sum_k m_k (3 d_k d_k^T - |d_k|^2 I),  d_k = x_k - com
// stored as five numbers (Q_zz = -Q_xx - Q_yy), and the trace of its second moments, sum_k m_k |d_k|^2,
// which the traceless Q drops and softening needs (accumulate_quadrupole). From the cell's second
// moments about its centre of mass (S = sum_k m_k d_k d_k^T): Q = 3 S - tr(S) I.
struct Quadrupole {
  float xx, yy, xy, xz, yz;
  float trace;  // tr(S) = sum_k m_k |d_k|^2
};

template <typename T>
NBL_HD inline Quadrupole quadrupole_from_second_moments(T sxx, T syy, T szz, T sxy, T sxz, T syz) {
  const T trace = sxx + syy + szz;
  return {static_cast<float>(T(3) * sxx - trace), static_cast<float>(T(3) * syy - trace),
          static_cast<float>(T(3) * sxy),         static_cast<float>(T(3) * sxz),
          static_cast<float>(T(3) * syz),         static_cast<float>(trace)};
}

// Acceleration that a cell (mass m at its centre of mass, quadrupole Q and trace tr(S) about it) adds
// to a body at offset (dx, dy, dz) = com - body: the monopole above plus the quadrupole's term, the
// next order of the multipole expansion of the softened potential (the dipole vanishes about the
// centre of mass). With r^2 = |d|^2 + eps^2:
//   a = m d / r^3 - Q d / r^5 + (5/2) (d.Q.d - tr(S) eps^2) d / r^7
// minus the gradient of the potential -m/r - (d.Q.d - tr(S) eps^2) / (2 r^5), which is the second-order
// Taylor term of sum_k m_k phi(d + d_k) for the Plummer-softened phi = -1/sqrt(|x|^2 + eps^2). The
// tr(S) eps^2 term is softening's own: without it (the unsoftened law with r softened) a cell a few eps
// away gets a quadrupole correction wrong by order eps^2/r^2 of itself, and on the CPU backend bodies
// on a plane were then no more accurate than with monopoles (RMS-normalized p99 3.1e-3 against 4.9e-3 at
// theta 0.5; 6.0e-4 with it). The monopole's error for a cell of edge s at distance d is of order
// (s/d)^2 of its pull, the quadrupole's of order (s/d)^3: the same accuracy at a larger opening angle.
//
// Evaluated as a = w [u (m + (5/2) w (u.Q.u - tr(S) eps^2 w)) - w Q u] with u = d / r and w = 1 / r^2:
// every factor inside the brackets stays of the order of the cell's mass (|u| <= 1, and w Q is of order
// m (s/r)^2), so nothing overflows where the monopole does not, far (w underflows to 0) or near. Written with d^5 and d^7 instead, a
// far outlier (d = 1e20, d^2 overflows float) gave (d.Q.d) = inf times 1/r^7 = 0: NaN, where the
// monopole gives 0. About 35 instructions on the GPU against the monopole's 13.
template <bool FastRsqrt = false, typename T>
NBL_HD inline void accumulate_quadrupole(T dx, T dy, T dz, T mass, T qxx, T qyy, T qxy, T qxz, T qyz, T trace, T eps2,
                                         T& ax, T& ay, T& az) {
  const T dist2 = dx * dx + (dy * dy + (dz * dz + eps2));
  T inv;
  if constexpr (FastRsqrt) {
    inv = nbl_rsqrt_fast(dist2);
  } else {
    inv = T(1) / nbl_sqrt(dist2);
  }
  const T w = inv * inv;                                // 1 / r^2
  const T ux = dx * inv, uy = dy * inv, uz = dz * inv;  // d / r
  const T qzz = -(qxx + qyy);
  const T qux = qxx * ux + (qxy * uy + qxz * uz);  // Q u
  const T quy = qxy * ux + (qyy * uy + qyz * uz);
  const T quz = qxz * ux + (qyz * uy + qzz * uz);
  const T uqu = ux * qux + (uy * quy + uz * quz);  // u.Q.u
  const T radial = mass + T(2.5) * w * (uqu - trace * eps2 * w);
  ax += w * (ux * radial - w * qux);  // the Q u term carries one more 1/r^2
  ay += w * (uy * radial - w * quy);
  az += w * (uz * radial - w * quz);
}

// Adaptive moments (the bh_moments toggle's third choice): a far cell keeps its monopole when the
// opening test at this share of theta accepts it too, and adds its quadrupole only otherwise, near the
// opening limit, where a monopole errs most (its error grows as (size / distance)^2). Both errors are of
// one size near theta = 0.65 (0.45^2 against 0.65^3), and a bit over half the cells a quadrupole walk
// accepts stay monopoles (a quadrupole costs about 2.5 monopoles). One constant for both backends.
inline constexpr float kAdaptiveMonopoleShare = 0.7f;

// Relative opening (the bh_opening toggle's second choice and the default; after the criterion of
// Springel 2005, GADGET-2, extended to pick a cell's moments): instead of one angle for every cell, a
// cell is accepted when the error it would make is a small share, the tolerance, of the pull bodies
// feel. A monopole errs by about m s^2 / d^4 and a quadrupole by about m s^3 / d^5 (cell mass m, size
// s, distance d), so a light cell far out in a sphere's halo is accepted at a wide angle and a heavy
// one near the core only at a narrow one, where an angle spends the same accuracy on both.
// The pull is the RMS acceleration of all bodies in the previous force pass (so the first pass of a
// new state opens by angle), not each body's own as in GADGET-2: the error is then bounded in the
// units the accuracy is judged in (relative to the sample's RMS acceleration, diagnostics.hpp), and
// no body is held to a share of a pull that is large (near a heavy clump) or vanishes (where pulls
// cancel). With each body's own pull (the smallest of its group's), bodies next to a tenth of the
// mass at one point erred 2.7x as much as the sphere's worst on that metric, bodies around a
// cancelling centre paid 2.1x the sphere's walk, and five of the eight CPU geometry tests failed a
// bound in ten runs; with the RMS none did, for the same or fewer interactions on a sphere and a
// collision (docs/performance.md, "Opening cells by their error, relative to the RMS pull").
// - No cell is accepted above kRelativeMaxAngle, where the expansion stops converging, and one the
//   angle kRelativeFloorAngle accepts always is (a bound on the walk when every pull vanishes).
// - A monopole is used where its error is below kRelativeMonopoleShare of the budget, a quadrupole
//   where its own is below the whole budget: the quadrupole's error term runs smaller than its estimate
//   by about that share (0.3 gave half the p99 of 1.0 for 1.15x the arithmetic, CPU backend).
inline constexpr float kRelativeMaxAngle = 1.0f;
inline constexpr float kRelativeFloorAngle = 0.1f;
inline constexpr float kRelativeMonopoleShare = 0.3f;
enum class Acceptance { open, monopole, quadrupole };
// size2: the cell's opening size squared (opening_stretch, opening_size; negative for a cell that is
// one point mass, +inf for one that must be opened); dist2: its centre of mass's squared distance;
// budget: relative_budget below; quadrupoles: whether the walk may use them.
template <typename T>
NBL_HD inline Acceptance relative_acceptance(T size2, T dist2, T mass, T budget, bool quadrupoles) {
  if (!(size2 < T(kRelativeMaxAngle * kRelativeMaxAngle) * dist2)) return Acceptance::open;
  if (size2 < T(0)) return Acceptance::monopole;  // a deepest cell of unresolved bodies: one point mass
  const T ratio2 = size2 / dist2;                 // dist2 > 0 here
  const T error = mass * ratio2;                  // the monopole's error times d^2
  const T allowed = budget * dist2;
  if (error < T(kRelativeMonopoleShare) * allowed) return Acceptance::monopole;
  const bool floor = size2 < T(kRelativeFloorAngle * kRelativeFloorAngle) * dist2;
  if (!quadrupoles) return floor ? Acceptance::monopole : Acceptance::open;
  // The quadrupole's error, m s^3 / d^5, is the monopole's times s / d: compared squared, no root.
  if (error * error * ratio2 < allowed * allowed || floor) return Acceptance::quadrupole;
  return Acceptance::open;
}

// A light cell, with relative opening: whatever its angle, a cell's monopole errs by at
// most 2 m / D^2 at a body D from the cell's cube (each of its bodies pulls with at most m_j / D^2, and
// the monopole, at the centre of mass inside the cube, with at most m / D^2). Where that bound is below
// kRelativeMonopoleShare of the budget, the share a monopole's estimated error may take, the cell is
// accepted as a monopole although relative_acceptance opens it. Such cells are the sparse ones: a
// few stars ejected from a collision fill cells around the bulk at every scale they reach, and no
// angle test may accept a cell as wide as its distance, so every body's walk opened them level by
// level. On the CPU backend, 1% of a 100k Plummer sphere's bodies spread out to radius 10,000 cost
// each sphere body 59% more interactions; with light cells none, and the sphere's own sparse halo
// gets cheaper too (docs/performance.md, "Light cells: what ejecta cost").
// gap2: the squared distance from the body (or the nearest point of a group's box) to the cell's
// cube; with the distance to its centre of mass instead (never smaller) it tells whether the cube is
// worth looking up.
template <typename T>
NBL_HD inline bool light_cell(T mass, T gap2, T budget) {
  return T(2) * mass < T(kRelativeMonopoleShare) * budget * gap2;
}

// The bh_tolerance toggle counts in this unit (its default, 80, is 0.8%).
inline constexpr float kToleranceUnit = 1e-4f;
// The error one accepted cell may make: the tolerance (in kToleranceUnit) times the RMS acceleration.
NBL_HD inline float relative_budget(int tolerance, float rms_accel) {
  return static_cast<float>(tolerance) * kToleranceUnit * rms_accel;
}

// Softened pair potential energy of bodies i and j: -m_i m_j / sqrt(|d|^2 + eps^2). Consistent with the
// force above (the force is minus its gradient), so total energy is conserved by the exact dynamics.
template <typename T>
NBL_HD inline T pair_potential(T dist2, T mass_i, T mass_j, T eps2) {
  return -mass_i * mass_j / nbl_sqrt(dist2 + eps2);
}

// Barnes-Hut opening criterion (the tutorial, Part II, "Compute force"): a cell of edge length
// cell_size whose centre of mass lies dist2 (squared) from the body is far enough to stand in for its
// bodies when cell_size / distance < theta. Written without a division so theta = 0 opens every cell
// (exact direct summation) and no distance can divide by zero.
template <typename T>
NBL_HD inline bool cell_is_far(T dist2, T cell_size, T theta) {
  return cell_size * cell_size < theta * theta * dist2;
}

// The cell size the opening criterion uses, as a multiple of the cell's edge: 1 for a cell whose mass
// fills it in three dimensions, more for one whose mass lies along a line or in a plane. A monopole's
// leading error is the cell's quadrupole moment. Bodies that fill a cell have almost none (none by
// symmetry, up to the chance anisotropy of a few bodies), and their cells' small errors point every
// which way and partly cancel; a rod or a sheet has a large one, and along a line or in a plane every
// cell errs the same way. On the CPU backend at theta = 0.5, with the plain edge, the error relative
// to the RMS acceleration was 14x a Plummer sphere's for bodies on a line and 6x for bodies on a
// plane, and a disk galaxy's 99th-percentile error per body 3x. Stretching such cells' size restores
// the accuracy a given theta means: a line and a plane come within about 1.3x of a Plummer sphere,
// at a cost (interactions per body) that stays below the sphere's.
//
// Arguments: the cell's second moments of mass about its centre of mass (sum of m dx dx, m dy dy,
// m dz dz, m dx dy, m dx dz, m dy dz), its mass, its effective number of bodies (sum m)^2 / sum m^2,
// and its edge. With M those moments and Q = 3M - tr(M) I their traceless (quadrupole) part:
// - Shape: the anisotropy a^2 = |Q|^2 / tr(M)^2 is 0 for an isotropic cell, 1.5 for a sheet isotropic
//   in its plane and 6 for a rod. n bodies scattered uniformly at random in a cube show a^2 of about
//   7.6 / n by chance (8-10 / n below 16 bodies); twice that is taken off, so cells that fill space
//   keep their edge. What remains stretches the size linearly, a / 0.5: 4.9x for a rod, 2.4x for a
//   sheet.
// - Size: the monopole's relative error grows with |Q| / (mass edge^2), which is 0.204 for a rod or a
//   sheet that spans its cell, less for one that spans part of it, and next to nothing for a cell whose
//   mass sits at one point with a few light bodies around it (a shape that looks flat to the first
//   measure). The stretch is at most sqrt(|Q| / (mass edge^2) / 0.0085), which equals the first
//   measure for a rod that spans its cell.
template <typename T>
NBL_HD inline T opening_stretch(T xx, T yy, T zz, T xy, T xz, T yz, T mass, T effective_count, T edge) {
  const T trace = xx + yy + zz;
  if (!(trace > T(0)) || !(mass > T(0)) || !(effective_count > T(0)) || !(edge > T(0))) return T(1);
  const T frobenius2 = xx * xx + yy * yy + zz * zz + T(2) * (xy * xy + xz * xz + yz * yz);
  const T quadrupole2 = T(9) * frobenius2 - T(3) * trace * trace;  // |Q|^2
  const T systematic2 = quadrupole2 / (trace * trace) - T(15) / effective_count;
  if (!(systematic2 > T(0))) return T(1);
  const T by_shape = nbl_sqrt(systematic2) / T(0.5);
  const T by_size = nbl_sqrt(nbl_sqrt(quadrupole2) / (mass * edge * edge) / T(0.0085));
  const T stretch = by_shape < by_size ? by_shape : by_size;
  return stretch > T(1) ? stretch : T(1);
}

// A cell never counts as smaller than its reach, the farthest any of its bodies lies from its centre
// of mass: the opening test then accepts it only for bodies beyond reach / theta, outside all of its
// bodies for any theta below 1, where the expansion about the centre of mass converges. A cell its
// bodies fill evenly has them within half its diagonal, 0.87 of its edge, and keeps its size. One
// whose mass sits in a corner (a dense clump) has its centre of mass there and bodies up to 1.7 edges
// away; above theta = 1/sqrt(3) = 0.58 the size alone accepted it for bodies within that reach, where
// a quadrupole diverges: a thousand coincident bodies in a sphere of 10,000 gave max errors up to 6x
// the sphere's at theta 0.65 (CPU backend); with the reach, 0.6-0.8x, for 0.1-0.3% more interactions
// on the sphere. `size`: the edge as opening_stretch leaves it.
template <typename T>
NBL_HD inline T opening_size(T size, T reach) {
  return size > reach ? size : reach;
}

// Kick-drift-kick leapfrog (second order, symplectic, time reversible). One step of length dt:
//   v += a(x) dt/2;  x += v dt;  a = a(x);  v += a(x) dt/2
template <typename T>
NBL_HD inline void kick(T& v, T a, T half_dt) {
  v += a * half_dt;
}

template <typename T>
NBL_HD inline void drift(T& x, T v, T dt) {
  x += v * dt;
}

// Flops per body-body interaction, the convention every public n-body benchmark quotes (the tutorial,
// Part I, "CC 2.0 absolute performance": 3 sub, 3 fma, 1 rsqrt, 3 mul, 3 fma counted as 20 flops).
inline constexpr int kFlopsPerInteraction = 20;

}  // namespace nbl
