// Checks an octree the GPU Barnes-Hut backend built against its own definition, on the host: every
// body appears exactly once; each cell's body count, mass and centre of mass equal those of its
// children; each cell's second moments about its centre of mass (the quadrupole's source) equal the
// direct sum over its bodies; its reach is at least how far its bodies lie from its centre of mass;
// each child cell is one level deeper; the root holds all the mass; the tree order and the
// force groups list every body once. Test support: the backend hands out a copy of its tree
// (BarnesHutBackend::copy_tree) and knows nothing of this check.
#pragma once
#include <string>
#include <vector>

#include "cuda/barneshut/backend.hpp"

namespace nbl::test {

struct TreeCheck {
  std::vector<std::string> problems;  // empty when nothing is wrong (at most 20 listed)
  double root_mass = 0;
  double root_center_of_mass[3] = {0, 0, 0};
  long long root_count = 0;
  long long cells = 0;
  std::string listed() const {  // every problem found, one per line (for a failure message)
    std::string all;
    for (const auto& p : problems) all += "\n  " + p;
    return all;
  }
};

TreeCheck check_tree(const BarnesHutTreeCopy& tree);
inline TreeCheck check_tree(BarnesHutBackend& backend) { return check_tree(backend.copy_tree()); }

}  // namespace nbl::test
