// efficiency: interactions/body and normalized p99/max at given tolerance, plummer and collision 100k
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <string>
#include "sim/cpu_backends.hpp"
#include "sim/diagnostics.hpp"
#include "sim/scenes.hpp"
using namespace nbl;
int main(int argc, char** argv) {
  std::string mode = argv[1]; int tol = atoi(argv[2]); size_t n = argc > 3 ? atol(argv[3]) : 100000;
  for (Scene sc : {Scene::plummer, Scene::collision}) {
    Bodies b = make_scene(sc, n, 7);
    double soft = scene_defaults(sc, n).softening;
    Settings s; s.dt = 0; s.softening = soft;
    if (mode == "relative") { s.toggles.set(Choice{"bh_opening","relative"}); s.toggles[ToggleId{"bh_tolerance"}] = tol; }
    else s.opening_angle = tol / 100.0;
    auto be = make_cpu_barneshut(s);
    be->set_bodies(b); be->step(); auto st = be->step();
    Accelerations a; be->compute_accelerations(a);
    auto idx = sample_indices(b.size(), 3000, 11);
    auto e = force_error(select(a, idx), reference_accelerations(b, soft, idx));
    printf("%s %s %d: inter/body %.0f nodes %.0f  norm p99 %.3g max %.3g  rel p99 %.3g max %.3g\n", mode.c_str(), sc == Scene::plummer ? "plummer" : "collision", tol,
      st.interactions / b.size(), st.tree.nodes_touched.avg, e.normalized_p99, e.normalized_max, e.p99, e.max);
  }
}
