// The Barnes-Hut octree as the kernels see it, shared by the host (cuda/barneshut/backend.cpp, which
// allocates and fills it) and every NVRTC kernel under cuda/kernels/bh_*.cu, so both agree on one
// layout. Plain pointers and integers only.
//
// Node ids follow Burtscher's CUDA optimization tutorial (Part II, "Global optimizations: use array elements
// instead of heap nodes"): ids [0, n) are bodies and ids [n, n + max_cells) are cells, so one float4
// array `node` holds the position and mass of both, and one test (id < n) tells a body from a cell.
// Cells are allocated downward from the root, so a child cell always has a smaller id than its parent:
// the summarize kernel can scan ids upward (children first) and the sort kernel downward.
#pragma once

#if !defined(__CUDACC_RTC__)
#include <vector_types.h>
#endif

#include "kernel_signature.h"
#include "physics/hd.hpp"

namespace nbl::bh {

// Deepest level space is split to. Bodies that share a cell at this level are closer together than it
// resolves: when they are also unresolved by the walks (bh_common.cuh, opening_size2: coincident, or
// nearly) the cell is one point mass that is never opened, so k such bodies cost O(k), not O(k^2);
// otherwise a walk that opens it visits its bodies one by one. The Morton build keeps them in the
// cell's range of the tree order; the insertion build parts them by their ids in cells below it (same
// cube, levels past kMaxDepth, bh_build_insert.cu), which no walk enters.
// 21 levels is also all that a 63-bit Morton key (21 bits per axis) resolves.
inline constexpr int kMaxDepth = 21;

// Threads per block of the kernels whose block size is fixed (the force kernel's is a toggle,
// NBL_BH_BLOCK_SIZE). The kernels use them as launch bounds, the host launches with them.
inline constexpr int kBoundsThreads = 512;     // kernel 1: bounding box
inline constexpr int kInsertThreads = 512;     // kernel 2, lock-based insertion
inline constexpr int kSummarizeThreads = 256;  // kernel 3
inline constexpr int kSortThreads = 256;       // kernel 4
inline constexpr int kStreamThreads = 256;     // the streaming kernels: integrate, Morton keys and radix tree, groups

// Bodies per force group: at most kMaxGroupSize, one warp of 32 lanes with group size / 32 bodies each
// (the bh_group_size toggle, NBL_BH_GROUP_SIZE in bh_groups.cu and bh_force_group.cu).
inline constexpr int kMaxGroupSize = 128;

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
  int bottom;                           // lowest allocated cell id (cells are handed out downward from the root)
  int root;                             // id of the root cell
  int error;                            // kError* bits
  int max_depth;                        // deepest level reached
  int overflow_bodies;                  // bodies that share a cell at kMaxDepth with others
  int cells;                            // cells in the tree
  int groups;                           // force groups (group interaction lists): contiguous runs of the tree order
  float root_x, root_y, root_z;         // centre of the root cube (every body's bounding cube)
  float root_size;                      // edge length of the root cube
  unsigned blocks_done;                 // bounding-box and pull-scale kernels: blocks finished (last one reduces)
  float pull_rms;                       // RMS |a| of Tree::previous_acc (bh_pull_scale): the relative test's scale
  unsigned long long interactions;      // body-body plus body-cell interactions in the force kernel
  unsigned long long touched_sum;       // nodes touched, summed over bodies
  int touched_min, touched_max;         // nodes touched per body
  unsigned long long child_slots_used;  // non-empty child slots (children per cell = this / cells)
  // The bulk's cube: from quantiles of a sample of the bodies, so a few bodies far outside
  // do not stretch the cube the bulk is resolved in. When the bodies' own cube is more than
  // kSplitRatio times the bulk's (`split`), the root has two children of level 1: the bulk's cube (slot
  // 0) and the whole cube again for the bodies outside it (slot 1), each subdivided on its own; else
  // the bulk's cube is the root's and the tree is the classic one.
  float core_x, core_y, core_z;  // centre of the bulk's cube
  float core_size;               // its edge
  int split;                     // 1: the root splits into the bulk and the rest (above)
  int outer_bodies;              // bodies outside the bulk's cube (with `split`)
};

// The bulk's cube is this many times the widest range between the sampled 0.1% and 99.9% quantiles,
// so the bulk's own sparse outskirts (a Plummer sphere's tail) stay inside it, and a split pays when
// the whole cube is kSplitRatio times wider still: only bodies many orders of magnitude outside the
// bulk (a body at 1e20) go to the subtree beside it, where its coarse cells cannot lump them with
// the bulk's outskirts.
inline constexpr float kBulkMargin = 256.0f;
inline constexpr float kSplitRatio = 8.0f;
// Samples of the bodies' coordinates the bulk's quantiles come from (a power of two: bitonic sort).
inline constexpr int kBulkSamples = 1024;

struct Tree {
  int n;                // bodies
  int max_cells;        // cell pool size; cell c lives at index c - n of the per-cell arrays
  float4* node;         // [n + max_cells] x, y, z, mass; a cell's mass is < 0 until summarized
  float4* vel;          // [n] velocity (w unused)
  float4* acc;          // [n] acceleration (w unused)
  int* child;           // [max_cells * 8] child slots: kNull, kLocked, a body id or a cell id
  int* depth;           // [max_cells] level of each cell (root 0)
  int* count;           // [max_cells] bodies in each cell's subtree
  int* start;           // [max_cells] first position of the subtree's bodies in `sorted` (-1 until known)
  int* sorted;          // [n] body ids in tree order (depth first): neighbours in space, neighbours here
  int* body_depth;      // [n] level of the cell that holds each body (colour by tree depth)
  int2* groups;         // [n] force groups: (first position in `sorted`, bodies), at most the group size each
  float* block_bounds;  // [6 * blocks] bounding-box partial results (min xyz, max xyz)
  Control* ctl;
  float dt;     // time step
  float eps2;   // softening length squared
  float theta;  // opening angle
  // The group walk's node stack, entries per warp (bh_force_group.cu): the force pass's launch sets it
  // to fill the shared memory its occupancy leaves (cuda/barneshut/pipeline.cpp); other kernels ignore it.
  int stack_cap;
  // Second moments of each cell's mass about its centre of mass (sum of m dx dx, m dy dy, m dz dz, m dx dy
  // in `second`; m dx dz, m dy dz in `second_xz_yz`), written by summarize in both builds: the
  // quadrupole the walks use with bh_moments = quadrupole (physics/gravity.hpp) comes from them.
  float4* second;        // [max_cells]
  float2* second_xz_yz;  // [max_cells]
  // The size each cell counts as in the opening criterion, squared (physics/gravity.hpp,
  // opening_stretch and opening_size: its edge, stretched for rods and sheets, at least its reach),
  // written by summarize; -1 for a cell at kMaxDepth, which is never opened (it acts as one point mass
  // wherever it is seen from).
  float* open_size2;  // [max_cells]
  // The farthest any of each cell's bodies lies from its centre of mass (at most; from the children's,
  // written by summarize): no cell counts as smaller in the opening test (physics/gravity.hpp, opening_size).
  float* reach;  // [max_cells]
  // Each cell's cube: centre and edge (x, y, z, edge). Written by the build (insertion: as cells are
  // made) or by summarize (Morton: from the keys); the overlay draws it, summarize sizes cells by it.
  float4* box;  // [max_cells]
  // The previous force pass's accelerations of these bodies, whose RMS scales the relative opening
  // test (bh_opening, physics/gravity.hpp; bh_pull_scale takes it before the walk), or nullptr: then
  // the walk opens by theta. It may be `acc` itself.
  const float4* previous_acc;
  // The force pass in slices (the lab's StepControl, sim/backend.hpp): this launch walks slice `slice` of
  // `slices` of the walk's work items (whole warps of bodies, or groups), so that the display's GL work
  // gets the GPU between launches. Each item's result does not depend on the slicing. 0 and 1: all.
  int slice;
  int slices;
  // A word in device memory the lab's stepping thread raises to stop a long walk (cuda/step_slices.hpp,
  // StopWord): each warp looks at it as it starts and leaves when it is set; the pass's result is then
  // discarded. nullptr: never (bench, A/B, render).
  const int* stop;
};

// The part [first, last) of `items` work items that slice `slice` of `slices` walks: consecutive, in
// order, covering every item once over the slices.
NBL_HD inline int slice_first(int items, int slice, int slices) {
  return slices > 1 ? static_cast<int>(static_cast<long long>(items) * slice / slices) : 0;
}
NBL_HD inline int slice_last(int items, int slice, int slices) {
  return slices > 1 ? static_cast<int>(static_cast<long long>(items) * (slice + 1) / slices) : items;
}

// Scratch arrays of the Morton build: sorted keys, the binary radix tree over them (Karras 2012) and
// the octree cells each radix node turns into.
struct Morton {
  unsigned long long* keys;  // [n] 63-bit Morton keys, sorted (the sorted body ids are Tree::sorted)
  int* first;                // [n - 1] first position of each radix node's range in tree order
  int* last;                 // [n - 1] last position of the range
  int* prefix_bits;          // [n - 1] bits all keys of the range share (> 62 for identical keys)
  int* parent;               // [2n - 1] parent of internal node i at [i], of the leaf at position k at [n - 1 + k]
  int* cells;                // [n - 1] octree cells each radix node emits
  int* offset;               // [n - 1] exclusive prefix sum of `cells`: where a node's cells start
  // [max_cells] each cell's parent cell (-1 for the root), and how many of its child cells have been
  // summarized: bh_octree_summarize climbs from the cells without child cells, and the thread that
  // finishes a cell's last child cell summarizes the cell.
  int* cell_parent;
  unsigned* arrivals;
  const Control* ctl;  // Tree::ctl, for the kernels that take no Tree: they too stop on a NaN
};

// The group walk's shared memory per warp (bh_force_group.cu): an interaction list of `list_cap`
// float4 entries (bodies, and cells' monopoles), with quadrupoles a list of `cell_cap` cells (a float4
// position and mass, a float4 and a float2 of quadrupole and trace: 40 bytes), and a node stack. A step
// pops up to 32 nodes and pushes up to 8 children for each, so a step pops only as many as the room
// left can take eight times over; while the stack is fuller than stack_cap - 8 a step pops one node only
// (a pure depth-first step), which can push the stack at most 7 entries deeper per level: the slack
// makes overflow impossible. A stack that runs that full makes the walk crawl, one node a step, so the
// launch gives the stack all the shared memory the kernel's occupancy leaves (Tree::stack_cap), and
// kMinGroupStack at the least.
// Shared memory one block of the force kernel may take (an SM's 227 KB, less the static part).
inline constexpr int kForceSharedLimit = 226 * 1024;
inline constexpr int kMinGroupStack = 512;
inline constexpr int kMaxGroupStack = 4096;  // 16 KB a warp: where more stack would cost occupancy anyway
NBL_HD inline constexpr int group_stack_entries(int stack_cap) { return stack_cap + 7 * (kMaxDepth + 1) + 8; }
NBL_HD inline constexpr int group_shared_bytes_per_warp(int list_cap, int cell_cap, int stack_cap) {
  return list_cap * 16 + cell_cap * 40 + group_stack_entries(stack_cap) * 4;
}

// What bh_write_vertices needs to turn a body into a colour key (physics/color_keys.hpp).
struct VertexScales {
  float speed, acceleration, max_mass;
  int max_depth;
};

// Every kernel's parameters, for the host's typed launches (cuda/launch.hpp) and each kernel file's
// check of its own definition.
inline constexpr KernelSignature<Tree> kBoundingBoxKernel{"bh_bounding_box"};
inline constexpr KernelSignature<Tree> kInsertKernel{"bh_build_insert"};
inline constexpr KernelSignature<Tree> kSummarizeKernel{"bh_summarize"};
inline constexpr KernelSignature<Tree> kSortKernel{"bh_sort"};
inline constexpr KernelSignature<Tree, unsigned long long*, int*> kMortonKeysKernel{"bh_morton_keys"};
inline constexpr KernelSignature<int, Morton> kRadixTreeKernel{"bh_radix_tree"};
inline constexpr KernelSignature<int, Morton> kOctreeCountKernel{"bh_octree_count"};
inline constexpr KernelSignature<Tree, Morton> kOctreeEmitKernel{"bh_octree_emit"};
inline constexpr KernelSignature<Tree, Morton> kOctreeAttachKernel{"bh_octree_attach"};
inline constexpr KernelSignature<Tree> kOctreeSingleKernel{"bh_octree_single"};
inline constexpr KernelSignature<Tree, Morton> kOctreeSummarizeKernel{"bh_octree_summarize"};
inline constexpr KernelSignature<Tree, int> kMakeGroupsKernel{"bh_make_groups"};
inline constexpr KernelSignature<Tree> kForceKernel{"bh_force"};
inline constexpr KernelSignature<Tree> kPullScaleKernel{"bh_pull_scale"};  // relative opening's variants only
inline constexpr KernelSignature<Tree> kKickDriftKernel{"bh_kick_drift"};
inline constexpr KernelSignature<Tree> kKickKernel{"bh_kick"};
inline constexpr KernelSignature<Tree, float4*, float*, int, VertexScales, const int*> kWriteVerticesKernel{
    "bh_write_vertices"};
inline constexpr KernelSignature<Tree, int*> kRankKernel{"bh_rank"};

// The same layout on both sides: the host (g++) and NVRTC check the same sizes and alignments, so a
// field that one compiler pads differently stops that side's build (NVRTC has no offsetof; the host
// also checks a few offsets).
static_assert(sizeof(Control) == 112 && alignof(Control) == 8, "bh::Control changed: update the sizes here on purpose");
static_assert(sizeof(Tree) == 184 && alignof(Tree) == 8, "bh::Tree changed: update the sizes here on purpose");
static_assert(sizeof(Morton) == 80 && alignof(Morton) == 8, "bh::Morton changed: update the sizes here on purpose");
static_assert(sizeof(VertexScales) == 16, "bh::VertexScales changed: update the size here on purpose");
#if !defined(__CUDACC_RTC__)
static_assert(__builtin_offsetof(Control, interactions) == 56 && __builtin_offsetof(Control, child_slots_used) == 80 &&
              __builtin_offsetof(Tree, ctl) == 96 && __builtin_offsetof(Tree, theta) == 112 &&
              __builtin_offsetof(Tree, second) == 120 && __builtin_offsetof(Tree, box) == 152 &&
              __builtin_offsetof(Tree, previous_acc) == 160 && __builtin_offsetof(Control, core_x) == 88 &&
              __builtin_offsetof(Morton, cell_parent) == 56);
#endif

}  // namespace nbl::bh
