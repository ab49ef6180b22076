// The octree the GPU kernels built, seen from the host: the overlay's cells (a few arrays copied) and
// a whole copy of the tree for checks (tests/cuda/bh_tree_check.hpp). No CUDA types in the struct.
#pragma once
#include <vector>

#include "sim/backend.hpp"

namespace nbl {

class BarnesHutBuffers;
struct BarnesHutVariant;

// The octree as the kernels left it, copied to the host (tests check it against its definition:
// tests/cuda/bh_tree_check.hpp; the overlay reads cells from it).
struct BarnesHutTreeCopy {
  int n = 0;
  bool morton_build = true;
  bool sorted = true;                           // bodies were put in tree order (`order` is meaningful)
  bool has_groups = false;                      // force groups were formed
  int first_cell = 0, last_cell = 0, root = 0;  // cell ids [first_cell, last_cell]
  int groups = 0;
  float root_size = 0;
  float root_center[3] = {0, 0, 0};
  std::vector<float> node;               // 4 per id (x, y, z, mass), bodies then cells
  std::vector<int> child;                // 8 per cell, indexed by id - n
  std::vector<int> depth, count, start;  // per cell, indexed by id - n
  std::vector<int> order;                // body ids in tree order
  std::vector<int> group_first, group_size;
  std::vector<float> second;  // 6 per cell, indexed by id - n: second moments about the centre of mass
                              // (xx, yy, zz, xy, xz, yz)
  std::vector<float> reach;   // per cell, indexed by id - n: how far its bodies lie from its centre of mass
};

// Both read the tree the last force pass left in `buffers` (built by `variant`); they wait for `stream`
// (a cudaStream_t).
std::vector<CellBox> overlay_cells(BarnesHutBuffers& buffers, const BarnesHutVariant& variant, int max_depth,
                                   void* stream);
BarnesHutTreeCopy copy_tree(BarnesHutBuffers& buffers, const BarnesHutVariant& variant, void* stream);

}  // namespace nbl
