#include "sim/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>
#include <utility>

#include "physics/gravity.hpp"
#include "sim/error.hpp"
#include "sim/force_sums.hpp"
#include "sim/random.hpp"

namespace nbl {

namespace {

// Positions and masses widened to double once, so the O(n^2) loops below convert nothing.
struct DoubleBodies {
  std::vector<double> x, y, z, mass;
  explicit DoubleBodies(const Bodies& b)
      : x(b.x.begin(), b.x.end()),
        y(b.y.begin(), b.y.end()),
        z(b.z.begin(), b.z.end()),
        mass(b.mass.begin(), b.mass.end()) {}
};

// Potential of body i from bodies [begin, end), per unit mass of i.
inline double potential_range(const DoubleBodies& b, std::size_t i, std::size_t begin, std::size_t end, double eps2) {
  const double xi = b.x[i], yi = b.y[i], zi = b.z[i];
  double phi = 0;
#pragma omp simd reduction(+ : phi)
  for (std::size_t j = begin; j < end; ++j) {
    const double dx = b.x[j] - xi, dy = b.y[j] - yi, dz = b.z[j] - zi;
    phi += pair_potential(dx * dx + dy * dy + dz * dz, 1.0, b.mass[j], eps2);
  }
  return phi;
}

// Potential of body i from every other body.
inline double potential_at(const DoubleBodies& b, std::size_t i, double eps2) {
  return potential_range(b, i, 0, i, eps2) + potential_range(b, i, i + 1, b.mass.size(), eps2);
}

double percentile_sorted(const std::vector<double>& sorted, double fraction) {
  if (sorted.empty()) return 0;
  // Nearest rank: the smallest value with at least `fraction` of the values at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

EnergyReport energy(const Bodies& bodies, double softening, std::size_t exact_limit, std::size_t samples,
                    std::uint64_t seed) {
  EnergyReport report;
  const std::size_t n = bodies.size();
  double kinetic = 0;
#pragma omp parallel for reduction(+ : kinetic) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const double vx = bodies.vx[i], vy = bodies.vy[i], vz = bodies.vz[i];
    kinetic += 0.5 * static_cast<double>(bodies.mass[i]) * (vx * vx + vy * vy + vz * vz);
  }
  report.kinetic = kinetic;

  const DoubleBodies b(bodies);
  const double eps2 = softening * softening;
  if (n <= exact_limit || samples >= n || samples < 2) {
    // Each pair once: body i against the bodies after it. Later rows are shorter, so hand them out
    // dynamically.
    double potential = 0;
#pragma omp parallel for reduction(+ : potential) schedule(dynamic, 64)
    for (std::size_t i = 0; i < n; ++i) {
      potential += b.mass[i] * potential_range(b, i, i + 1, n, eps2);
    }
    report.potential = potential;
    report.method = "exact pair sum on the CPU, in double";
  } else {
    // W = 1/2 sum_i m_i phi_i, estimated from a simple random sample of the terms m_i phi_i: the
    // sample mean times n, with the finite-population standard error.
    const auto indices = sample_indices(n, samples, seed);
    const std::size_t s = indices.size();
    std::vector<double> terms(s);
#pragma omp parallel for schedule(dynamic, 16)
    for (std::size_t k = 0; k < s; ++k) {
      const std::size_t i = indices[k];
      terms[k] = b.mass[i] * potential_at(b, i, eps2);
    }
    double mean = 0;
    for (double t : terms) mean += t;
    mean /= static_cast<double>(s);
    double variance = 0;
    for (double t : terms) variance += (t - mean) * (t - mean);
    variance /= static_cast<double>(s - 1);
    const double population_correction = 1.0 - static_cast<double>(s) / static_cast<double>(n);
    report.potential = 0.5 * static_cast<double>(n) * mean;
    report.potential_error =
        0.5 * static_cast<double>(n) * std::sqrt(variance / static_cast<double>(s) * population_correction);
    report.sampled = true;
    report.method = "sampled: " + std::to_string(s) + " random rows against every body, on the CPU, in double";
  }
  report.total = report.kinetic + report.potential;
  return report;
}

std::array<double, 3> linear_momentum(const Bodies& bodies) {
  std::array<double, 3> p{0, 0, 0};
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const double m = bodies.mass[i];
    p[0] += m * bodies.vx[i];
    p[1] += m * bodies.vy[i];
    p[2] += m * bodies.vz[i];
  }
  return p;
}

std::array<double, 3> angular_momentum(const Bodies& bodies) {
  std::array<double, 3> l{0, 0, 0};
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const double m = bodies.mass[i];
    const double x = bodies.x[i], y = bodies.y[i], z = bodies.z[i];
    const double vx = bodies.vx[i], vy = bodies.vy[i], vz = bodies.vz[i];
    l[0] += m * (y * vz - z * vy);
    l[1] += m * (z * vx - x * vz);
    l[2] += m * (x * vy - y * vx);
  }
  return l;
}

Accelerations reference_accelerations(const Bodies& bodies, double softening, const std::vector<std::size_t>& indices) {
  const std::size_t n = bodies.size();
  const std::size_t count = indices.empty() ? n : indices.size();
  for (std::size_t i : indices)
    if (i >= n) throw Error("reference_accelerations: body index " + std::to_string(i) + " out of range");
  const DoubleBodies b(bodies);
  const double eps2 = softening * softening;
  Accelerations out;
  out.resize(count);
#pragma omp parallel for schedule(static)
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = indices.empty() ? k : indices[k];
    double ax = 0, ay = 0, az = 0;
    // Two loops around i rather than a test inside: the body never meets itself, even without softening.
    const double* x = b.x.data();
    const double* y = b.y.data();
    const double* z = b.z.data();
    const double* m = b.mass.data();
    sum_accelerations(x, y, z, m, 0, i, x[i], y[i], z[i], eps2, ax, ay, az);
    sum_accelerations(x, y, z, m, i + 1, n, x[i], y[i], z[i], eps2, ax, ay, az);
    out.x[k] = ax;
    out.y[k] = ay;
    out.z[k] = az;
  }
  return out;
}

std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed) {
  std::vector<std::size_t> out;
  if (count >= n) {
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = i;
    return out;
  }
  // Floyd's algorithm: exactly `count` draws, each index equally likely, no n-sized scratch.
  Random random(seed);
  std::unordered_set<std::size_t> chosen;
  chosen.reserve(count * 2);
  out.reserve(count);
  for (std::size_t j = n - count; j < n; ++j) {
    const std::size_t t = random.below(j + 1);
    const std::size_t pick = chosen.insert(t).second ? t : j;
    if (pick == j) chosen.insert(j);
    out.push_back(pick);
  }
  // Ascending order walks memory forwards; which bodies were drawn does not depend on it.
  std::sort(out.begin(), out.end());
  return out;
}

ForceError force_error(const Accelerations& approx, const Accelerations& reference) {
  if (approx.size() != reference.size())
    throw Error("force_error: " + std::to_string(approx.size()) + " accelerations compared with " +
                std::to_string(reference.size()) + " reference values");
  ForceError result;
  const std::size_t n = approx.size();
  result.count = n;
  bool finite = true;
  for (std::size_t i = 0; i < n && finite; ++i) {
    finite = std::isfinite(approx.x[i]) && std::isfinite(approx.y[i]) && std::isfinite(approx.z[i]) &&
             std::isfinite(reference.x[i]) && std::isfinite(reference.y[i]) && std::isfinite(reference.z[i]);
  }
  if (!finite) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    result.non_finite = true;
    result.relative_norm = result.rms = result.median = result.p99 = result.max = inf;
    result.reference_rms = inf;
    result.normalized_rms = result.normalized_median = result.normalized_p99 = result.normalized_max = inf;
    return result;
  }
  if (n == 0) return result;

  // Zero over zero is agreement; anything else over zero is infinitely wrong.
  auto ratio = [](double error, double scale) {
    return scale > 0 ? error / scale : (error > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  };
  std::vector<double> relative(n), absolute(n);
  double diff_norm2 = 0, ref_norm2 = 0, sum_sq = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = approx.x[i] - reference.x[i];
    const double dy = approx.y[i] - reference.y[i];
    const double dz = approx.z[i] - reference.z[i];
    const double d2 = dx * dx + dy * dy + dz * dz;
    const double r2 =
        reference.x[i] * reference.x[i] + reference.y[i] * reference.y[i] + reference.z[i] * reference.z[i];
    diff_norm2 += d2;
    ref_norm2 += r2;
    // A body with no net force has no relative error to speak of.
    const double e = ratio(std::sqrt(d2), std::sqrt(r2));
    relative[i] = e;
    absolute[i] = std::sqrt(d2);
    sum_sq += e * e;
  }
  std::sort(relative.begin(), relative.end());
  std::sort(absolute.begin(), absolute.end());
  result.relative_norm = ratio(std::sqrt(diff_norm2), std::sqrt(ref_norm2));
  result.rms = std::sqrt(sum_sq / static_cast<double>(n));
  result.median = percentile_sorted(relative, 0.5);
  result.p99 = percentile_sorted(relative, 0.99);
  result.max = relative.back();

  const double count = static_cast<double>(n);
  result.reference_rms = std::sqrt(ref_norm2 / count);
  result.normalized_rms = ratio(std::sqrt(diff_norm2 / count), result.reference_rms);
  result.normalized_median = ratio(percentile_sorted(absolute, 0.5), result.reference_rms);
  result.normalized_p99 = ratio(percentile_sorted(absolute, 0.99), result.reference_rms);
  result.normalized_max = ratio(absolute.back(), result.reference_rms);
  return result;
}

Accelerations select(const Accelerations& all, const std::vector<std::size_t>& indices) {
  Accelerations out;
  out.resize(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t i = indices[k];
    if (i >= all.size())
      throw Error("select: row " + std::to_string(i) + " of " + std::to_string(all.size()) + " accelerations");
    out.x[k] = all.x[i];
    out.y[k] = all.y[i];
    out.z[k] = all.z[i];
  }
  return out;
}

double virial_speed(const Bodies& bodies) {
  const std::size_t n = bodies.size();
  double mass = 0;
  for (float m : bodies.mass) mass += m;
  if (!(mass > 0)) return 0;
  std::vector<std::pair<double, double>> values(n);  // (value, mass)
  auto median_of = [&] {
    std::sort(values.begin(), values.end());
    // The mean of the lower and upper weighted medians: the middle of the two middle values when the
    // mass splits evenly between them, as for an ordinary median.
    double below = 0, lower = values.back().first, upper = values.back().first;
    bool have_lower = false;
    for (const auto& [value, m] : values) {
      below += m;
      if (!have_lower && below >= 0.5 * mass) lower = value, have_lower = true;
      if (below > 0.5 * mass) {
        upper = value;
        break;
      }
    }
    return 0.5 * (lower + upper);
  };
  double center[3];
  const std::vector<float>* axes[3] = {&bodies.x, &bodies.y, &bodies.z};
  for (int a = 0; a < 3; ++a) {
    for (std::size_t i = 0; i < n; ++i) values[i] = {(*axes[a])[i], bodies.mass[i]};
    center[a] = median_of();
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = bodies.x[i] - center[0], dy = bodies.y[i] - center[1], dz = bodies.z[i] - center[2];
    values[i] = {std::sqrt(dx * dx + dy * dy + dz * dz), bodies.mass[i]};
  }
  const double radius = median_of();
  return radius > 0 ? std::sqrt(mass / radius) : std::numeric_limits<double>::infinity();
}

bool all_finite(const Bodies& bodies) {
  bool finite = true;
  for (const auto* v : {&bodies.x, &bodies.y, &bodies.z, &bodies.vx, &bodies.vy, &bodies.vz, &bodies.mass}) {
    for (float f : *v) finite &= std::isfinite(f);
  }
  return finite;
}

}  // namespace nbl
