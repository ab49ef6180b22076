// The GPU Barnes-Hut backend: the tutorial's six kernels (reference 000, Part II) compiled by the
// kernel variant engine, their device memory, the per-step recovery from bad geometry, and the
// statistics the panel and `bench` show. Created through make_gpu_barneshut() (gpu_backends.hpp).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sim/backend.hpp"

namespace nbl {

std::unique_ptr<Backend> make_barneshut_backend(const Settings& settings);

// Checks the octree the backend built for the current positions against its own definition, on the
// host: every body appears exactly once; each cell's body count, mass and centre of mass equal those
// of its children; each child cell is one level deeper; the root holds all the mass. Returns what is
// wrong (empty when nothing is). For tests and `bench --check-tree`; downloads the whole tree.
struct TreeCheck {
  std::vector<std::string> problems;
  double root_mass = 0;
  double root_center_of_mass[3] = {0, 0, 0};
  long long root_count = 0;
  long long cells = 0;
};
TreeCheck check_barneshut_tree(Backend& backend);

// Device bytes per body, cell pool and Morton scratch included (an upper bound).
std::size_t barneshut_bytes_per_body();

}  // namespace nbl
