// The Barnes-Hut octree as the kernels see it, shared by the host (cuda/barneshut_backend.cpp, which
// allocates and fills it) and every NVRTC kernel under cuda/kernels/bh_*.cu, so both agree on one
// layout. Plain pointers and integers only.
//
// Node ids follow the tutorial (reference 000, Part II, "Global optimizations: use array elements
// instead of heap nodes"): ids [0, n) are bodies and ids [n, n + max_cells) are cells, so one float4
// array `node` holds the position and mass of both, and one test (id < n) tells a body from a cell.
// Cells are allocated downward from the root, so a child cell always has a smaller id than its parent:
// the summarize kernel can scan ids upward (children first) and the sort kernel downward.
#pragma once

#if !defined(__CUDACC_RTC__)
#include <vector_types.h>
#endif

namespace nbl::bh {

// Deepest level the tree may reach. Below it, bodies share a cell that is never opened (it acts as one
// point mass): coincident or nearly coincident bodies end the subdivision instead of recursing forever.
// 21 levels is also all that a 63-bit Morton key (21 bits per axis) resolves.
inline constexpr int kMaxDepth = 21;

// Bodies per force group: one warp, one body per lane.
inline constexpr int kGroupSize = 32;

// Child slot values besides node ids.
inline constexpr int kNull = -1;
inline constexpr int kLocked = -2;  // insertion build: a thread is splitting this slot

// Error bits in Control::error. The host reads them after every step and recovers.
inline constexpr int kErrorPoolExhausted = 1;  // more cells needed than allocated: grow and rebuild
inline constexpr int kErrorSpinLimit = 2;      // a wait exceeded its bound: report, rebuild with Morton
inline constexpr int kErrorNonFinite = 4;      // a position or velocity is NaN or inf: pause

// Upper bound on iterations of any wait loop (a lock or a not-yet-ready child). Far beyond what a
// correct run needs (waits last microseconds); reaching it means something is broken, and the kernel
// sets kErrorSpinLimit and leaves instead of hanging.
inline constexpr unsigned kSpinLimit = 1u << 24;

// Per-step bookkeeping on the device; reset by the bounding-box kernel at the start of each step.
struct Control {
  int bottom;      // lowest allocated cell id (cells are handed out downward from the root)
  int root;        // id of the root cell
  int error;       // kError* bits
  int max_depth;   // deepest level reached
  int overflow_bodies;  // bodies that share a cell at kMaxDepth with others
  int cells;       // cells in the tree
  int groups;      // force groups (group interaction lists): contiguous runs of the tree order
  float root_x, root_y, root_z;  // centre of the root cube
  float root_size;               // edge length of the root cube
  unsigned blocks_done;          // bounding-box kernel: blocks finished (last one reduces)
  int pad;
  unsigned long long interactions;     // body-body plus body-cell interactions in the force kernel
  unsigned long long touched_sum;      // nodes touched, summed over bodies
  int touched_min, touched_max;        // nodes touched per body
  unsigned long long child_slots_used;  // non-empty child slots (children per cell = this / cells)
};

struct Tree {
  int n;          // bodies
  int max_cells;  // cell pool size; cell c lives at index c - n of the per-cell arrays
  float4* node;   // [n + max_cells] x, y, z, mass; a cell's mass is < 0 until summarized
  float4* vel;    // [n] velocity (w unused)
  float4* acc;    // [n] acceleration (w unused)
  int* child;     // [max_cells * 8] child slots: kNull, kLocked, a body id or a cell id
  int* depth;     // [max_cells] level of each cell (root 0)
  int* count;     // [max_cells] bodies in each cell's subtree
  int* start;     // [max_cells] first position of the subtree's bodies in `sorted` (-1 until known)
  int* sorted;    // [n] body ids in tree order (depth first): neighbours in space, neighbours here
  int* next;      // [n] insertion build: bodies chained in one slot of a kMaxDepth cell, -1 ends
  int* body_depth;  // [n] level of the cell that holds each body (colour by tree depth)
  int2* groups;     // [n] force groups: (first position in `sorted`, bodies), at most kGroupSize each
  float* block_bounds;  // [6 * blocks] bounding-box partial results (min xyz, max xyz)
  Control* ctl;
  float dt;         // time step
  float eps2;       // softening length squared
  float theta;      // opening angle
};

// Scratch arrays of the Morton build: sorted keys, the binary radix tree over them (Karras 2012) and
// the octree cells each radix node turns into.
struct Morton {
  unsigned long long* keys;  // [n] 63-bit Morton keys, sorted (the sorted body ids are Tree::sorted)
  int* first;       // [n - 1] first position of each radix node's range in tree order
  int* last;        // [n - 1] last position of the range
  int* prefix_bits;  // [n - 1] bits all keys of the range share (> 62 for identical keys)
  int* parent;      // [2n - 1] parent of internal node i at [i], of the leaf at position k at [n - 1 + k]
  int* cells;       // [n - 1] octree cells each radix node emits
  int* offset;      // [n - 1] exclusive prefix sum of `cells`: where a node's cells start
  double4_32a* sums;    // [n] inclusive prefix sums of (m, m x, m y, m z) in tree order
};

}  // namespace nbl::bh
