#include <cmath>
#include <cstdio>
#include <random>
#include <cstdlib>
#include "sim/cpu_backends.hpp"
#include "sim/scenes.hpp"
using namespace nbl;
int main() {
  const size_t n = 100000; const double sx = std::getenv("EJ_SHIFT") ? std::atof(std::getenv("EJ_SHIFT")) : 0.0;
  for (double rmax : {0.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 10000.0}) {
    Bodies b = make_scene(Scene::plummer, n, 7);
    const size_t extra = rmax > 0 ? 1000 : 0;
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0, 1);
    b.resize(n + extra);
    for (size_t i = n; i < n + extra; ++i) {
      double r = 10.0 * std::pow(rmax / 10.0, u(rng)), ct = 2 * u(rng) - 1, ph = 6.283185 * u(rng), st = std::sqrt(1 - ct * ct);
      b.x[i] = r * st * std::cos(ph) + sx * rmax, b.y[i] = r * st * std::sin(ph) + sx * rmax * 0.77, b.z[i] = r * ct + sx * rmax * 0.41, b.mass[i] = std::getenv("EJ_MASSLESS") ? 1e-12f : b.mass[0];
    }
    Settings s; if (std::getenv("EJ_ANGLE")) s.toggles.set(Choice{"bh_opening","geometric"}); s.dt = 0; s.softening = scene_defaults(Scene::plummer, n).softening;
    auto be = make_cpu_barneshut(s);
    be->set_bodies(b); be->step(); auto st = be->step();
    printf("ejecta to r=%6g: %zu bodies, interactions/step %.4g (per sphere body %.1f), nodes touched avg %.0f, depth %d\n", rmax, b.size(),
           st.interactions, st.interactions / n, st.tree.nodes_touched.avg, st.tree.max_depth);
  }
}
