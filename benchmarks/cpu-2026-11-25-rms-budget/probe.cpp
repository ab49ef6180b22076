#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include "sim/cpu_backends.hpp"
#include "sim/diagnostics.hpp"
#include "sim/geometry_cases.hpp"
#include "sim/scenes.hpp"
using namespace nbl;
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "relative";
  int tol = argc > 2 ? atoi(argv[2]) : 80;
  for (unsigned long long seed : {12396105022126748620ull, 11718588701966360123ull, 9883118096302771249ull, 1ull, 2ull}) {
    for (auto c : {GeometryCase::plummer, GeometryCase::coincident}) {
      size_t n = 10000;
      Bodies b = make_geometry_case(c, n, seed);
      double soft = scene_defaults(Scene::plummer, n).softening;
      Settings s; s.dt = 0; s.softening = soft;
      std::string err;
      if (std::string(mode) == "relative") { s.toggles.set(Choice{"bh_opening","relative"}); s.toggles[ToggleId{"bh_tolerance"}] = tol; }
      auto be = make_cpu_barneshut(s);
      be->set_bodies(b); be->step(); auto st = be->step();
      Accelerations a; be->compute_accelerations(a);
      std::vector<size_t> all(b.size()); for (size_t i=0;i<all.size();++i) all[i]=i;
      auto ref = reference_accelerations(b, soft, all);
      double rms=0; for (size_t i=0;i<all.size();++i) rms += ref.x[i]*ref.x[i]+ref.y[i]*ref.y[i]+ref.z[i]*ref.z[i];
      rms = std::sqrt(rms/all.size());
      std::vector<double> e(all.size()), mag(all.size());
      for (size_t i=0;i<all.size();++i){ double dx=a.x[i]-ref.x[i],dy=a.y[i]-ref.y[i],dz=a.z[i]-ref.z[i]; e[i]=std::sqrt(dx*dx+dy*dy+dz*dz)/rms; mag[i]=std::sqrt(ref.x[i]*ref.x[i]+ref.y[i]*ref.y[i]+ref.z[i]*ref.z[i])/rms;}
      std::vector<size_t> ord(all.size()); for(size_t i=0;i<ord.size();++i)ord[i]=i;
      std::sort(ord.begin(),ord.end(),[&](size_t p,size_t q){return e[p]>e[q];});
      std::vector<double> es=e; std::sort(es.begin(),es.end());
      printf("seed %llu %s: inter/body %.0f p99 %.4g max %.4g\n", seed, std::string(to_string(c)).c_str(), st.interactions/b.size(), es[es.size()*99/100], es.back());
      for (int k=0;k<4;++k){ size_t i=ord[k]; double d=std::sqrt(std::pow(b.x[i]-b.x[0],2)+std::pow(b.y[i]-b.y[0],2)+std::pow(b.z[i]-b.z[0],2));
        printf("   body %zu err %.4g |a|/rms %.3g rel %.3g dist-to-body0 %.3g r %.3g\n", i, e[i], mag[i], e[i]/mag[i], d, std::sqrt(b.x[i]*b.x[i]+b.y[i]*b.y[i]+b.z[i]*b.z[i])); }
    }
  }
}
