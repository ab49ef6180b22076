// Issue 14, the root cube's placement: a 100k Plummer sphere alone and with 1% more bodies spread out
// to radius r (as ../cpu-2026-11-25-ejecta/ejecta.cpp), on the CPU backend at dt = 0, second pass
// (the relative test's budget comes from the first). Prints interactions per sphere body and the
// force error of 1,000 sampled sphere bodies against the double direct sum, relative to their RMS
// acceleration. Built against the library of one commit:
//   g++ -std=c++20 -O2 -fopenmp -I. thirds.cpp build/sim/libnbl_sim.a
// EJ_ANGLE=1: opening by angle (0.65, the default theta) instead of the relative test.
// EJ_SEED: the sphere's seed (7); EJ_SPHERE_ONLY=1: the sphere alone.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include "sim/cpu_backends.hpp"
#include "sim/diagnostics.hpp"
#include "sim/scenes.hpp"
using namespace nbl;
int main() {
  const size_t n = 100000;
  const unsigned seed = std::getenv("EJ_SEED") ? std::atoi(std::getenv("EJ_SEED")) : 7;
  const bool sphere_only = std::getenv("EJ_SPHERE_ONLY") != nullptr;
  for (double rmax : {0.0, 100.0, 1000.0, 10000.0}) {
    if (sphere_only && rmax > 0) break;
    Bodies b = make_scene(Scene::plummer, n, seed);
    const size_t extra = rmax > 0 ? 1000 : 0;
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0, 1);
    b.resize(n + extra);
    for (size_t i = n; i < n + extra; ++i) {
      double r = 10.0 * std::pow(rmax / 10.0, u(rng)), ct = 2 * u(rng) - 1, ph = 6.283185 * u(rng), st = std::sqrt(1 - ct * ct);
      b.x[i] = r * st * std::cos(ph), b.y[i] = r * st * std::sin(ph), b.z[i] = r * ct, b.mass[i] = b.mass[0];
    }
    Settings s;
    if (std::getenv("EJ_ANGLE")) s.toggles.set(Choice{"bh_opening", "geometric"});
    s.dt = 0;
    s.softening = scene_defaults(Scene::plummer, n).softening;
    auto be = make_cpu_barneshut(s);
    be->set_bodies(b);
    be->step();
    auto st = be->step();
    Accelerations acc;
    be->compute_accelerations(acc);
    const auto idx = sample_indices(n, 1000, 11);
    const ForceError e = force_error(select(acc, idx), reference_accelerations(b, *s.softening, idx));
    printf("ejecta to r=%6g: per sphere body %7.1f interactions, depth %2d, error p99 %.3e max %.3e (RMS-normalized)\n", rmax,
           st.interactions / n, st.tree.max_depth, e.normalized_p99, e.normalized_max);
  }
}
