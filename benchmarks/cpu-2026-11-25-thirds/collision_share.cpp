#include <cstdio>
#include <cstdlib>
#include "sim/cpu_backends.hpp"
#include "sim/diagnostics.hpp"
#include "sim/scenes.hpp"
using namespace nbl;
int main() {
  const size_t n = 100000;
  for (Scene sc : {Scene::plummer, Scene::collision}) {
    for (unsigned seed : {1u, 2u, 3u}) {
      Bodies b = make_scene(sc, n, seed);
      Settings s; s.scene = sc; s.dt = 0; s.softening = scene_defaults(sc, n).softening;
      if (getenv("ANGLE")) s.toggles.set(Choice{"bh_opening", "geometric"});
      auto be = make_cpu_barneshut(s); be->set_bodies(b); be->step(); auto st = be->step();
      Accelerations acc; be->compute_accelerations(acc);
      const auto idx = sample_indices(n, 3000, seed + 100);
      const ForceError e = force_error(select(acc, idx), reference_accelerations(b, *s.softening, idx));
      printf("%s seed %u: %7.1f interactions/body, err/RMS p99 %.3e max %.3e, per body p99 %.3e max %.3e\n", sc == Scene::plummer ? "plummer  " : "collision", seed,
             st.interactions / n, e.normalized_p99, e.normalized_max, e.p99, e.max);
    }
  }
}
