#include "sim/scenes.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "sim/error.hpp"
#include "sim/random.hpp"

namespace nbl {

namespace {

constexpr double kPi = std::numbers::pi;

// A body while a scene is assembled: double, so centring and rotations add no float rounding; the
// scene is rounded to float once, at the end.
struct Particle {
  double x = 0, y = 0, z = 0;
  double vx = 0, vy = 0, vz = 0;
  double mass = 0;
};
using Particles = std::vector<Particle>;

// Each scene draws from its own stream, so scenes with the same seed are still unrelated.
Random scene_random(Scene scene, std::uint64_t seed) {
  std::uint64_t mix = seed ^ (0x6E626F64796C6162ull + static_cast<std::uint64_t>(scene));
  return Random(splitmix64(mix));
}

// ---------------------------------------------------------------------------------------------------
// Plummer sphere, the generator of Aarseth, Henon & Wielen (1974) that the inputs of Burtscher's CUDA optimization tutorial use.
// In units a = M = 1: the cumulative mass M(<r) = r^3 / (1 + r^2)^(3/2) inverts to
// r = 1 / sqrt(u^(-2/3) - 1); the speed is q times the local escape speed sqrt(2) (1 + r^2)^(-1/4),
// with q drawn from g(q) = q^2 (1 - q^2)^(7/2) by von Neumann rejection (g < 0.1 on [0, 1]).
void add_plummer_sphere(Random& random, std::size_t count, double body_mass, double total_mass, double scale_length,
                        Particles& out) {
  const double velocity_scale = std::sqrt(total_mass / scale_length);
  for (std::size_t i = 0; i < count; ++i) {
    // 0.999 cuts the outermost 0.1% of the mass, whose radius diverges as u -> 1.
    // The powers are written with sqrt and cbrt rather than pow: fewer library calls whose last bit
    // may differ between C libraries, and the same numbers.
    const double u = random.uniform_open() * 0.999;
    const double cbrt_u = std::cbrt(u);
    const double r = 1.0 / std::sqrt(1.0 / (cbrt_u * cbrt_u) - 1.0);
    double q, g;
    do {
      q = random.uniform();
      g = random.uniform() * 0.1;
    } while (g >= q * q * (1.0 - q * q) * (1.0 - q * q) * (1.0 - q * q) * std::sqrt(1.0 - q * q));
    const double speed = q * std::sqrt(2.0) / std::sqrt(std::sqrt(1.0 + r * r));

    Particle p;
    random.unit_vector(p.x, p.y, p.z);
    random.unit_vector(p.vx, p.vy, p.vz);
    p.x *= r * scale_length;
    p.y *= r * scale_length;
    p.z *= r * scale_length;
    p.vx *= speed * velocity_scale;
    p.vy *= speed * velocity_scale;
    p.vz *= speed * velocity_scale;
    p.mass = body_mass;
    out.push_back(p);
  }
}

// ---------------------------------------------------------------------------------------------------
// A disk galaxy: exponential disk (surface density ~ exp(-R/Rd), sech^2 vertical profile), a Plummer
// bulge and a dark halo (Hernquist 1993, ApJS 86, 389: the usual recipe for disk initial conditions).
// Disk bodies move on circular orbits of the whole galaxy's midplane gravity, with a velocity
// dispersion set by Toomre's Q.
//
// The halo is what makes the picture: it carries three quarters of the mass, so the disk is light
// against the gravity that holds it. Its velocity dispersion (Q times its own surface density over the
// epicyclic frequency the halo sets) is then a small fraction of its rotation, and it stays cold: it
// grows multi-armed spirals instead of the bar that a self-gravitating disk turns into within a rotation,
// and an encounter draws its outer parts into long, thin tidal tails (Toomre & Toomre 1972) instead of
// broad warm fans. The halo is a quarter of the bodies, each heavier than a star; the renderer leaves
// them out unless asked (scene_groups: the dark group), as a telescope would.
struct DiskGalaxy {
  double disk_mass = 0;
  double bulge_mass = 0;
  double halo_mass = 0;
  double disk_scale_length = 0;   // Rd
  double disk_scale_height = 0;   // z0 of sech^2(z / z0)
  double disk_radius = 0;         // truncation radius of the disk
  double bulge_scale_length = 0;  // Plummer scale length b
  double halo_scale_length = 0;   // Plummer scale length of the halo
  double toomre_q = 0;

  // Surface density of the truncated disk: M_d = 2 pi Sigma0 Rd^2 (1 - (1 + k) e^(-k)), k = R_max/Rd.
  double surface_density(double radius) const {
    const double k = disk_radius / disk_scale_length;
    const double central = disk_mass / (2 * kPi * disk_scale_length * disk_scale_length * (1 - (1 + k) * std::exp(-k)));
    return central * std::exp(-radius / disk_scale_length);
  }
};

// A fifth of the luminous mass in the bulge: enough to steady the centre; a heavier one would outshine
// the disk.
constexpr double kBulgeFraction = 0.2;
// The dark halo: three times the luminous mass, carried by a quarter of the bodies (each 9 times a
// star's mass). A lighter halo lets the disk form a bar; a heavier one, or one more concentrated, holds
// the stars so tightly that the tails stay short (Dubinski, Mihos & Hernquist 1996).
constexpr double kHaloMassRatio = 3.0;
constexpr double kHaloBodyShare = 0.25;
// Below this many bodies a galaxy has no halo: a handful of heavy bodies would only kick the stars.
constexpr std::size_t kMinHaloGalaxy = 64;

// How a galaxy of `count` bodies and total mass `mass` divides into luminous bodies (disk and bulge,
// first) and halo bodies (after them), and what each kind weighs in all.
struct GalaxySplit {
  std::size_t luminous = 0, dark = 0;
  double luminous_mass = 0, dark_mass = 0;
};

GalaxySplit galaxy_split(std::size_t count, double mass) {
  GalaxySplit s;
  s.dark =
      count < kMinHaloGalaxy ? 0 : static_cast<std::size_t>(std::llround(kHaloBodyShare * static_cast<double>(count)));
  s.luminous = count - s.dark;
  s.dark_mass = s.dark == 0 ? 0.0 : mass * kHaloMassRatio / (1 + kHaloMassRatio);
  s.luminous_mass = mass - s.dark_mass;
  return s;
}

// The galaxy's proportions for a given total mass. Lengths grow as mass^(1/3), which keeps the mean
// density and so the dynamical time the same: the default dt suits a galaxy of any mass.
DiskGalaxy galaxy_model(const GalaxySplit& split) {
  const double size = std::cbrt(split.luminous_mass + split.dark_mass);
  DiskGalaxy g;
  g.disk_mass = (1 - kBulgeFraction) * split.luminous_mass;
  g.bulge_mass = kBulgeFraction * split.luminous_mass;
  g.halo_mass = split.dark_mass;
  g.disk_scale_length = 0.25 * size;
  g.disk_scale_height = 0.1 * g.disk_scale_length;
  g.disk_radius = 5.0 * g.disk_scale_length;
  g.bulge_scale_length = 0.3 * g.disk_scale_length;
  // About as much halo as disk inside the disk's edge, and most of the halo's mass beyond it.
  g.halo_scale_length = 3.0 * g.disk_scale_length;
  // Warm enough that the disk does not fragment into clumps, cool enough to grow spiral arms within a
  // rotation or two.
  g.toomre_q = 1.2;
  return g;
}

// Complete elliptic integral of the first kind, K(k) with k^2 = k2, by the arithmetic-geometric mean:
// K = pi / (2 AGM(1, sqrt(1 - k^2))). Converges quadratically; only sqrt, so it is exact everywhere.
double elliptic_k(double k2) {
  double a = 1, b = std::sqrt(std::max(0.0, 1 - k2));
  for (int i = 0; i < 40 && std::abs(a - b) > 1e-15 * a; ++i) {
    const double m = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = m;
  }
  return kPi / (2 * a);
}

// The circular speed of the sampled galaxy, measured from its bodies rather than taken from the
// textbook curve of a razor-thin disk: that gets the disk's thickness and truncation, the bulge and
// the softening right at once. Each body stands for a ring about the axis (the galaxy is round on
// average), whose softened potential in the midplane is exact in closed form:
//   Phi(R) = -(2 m / pi) K(k) / sqrt((R + a)^2 + z^2 + eps^2),  k^2 = 4 a R / ((R + a)^2 + z^2 + eps^2)
// (Plummer softening of a point enters as z^2 -> z^2 + eps^2). Rings average away the sampling noise
// that the rotation curve's derivative (the epicyclic frequency) would otherwise amplify. At most
// kMaxSources bodies stand in for the rest, scaled up in mass, so the cost does not grow with n.
class RotationCurve {
 public:
  static constexpr int kRadii = 128;

  RotationCurve(const Particles& bodies, std::size_t begin, double max_radius, double softening)
      : radius_step_(max_radius / (kRadii - 1)) {
    constexpr std::size_t kMaxSources = 16384;
    const std::size_t count = bodies.size() - begin;
    const std::size_t stride = (count + kMaxSources - 1) / kMaxSources;
    double total = 0, sampled = 0;
    for (std::size_t i = begin; i < bodies.size(); ++i) {
      total += bodies[i].mass;
      if ((i - begin) % stride != 0) continue;
      const Particle& p = bodies[i];
      ring_radius_.push_back(std::sqrt(p.x * p.x + p.y * p.y));
      ring_height2_.push_back(p.z * p.z + softening * softening);
      ring_mass_.push_back(p.mass);
      sampled += p.mass;
    }
    for (double& m : ring_mass_) m *= total / sampled;
    const double h = 1e-3 * radius_step_;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < kRadii; ++k) {
      const double radius = std::max(k, 1) * radius_step_;
      // v^2 = R dPhi/dR, by a central difference of the smooth potential.
      speed2_[k] = std::max(0.0, radius * (potential(radius + h) - potential(radius - h)) / (2 * h));
    }
  }

  double radius_step() const { return radius_step_; }
  double speed2(int k) const { return speed2_[std::clamp(k, 0, kRadii - 1)]; }
  // Interpolated between the measured radii; beyond them, where little mass remains, Keplerian.
  double speed2_at(double radius) const {
    const double s = radius / radius_step_;
    if (s >= kRadii - 1) return speed2_[kRadii - 1] * (kRadii - 1) / s;
    const int i = static_cast<int>(s);
    return speed2_[i] + (s - i) * (speed2_[i + 1] - speed2_[i]);
  }

 private:
  double potential(double radius) const {
    double phi = 0;
    for (std::size_t j = 0; j < ring_mass_.size(); ++j) {
      const double a = ring_radius_[j];
      const double d2 = (radius + a) * (radius + a) + ring_height2_[j];
      phi -= ring_mass_[j] * elliptic_k(4 * a * radius / d2) / std::sqrt(d2);
    }
    return 2 / kPi * phi;
  }

  double radius_step_;
  std::vector<double> ring_radius_, ring_height2_, ring_mass_;
  double speed2_[kRadii];
};

// What a disk body needs at radius R, tabulated on the rotation curve's radii.
struct DiskKinematics {
  double rotation_speed;  // mean azimuthal speed after the asymmetric-drift correction
  double sigma_radial;
  double sigma_azimuthal;
  double sigma_vertical;
};

class DiskTable {
 public:
  DiskTable(const DiskGalaxy& galaxy, const RotationCurve& curve) : radius_step_(curve.radius_step()) {
    constexpr int n = RotationCurve::kRadii;
    for (int k = 0; k < n; ++k) {
      const double r = std::max(k, 1) * radius_step_;
      const double vc2 = curve.speed2(k == 0 ? 1 : k);
      // kappa^2 = R d(Omega^2)/dR + 4 Omega^2 = (d v^2 / dR) / R + 2 v^2 / R^2.
      const int lo = std::max(1, k - 1), hi = std::min(n - 1, std::max(k, 1) + 1);
      const double dv2 = (curve.speed2(hi) - curve.speed2(lo)) / ((hi - lo) * radius_step_);
      const double kappa2 = std::max(dv2 / r + 2 * vc2 / (r * r), 1e-9);
      const double omega2 = std::max(vc2 / (r * r), 1e-9);
      const double sigma_surface = galaxy.surface_density(r);
      // Toomre: Q = sigma_R kappa / (3.36 G Sigma). Capped so the centre, where the disk is thin on
      // the ground next to the bulge, is not hotter than its rotation.
      const double sigma_r = std::min(galaxy.toomre_q * 3.36 * sigma_surface / std::sqrt(kappa2), 0.5 * std::sqrt(vc2));
      // Asymmetric drift (Hernquist 1993, eq. 2.28): a warm population rotates slower than v_c.
      const double drift = 1 - kappa2 / (4 * omega2) - 2 * r / galaxy.disk_scale_length;
      const double vphi2 = std::max(0.0, vc2 + sigma_r * sigma_r * drift);
      table_[k] = {std::sqrt(vphi2), sigma_r, sigma_r * std::sqrt(std::min(1.0, kappa2 / (4 * omega2))),
                   std::sqrt(kPi * sigma_surface * galaxy.disk_scale_height)};
    }
  }

  DiskKinematics at(double radius) const {
    constexpr int n = RotationCurve::kRadii;
    const double s = std::clamp(radius / radius_step_, 0.0, double(n - 1));
    const int i = std::min(static_cast<int>(s), n - 2);
    const double f = s - i;
    const DiskKinematics& a = table_[i];
    const DiskKinematics& b = table_[i + 1];
    return {a.rotation_speed + f * (b.rotation_speed - a.rotation_speed),
            a.sigma_radial + f * (b.sigma_radial - a.sigma_radial),
            a.sigma_azimuthal + f * (b.sigma_azimuthal - a.sigma_azimuthal),
            a.sigma_vertical + f * (b.sigma_vertical - a.sigma_vertical)};
  }

 private:
  double radius_step_;
  DiskKinematics table_[RotationCurve::kRadii];
};

// The Plummer sampler gives a bulge or a halo the speeds of a Plummer sphere on its own; inside the
// galaxy the other components deepen the potential, and a sphere that kept them would fall in. Each of
// its bodies' speed is scaled by the ratio of the isotropic Jeans dispersion in the whole galaxy's pull,
//   sigma^2(r) = 1/rho(r) * integral_r^inf rho(r') v_c^2(r') / r' dr',
// to the lone Plummer sphere's, sigma^2 = M / (6 sqrt(r^2 + b^2)): the shape of the speed distribution
// stays the Plummer one.
void warm_plummer(Particles& bodies, std::size_t begin, std::size_t end, double mass, double b,
                  const RotationCurve& curve) {
  if (begin == end || mass <= 0) return;
  auto density = [b](double r) { return std::pow(1 + r * r / (b * b), -2.5); };
  // Scale factors on radii spaced evenly in log r from b/100 to 100 b.
  constexpr int kTable = 64, kSteps = 256;
  const double log_lo = std::log(0.01 * b), log_hi = std::log(100 * b);
  const double table_step = (log_hi - log_lo) / (kTable - 1);
  double scale[kTable];
  for (int t = 0; t < kTable; ++t) {
    const double r = std::exp(log_lo + t * table_step);
    // Trapezoid rule in u = ln r' (dr' = r' du), out to 1000 b where the integrand has died away.
    const double du = (std::log(1000 * b) - std::log(r)) / kSteps;
    double integral = 0;
    for (int k = 0; k <= kSteps; ++k) {
      const double rr = r * std::exp(k * du);
      const double term = density(rr) * curve.speed2_at(rr);  // rho v_c^2 / r' * r'
      integral += (k == 0 || k == kSteps) ? 0.5 * term : term;
    }
    const double sigma2_galaxy = integral * du / density(r);
    const double sigma2_alone = mass / (6 * std::sqrt(r * r + b * b));
    scale[t] = std::sqrt(std::max(1.0, sigma2_galaxy / sigma2_alone));
  }
  for (std::size_t i = begin; i < end; ++i) {
    Particle& p = bodies[i];
    const double r = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
    const double s = std::clamp((std::log(std::max(r, 1e-300)) - log_lo) / table_step, 0.0, double(kTable - 1));
    const int t = std::min(static_cast<int>(s), kTable - 2);
    const double f = scale[t] + (s - t) * (scale[t + 1] - scale[t]);
    p.vx *= f;
    p.vy *= f;
    p.vz *= f;
  }
}

// One disk galaxy of `count` bodies and total mass `mass`, in its own frame (disk in the xy plane,
// rotating counter-clockwise seen from +z): the luminous bodies (disk, then bulge) and the halo's.
struct GalaxyBodies {
  Particles luminous, dark;
};

GalaxyBodies make_disk_galaxy(Random& random, std::size_t count, double mass, double softening) {
  GalaxyBodies out;
  if (count == 0) return out;
  const GalaxySplit split = galaxy_split(count, mass);
  const std::size_t bulge_count =
      static_cast<std::size_t>(std::llround(kBulgeFraction * static_cast<double>(split.luminous)));
  const std::size_t disk_count = split.luminous - bulge_count;
  const double star_mass = split.luminous_mass / static_cast<double>(split.luminous);
  DiskGalaxy galaxy = galaxy_model(split);
  // The model's masses are the ones actually sampled.
  galaxy.disk_mass = star_mass * static_cast<double>(disk_count);
  galaxy.bulge_mass = star_mass * static_cast<double>(bulge_count);

  // Positions first: the rotation is measured from where the bodies are. The halo goes in the same
  // list for that, and moves to its own at the end.
  Particles& bodies = out.luminous;
  bodies.reserve(count);
  for (std::size_t i = 0; i < disk_count; ++i) {
    // Radius: R p(R) ~ R exp(-R/Rd) is the Gamma(2) density, the sum of two exponential variates.
    double radius;
    do {
      radius = -galaxy.disk_scale_length * std::log(random.uniform_open() * random.uniform_open());
    } while (radius > galaxy.disk_radius);
    double cx, sy;
    random.unit_vector(cx, sy);
    Particle p;
    p.x = radius * cx;
    p.y = radius * sy;
    // Height: the sech^2 profile's cumulative distribution (1 + tanh(z / z0)) / 2, inverted.
    p.z = galaxy.disk_scale_height * std::atanh(2 * random.uniform_open() - 1);
    p.mass = star_mass;
    bodies.push_back(p);
  }
  add_plummer_sphere(random, bulge_count, star_mass, galaxy.bulge_mass, galaxy.bulge_scale_length, bodies);
  if (split.dark > 0)
    add_plummer_sphere(random, split.dark, galaxy.halo_mass / static_cast<double>(split.dark), galaxy.halo_mass,
                       galaxy.halo_scale_length, bodies);
  if (disk_count > 0) {
    // Out to where the halo's speeds still need the curve; beyond it the curve falls as Kepler's.
    const double reach =
        split.dark > 0 ? std::max(galaxy.disk_radius, 4 * galaxy.halo_scale_length) : galaxy.disk_radius;
    const RotationCurve curve(bodies, 0, reach, softening);
    warm_plummer(bodies, disk_count, disk_count + bulge_count, galaxy.bulge_mass, galaxy.bulge_scale_length, curve);
    warm_plummer(bodies, split.luminous, bodies.size(), galaxy.halo_mass, galaxy.halo_scale_length, curve);
    const DiskTable table(galaxy, curve);
    for (std::size_t i = 0; i < disk_count; ++i) {
      Particle& p = bodies[i];
      const double radius = std::sqrt(p.x * p.x + p.y * p.y);
      const double cx = radius > 0 ? p.x / radius : 1.0, sy = radius > 0 ? p.y / radius : 0.0;
      const DiskKinematics k = table.at(radius);
      const double v_radial = k.sigma_radial * random.normal();
      const double v_azimuthal = k.rotation_speed + k.sigma_azimuthal * random.normal();
      p.vx = v_radial * cx - v_azimuthal * sy;
      p.vy = v_radial * sy + v_azimuthal * cx;
      p.vz = k.sigma_vertical * random.normal();
    }
  }
  out.dark.assign(bodies.begin() + static_cast<std::ptrdiff_t>(split.luminous), bodies.end());
  bodies.resize(split.luminous);
  return out;
}

// Rotates a galaxy's bodies so its spin axis (+z) tilts by `inclination` about the x axis and then
// turns by `node_angle` about z, then moves them to (position, velocity).
void place(GalaxyBodies& galaxy, double inclination, double node_angle, const double position[3],
           const double velocity[3]) {
  const double ci = std::cos(inclination), si = std::sin(inclination);
  const double cn = std::cos(node_angle), sn = std::sin(node_angle);
  auto rotate = [&](double& x, double& y, double& z) {
    const double y1 = ci * y - si * z;
    const double z1 = si * y + ci * z;
    const double x2 = cn * x - sn * y1;
    const double y2 = sn * x + cn * y1;
    x = x2;
    y = y2;
    z = z1;
  };
  for (Particles* list : {&galaxy.luminous, &galaxy.dark}) {
    for (Particle& p : *list) {
      rotate(p.x, p.y, p.z);
      rotate(p.vx, p.vy, p.vz);
      p.x += position[0];
      p.y += position[1];
      p.z += position[2];
      p.vx += velocity[0];
      p.vy += velocity[1];
      p.vz += velocity[2];
    }
  }
}

// The bodies in scene order: every galaxy's stars, then every galaxy's halo (scene_groups).
void append(Particles& out, const std::vector<GalaxyBodies>& galaxies) {
  for (const GalaxyBodies& g : galaxies) out.insert(out.end(), g.luminous.begin(), g.luminous.end());
  for (const GalaxyBodies& g : galaxies) out.insert(out.end(), g.dark.begin(), g.dark.end());
}

// Two galaxies (masses 1 : 0.7) on a parabolic orbit in the xy plane, pericentre about one disk
// radius, a few dynamical times before pericentre: the geometry of Toomre & Toomre (1972) that pulls
// out long tidal tails. One disk spins nearly in the orbital plane (prograde: the strongest tails),
// the other is tilted steeply, so the two look different from any angle.
// The larger galaxy's share of the collision's bodies (masses 1 : 0.7); it comes first.
std::size_t collision_first_count(std::size_t n) {
  return static_cast<std::size_t>(std::llround(static_cast<double>(n) / 1.7));
}

void add_collision(Random& random, std::size_t n, double softening, Particles& out) {
  const double body_mass = 1.0 / static_cast<double>(n);
  const std::size_t count1 = collision_first_count(n);
  const std::size_t count2 = n - count1;
  const double mass1 = body_mass * static_cast<double>(count1);
  const double mass2 = body_mass * static_cast<double>(count2);

  // Relative orbit: parabola r = p / (1 + cos f), p = 2 r_peri, G (m1 + m2) = 1. The start anomaly
  // puts pericentre about 2.9 time units (~300 default steps) ahead, by Barker's equation
  // t = sqrt(p^3 / mu) / 2 (D + D^3/3), D = tan(f/2): time to watch the disks turn before they meet,
  // with the two disks' edges apart at the start.
  const double pericentre = 1.0;
  const double semi_latus = 2 * pericentre;
  const double mu = mass1 + mass2;
  const double anomaly = -2 * std::atan(1.3);
  const double separation = semi_latus / (1 + std::cos(anomaly));
  const double rel_pos[3] = {separation * std::cos(anomaly), separation * std::sin(anomaly), 0};
  const double speed_scale = std::sqrt(mu / semi_latus);
  const double rel_vel[3] = {-speed_scale * std::sin(anomaly), speed_scale * (1 + std::cos(anomaly)), 0};

  const double share1 = mass2 / mu, share2 = mass1 / mu;  // each galaxy's lever arm about the centre
  const double pos1[3] = {-share1 * rel_pos[0], -share1 * rel_pos[1], 0};
  const double vel1[3] = {-share1 * rel_vel[0], -share1 * rel_vel[1], 0};
  const double pos2[3] = {share2 * rel_pos[0], share2 * rel_pos[1], 0};
  const double vel2[3] = {share2 * rel_vel[0], share2 * rel_vel[1], 0};

  std::vector<GalaxyBodies> galaxies;
  galaxies.push_back(make_disk_galaxy(random, count1, mass1, softening));
  place(galaxies.back(), 20.0 * kPi / 180, 30.0 * kPi / 180, pos1, vel1);
  galaxies.push_back(make_disk_galaxy(random, count2, mass2, softening));
  place(galaxies.back(), 65.0 * kPi / 180, -50.0 * kPi / 180, pos2, vel2);
  append(out, galaxies);
}

// Uniform in the unit ball, at rest: the cold collapse.
void add_sphere(Random& random, std::size_t n, Particles& out) {
  const double body_mass = 1.0 / static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {
    Particle p;
    do {
      p.x = random.uniform(-1, 1);
      p.y = random.uniform(-1, 1);
      p.z = random.uniform(-1, 1);
    } while (p.x * p.x + p.y * p.y + p.z * p.z > 1);
    p.mass = body_mass;
    out.push_back(p);
  }
}

// Uniform in [-1, 1]^3 with small random (Gaussian) velocities, far below virial: it collapses too,
// but lumpily, from the corners in.
void add_cube(Random& random, std::size_t n, Particles& out) {
  const double body_mass = 1.0 / static_cast<double>(n);
  const double sigma = 0.05;
  for (std::size_t i = 0; i < n; ++i) {
    Particle p;
    p.x = random.uniform(-1, 1);
    p.y = random.uniform(-1, 1);
    p.z = random.uniform(-1, 1);
    p.vx = sigma * random.normal();
    p.vy = sigma * random.normal();
    p.vz = sigma * random.normal();
    p.mass = body_mass;
    out.push_back(p);
  }
}

// Two bodies (masses 0.75 and 0.25) at apocentre of a relative orbit with semi-major axis 1 and
// eccentricity 0.5; G (m1 + m2) = 1, so the period is 2 pi.
constexpr double kKeplerMass1 = 0.75;
constexpr double kKeplerSemiMajorAxis = 1.0;
constexpr double kKeplerEccentricity = 0.5;

void add_kepler(Particles& out) {
  const double m1 = kKeplerMass1, m2 = 1 - kKeplerMass1;
  const double a = kKeplerSemiMajorAxis, e = kKeplerEccentricity;
  const double apocentre = a * (1 + e);
  const double speed = std::sqrt((1 - e) / (a * (1 + e)));  // vis-viva at apocentre, mu = 1
  Particle p1, p2;
  p1.x = -m2 * apocentre;
  p1.vy = -m2 * speed;
  p1.mass = m1;
  p2.x = m1 * apocentre;
  p2.vy = m1 * speed;
  p2.mass = m2;
  out.push_back(p1);
  out.push_back(p2);
}

// Centre of mass at rest at the origin, then rounded to float.
Bodies finish(Particles& particles) {
  double mass = 0, cx = 0, cy = 0, cz = 0, cvx = 0, cvy = 0, cvz = 0;
  for (const Particle& p : particles) {
    mass += p.mass;
    cx += p.mass * p.x;
    cy += p.mass * p.y;
    cz += p.mass * p.z;
    cvx += p.mass * p.vx;
    cvy += p.mass * p.vy;
    cvz += p.mass * p.vz;
  }
  Bodies bodies;
  bodies.resize(particles.size());
  for (std::size_t i = 0; i < particles.size(); ++i) {
    const Particle& p = particles[i];
    bodies.x[i] = static_cast<float>(p.x - cx / mass);
    bodies.y[i] = static_cast<float>(p.y - cy / mass);
    bodies.z[i] = static_cast<float>(p.z - cz / mass);
    bodies.vx[i] = static_cast<float>(p.vx - cvx / mass);
    bodies.vy[i] = static_cast<float>(p.vy - cvy / mass);
    bodies.vz[i] = static_cast<float>(p.vz - cvz / mass);
    bodies.mass[i] = static_cast<float>(p.mass);
  }
  return bodies;
}

// Softening that keeps pairs from scattering hard while resolving the structure: about a fifth of the
// mean spacing of n bodies in the scene's volume, falling like n^(-1/3).
double spacing_softening(std::size_t n, double at_4096, double lo, double hi) {
  const double count = static_cast<double>(std::max<std::size_t>(n, 1));
  return std::clamp(at_4096 * std::cbrt(4096.0 / count), lo, hi);
}

}  // namespace

KeplerOrbit kepler_orbit() {
  const double a = kKeplerSemiMajorAxis;
  return {a, kKeplerEccentricity, 2 * kPi * std::sqrt(a * a * a)};
}

SceneDefaults scene_defaults(Scene scene, std::size_t n) {
  switch (scene) {
    case Scene::plummer: {
      const double eps = spacing_softening(n, 0.04, 0.002, 0.1);
      return {std::clamp(0.25 * eps, 0.002, 0.01), eps, 2.0};
    }
    case Scene::galaxy: {
      const double eps = spacing_softening(n, 0.025, 0.002, 0.05);
      return {0.005, eps, 1.6};
    }
    case Scene::collision: {
      const double eps = spacing_softening(n, 0.025, 0.002, 0.05);
      return {0.01, eps, 3.0};
    }
    case Scene::sphere: {
      const double eps = spacing_softening(n, 0.04, 0.004, 0.1);
      return {0.004, eps, 1.3};
    }
    case Scene::cube: {
      const double eps = spacing_softening(n, 0.05, 0.004, 0.1);
      return {0.005, eps, 1.9};
    }
    case Scene::kepler:
      // No softening, so the orbit is exactly Keplerian; 2048 steps per period land on it exactly.
      return {kepler_orbit().period / 2048, 0.0, 1.6};
  }
  return {0.01, 0.01, 2.0};
}

std::vector<BodyGroup> scene_groups(Scene scene, std::size_t n) {
  const double body_mass = 1.0 / static_cast<double>(std::max<std::size_t>(n, 1));
  if (scene == Scene::collision && n >= 2) {
    const std::size_t count1 = collision_first_count(n);
    const GalaxySplit a = galaxy_split(count1, body_mass * static_cast<double>(count1));
    const GalaxySplit b = galaxy_split(n - count1, body_mass * static_cast<double>(n - count1));
    std::vector<BodyGroup> groups = {{0, a.luminous, "larger galaxy", a.luminous_mass},
                                     {a.luminous, a.luminous + b.luminous, "smaller galaxy", b.luminous_mass}};
    if (a.dark + b.dark > 0)
      groups.push_back({a.luminous + b.luminous, n, "dark halos", a.dark_mass + b.dark_mass, true});
    return groups;
  }
  if (scene == Scene::galaxy) {
    const GalaxySplit g = galaxy_split(n, 1.0);
    if (g.dark > 0) return {{0, g.luminous, "stars", g.luminous_mass}, {g.luminous, n, "dark halo", g.dark_mass, true}};
  }
  return single_group(n);
}

Bodies make_scene(Scene scene, std::size_t n, std::uint64_t seed) {
  if (n < 1) throw InputError("a scene needs at least 1 body (got " + std::to_string(n) + ")");
  if (scene == Scene::kepler && n != 2)
    throw InputError("the kepler scene is exactly 2 bodies (got -n " + std::to_string(n) + "); use -n 2");
  Random random = scene_random(scene, seed);
  const double softening = scene_defaults(scene, n).softening;
  Particles particles;
  particles.reserve(n);
  const double body_mass = 1.0 / static_cast<double>(n);
  switch (scene) {
    case Scene::plummer: add_plummer_sphere(random, n, body_mass, 1.0, 3 * kPi / 16, particles); break;
    case Scene::galaxy: append(particles, {make_disk_galaxy(random, n, 1.0, softening)}); break;
    case Scene::collision: add_collision(random, n, softening, particles); break;
    case Scene::sphere: add_sphere(random, n, particles); break;
    case Scene::cube: add_cube(random, n, particles); break;
    case Scene::kepler: add_kepler(particles); break;
  }
  return finish(particles);
}

double effective_dt(const Settings& settings, std::size_t n) {
  return settings.dt ? *settings.dt : scene_defaults(settings.scene, n).dt;
}

double effective_softening(const Settings& settings, std::size_t n) {
  return settings.softening ? *settings.softening : scene_defaults(settings.scene, n).softening;
}

}  // namespace nbl
