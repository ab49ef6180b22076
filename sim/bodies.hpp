// Body state on the host: structure of arrays, float, as the GPU keeps it. The CPU backends step it
// directly; the GPU backends upload it and hand it back on request.
#pragma once
#include <cstddef>
#include <vector>

namespace nbl {

struct Bodies {
  std::vector<float> x, y, z;     // position
  std::vector<float> vx, vy, vz;  // velocity
  std::vector<float> mass;

  std::size_t size() const { return mass.size(); }
  bool empty() const { return mass.empty(); }
  void resize(std::size_t n) {
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &mass}) v->resize(n);
  }
  void clear() { resize(0); }
};

// Accelerations (or forces per unit mass) in double: what a validation compares.
struct Accelerations {
  std::vector<double> x, y, z;
  std::size_t size() const { return x.size(); }
  void resize(std::size_t n) {
    x.resize(n);
    y.resize(n);
    z.resize(n);
  }
};

}  // namespace nbl
