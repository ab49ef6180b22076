#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include "sim/cpu_backends.hpp"
#include "sim/geometry_cases.hpp"
#include "sim/scenes.hpp"
using namespace nbl;
StepStats run(const Bodies& b, double eps, bool angle) {
  angle = angle || std::getenv("ANGLE");
  Settings s; if (angle) s.toggles.set(Choice{"bh_opening","geometric"}); s.dt = 0; s.softening = eps;
  auto be = make_cpu_barneshut(s); be->set_bodies(b); be->step(); return be->step();
}
int main() {
  const size_t n = std::getenv("N") ? std::atoi(std::getenv("N")) : 20000; const double eps = scene_defaults(Scene::plummer, n).softening;
  std::vector<double> ri, rt;
  for (unsigned long long seed = std::getenv("FROM") ? std::atoll(std::getenv("FROM")) : 1000; seed < (std::getenv("FROM") ? std::atoll(std::getenv("FROM")) : 1000) + (std::getenv("SEEDS") ? std::atoi(std::getenv("SEEDS")) : 60); ++seed) {
    auto p = run(make_geometry_case(GeometryCase::plummer, n, seed), eps, false);
    auto e = run(make_geometry_case(GeometryCase::ejecta, n, seed), eps, false);
    double a = (e.interactions / (n + n/100)) / (p.interactions / n), t = e.tree.nodes_touched.avg / p.tree.nodes_touched.avg;
    ri.push_back(a); rt.push_back(t);
  }
  std::sort(ri.begin(), ri.end()); std::sort(rt.begin(), rt.end());
  auto q = [](std::vector<double>& v, double f) { return v[size_t(f * (v.size() - 1))]; };
  printf("interactions ratio: min %.3f median %.3f p90 %.3f max %.3f\n", ri.front(), q(ri, .5), q(ri, .9), ri.back());
  printf("touched ratio:      min %.3f median %.3f p90 %.3f max %.3f\n", rt.front(), q(rt, .5), q(rt, .9), rt.back());
}
