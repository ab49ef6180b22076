// Conservation diagnostics and force errors. Energies, momenta and the reference accelerations are
// computed in double. For large n the potential energy is estimated from a random sample of bodies
// and reported with its standard error, so the panel and bench can say how exact the figure is.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/bodies.hpp"

namespace nbl {

struct EnergyReport {
  double kinetic = 0;
  double potential = 0;
  double total = 0;
  double potential_error = 0;  // one standard error of the sampled estimate; 0 when exact
  bool sampled = false;
  std::string method;  // how it was computed, in words for the panel and bench ("exact pair sum, GPU ...")
  double virial_ratio() const { return potential != 0 ? 2 * kinetic / -potential : 0; }  // 2K/|W|
};

// Exact O(n^2) when n <= exact_limit, else sampled over `samples` random bodies (seeded).
EnergyReport energy(const Bodies& bodies, double softening, std::size_t exact_limit = 20000, std::size_t samples = 4096,
                    std::uint64_t seed = 7);

std::array<double, 3> linear_momentum(const Bodies& bodies);
std::array<double, 3> angular_momentum(const Bodies& bodies);

// Direct-sum accelerations in double for the bodies listed in `indices` (all bodies when empty).
// THE reference every GPU and CPU path is checked against. OpenMP-parallel.
Accelerations reference_accelerations(const Bodies& bodies, double softening,
                                      const std::vector<std::size_t>& indices = {});

// `count` distinct body indices drawn with a seeded RNG (all of them, in order, when count >= n).
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed);

// Force error of `approx` against `reference` (same bodies, same order), two ways.
// Per body relative: |a - a_ref| / |a_ref|; summarised as RMS, median, 99th percentile and max, plus
// the global relative norm ||a - a_ref|| / ||a_ref|| over all components.
// RMS-normalized: |a - a_ref| / sqrt(mean_j |a_ref,j|^2), the error against the typical acceleration
// of the sample (reference_rms) rather than the body's own. Where the pulls on a body nearly cancel
// (the middle of a line of bodies, the centre of a sphere) |a_ref| is tiny and the per-body figure
// blows up although the approximation is no worse there; the normalized figure does not. Its RMS
// equals relative_norm by construction.
// Any NaN or inf in `approx` or `reference` sets non_finite and makes every figure infinite, so it can
// never pass a tolerance.
struct ForceError {
  double relative_norm = 0;
  double rms = 0, median = 0, p99 = 0, max = 0;
  double reference_rms = 0;  // sqrt(mean |a_ref|^2) over the sample
  double normalized_rms = 0, normalized_median = 0, normalized_p99 = 0, normalized_max = 0;
  std::size_t count = 0;
  bool non_finite = false;
};
ForceError force_error(const Accelerations& approx, const Accelerations& reference);

// Picks rows `indices` out of a full accelerations array.
Accelerations select(const Accelerations& all, const std::vector<std::size_t>& indices);

// The scene's own speed scale, sqrt(G M / R) in N-body units (G = 1): M the total mass, R the
// half-mass radius about the mass-weighted median position (per axis). A virialised cluster's bodies
// move at about this speed. Medians rather than the centre of mass and an RMS radius, so that one far
// body (a Plummer sphere plus one body at 1e20) does not set the scale: a mean-based radius would be
// about 1e20 / sqrt(n) there, and the sphere's own bodies would look a million times too fast.
// Infinite when R is 0 (one body, or half the mass at one point), 0 when M is 0.
double virial_speed(const Bodies& bodies);

// True when every position, velocity and mass is finite.
bool all_finite(const Bodies& bodies);

}  // namespace nbl
