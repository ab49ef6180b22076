#include "cuda/barneshut/pipeline.hpp"

#include "cuda/step_slices.hpp"

#include <cstddef>
#include <cstdlib>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <string>

#include "cuda/device_bodies.hpp"
#include "cuda/launch.hpp"
#include "cuda/retire.hpp"
#include "sim/accuracy.hpp"
#include "sim/error.hpp"

namespace nbl {

namespace {

void record(const bh::Control& ctl, const BarnesHutVariant& v, std::size_t n, StepStats& stats) {
  stats.interactions = static_cast<double>(ctl.interactions);
  stats.has_tree = true;
  TreeStats& tree = stats.tree;
  tree.max_depth = ctl.max_depth;
  tree.cells = v.morton_build ? ctl.cells : ctl.root - ctl.bottom + 1;
  tree.children_per_cell = tree.cells ? static_cast<double>(ctl.child_slots_used) / tree.cells : 0;
  tree.nodes_touched.min = ctl.touched_min == std::numeric_limits<int>::max() ? 0 : ctl.touched_min;
  tree.nodes_touched.max = ctl.touched_max;
  tree.nodes_touched.avg = n ? static_cast<double>(ctl.touched_sum) / static_cast<double>(n) : 0;
  if (ctl.split && ctl.outer_bodies > 0)
    stats.notices.push_back(std::to_string(ctl.outer_bodies) + (ctl.outer_bodies == 1 ? " body lies" : " bodies lie") +
                            " far outside the bulk (the bodies' cube is more than " +
                            std::to_string(static_cast<int>(bh::kSplitRatio)) +
                            " times the bulk's): the tree resolves the bulk in a cube of its own and those "
                            "bodies in a subtree beside it");
  if (ctl.overflow_bodies > 0)
    stats.notices.push_back(
        std::to_string(ctl.overflow_bodies) + " bodies share cells at the maximum depth (" +
        std::to_string(bh::kMaxDepth) +
        "), closer together than 2^-21 of the cube they are in: "
        "a cell whose bodies lie within a thousandth of the softening length (or at one position) "
        "acts on everything as one point mass; any other such cell's bodies are visited one by one");
}

}  // namespace

std::vector<KernelSource> barneshut_sources(const BarnesHutVariant& v) {
  std::vector<KernelSource> sources(static_cast<std::size_t>(BarnesHutSlot::count));
  auto put = [&](BarnesHutSlot slot, const KernelSource& s) { sources[static_cast<std::size_t>(slot)] = s; };
  put(BarnesHutSlot::bounding_box, v.bounding_box);
  put(BarnesHutSlot::build, v.build);
  put(BarnesHutSlot::summarize, v.summarize);  // empty for the Morton build
  put(BarnesHutSlot::sort, v.sort_bodies);     // likewise
  put(BarnesHutSlot::groups, v.groups);        // group lists in tree order only
  put(BarnesHutSlot::force, v.force);
  put(BarnesHutSlot::integrate, v.integrate);
  return sources;
}

bool same_code(const BarnesHutVariant& a, const BarnesHutVariant& b) {
  const auto sa = barneshut_sources(a), sb = barneshut_sources(b);
  for (std::size_t i = 0; i < sa.size(); ++i)
    if (!sa[i].same_code(sb[i])) return false;
  return a.leaf_capacity == b.leaf_capacity && a.sort == b.sort;
}

std::vector<KernelInfo> barneshut_kernel_info(const ReloadableKernels& kernels, const BarnesHutVariant& v) {
  std::vector<KernelInfo> info;
  auto add = [&](BarnesHutSlot which, std::initializer_list<const char*> entries) {
    const auto slot = static_cast<std::size_t>(which);
    if (!kernels.has(slot)) return;
    for (const char* e : entries) info.push_back(kernels.info(slot, e));
  };
  add(BarnesHutSlot::force, {bh::kForceKernel.name});
  if (v.relative_opening) add(BarnesHutSlot::force, {bh::kPullScaleKernel.name});
  add(BarnesHutSlot::bounding_box, {bh::kBoundingBoxKernel.name});
  if (v.morton_build) {
    add(BarnesHutSlot::build,
        {bh::kMortonKeysKernel.name, bh::kRadixTreeKernel.name, bh::kOctreeCountKernel.name, bh::kOctreeEmitKernel.name,
         bh::kOctreeAttachKernel.name, bh::kOctreeSummarizeKernel.name});
  } else {
    add(BarnesHutSlot::build, {bh::kInsertKernel.name});
    add(BarnesHutSlot::summarize, {bh::kSummarizeKernel.name});
    add(BarnesHutSlot::sort, {bh::kSortKernel.name});
  }
  add(BarnesHutSlot::groups, {bh::kMakeGroupsKernel.name});
  add(BarnesHutSlot::integrate, {bh::kKickDriftKernel.name, bh::kKickKernel.name});
  return info;
}

BarnesHutPipeline::BarnesHutPipeline(const BarnesHutVariant& variant, Modules modules, const DeviceInfo& device)
    : variant_(variant), modules_(std::move(modules)), sm_count_(std::max(device.sm_count, 1)) {
  const BarnesHutVariant& v = variant_;
  if (v.force_shared_bytes > device.shared_per_block_optin)
    throw InputError("force kernel needs " + std::to_string(v.force_shared_bytes) +
                     " bytes of shared memory per block; this GPU allows " +
                     std::to_string(device.shared_per_block_optin) + "; use a smaller bh_block_size");
  force_shared_bytes_ = v.force_shared_bytes;
  if (v.traversal == BhTraversal::group) size_group_stack(device);
  if (force_shared_bytes_ > 48 * 1024)
    NBL_CUDA_CHECK(cudaFuncSetAttribute(module(BarnesHutSlot::force).kernel(bh::kForceKernel.name),
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(force_shared_bytes_)));
  // Kernels 2-4 of the lock-based build wait on each other's results across the grid: every block
  // must be resident at once (a persistent grid), so they are sized by occupancy.
  if (!v.morton_build) {
    build_blocks_ =
        resident_blocks_per_sm(module(BarnesHutSlot::build), bh::kInsertKernel.name, bh::kInsertThreads) * sm_count_;
    summarize_blocks_ =
        resident_blocks_per_sm(module(BarnesHutSlot::summarize), bh::kSummarizeKernel.name, bh::kSummarizeThreads) *
        sm_count_;
    sort_blocks_ =
        resident_blocks_per_sm(module(BarnesHutSlot::sort), bh::kSortKernel.name, bh::kSortThreads) * sm_count_;
  }
}

// The group walk crawls, one node a step, while its node stack is nearly full (bh_tree.hpp), and how
// deep the stack runs grows with the tree and the group's box: a 1M collision late in its run took
// 10.8 ms a step with 512 entries and 5.9 with 768 (groups of 64, H200). Registers usually cap how
// many blocks an SM holds before shared memory does, so the stack takes shared memory that the same
// number of blocks leaves unused: more stack, never fewer warps. But not all of it: shared memory and
// L1 are one array per SM (kUnifiedBeyondShared more than the most shared memory an SM offers), and
// the walk's tree loads live in L1. With less than kKeepL1 left to it the insertion build's walk,
// which touches more nodes, slowed by 16% at 1M (stacks of 1,024 against 768, BENCHMARKS.md).
constexpr std::size_t kUnifiedBeyondShared = 28 * 1024;  // 256 KB on sm_90 (228 shared), 192 on sm_80 (164)
constexpr std::size_t kKeepL1 = 64 * 1024;

void BarnesHutPipeline::size_group_stack(const DeviceInfo& device) {
  const BarnesHutVariant& v = variant_;
  const int warps = v.force_block / 32;
  const auto bytes_for = [&](int stack) {
    return static_cast<std::size_t>(warps) *
           bh::group_shared_bytes_per_warp(v.force_list_capacity, v.force_cell_capacity, stack);
  };
  force_stack_ = bh::kMinGroupStack;
  force_shared_bytes_ = bytes_for(force_stack_);
  const KernelModule& force = module(BarnesHutSlot::force);
  const void* kernel = force.kernel(bh::kForceKernel.name);
  // The occupancy queries below must see the kernel allowed the largest block it may get.
  NBL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(device.shared_per_block_optin)));
  const int blocks = resident_blocks_per_sm(force, bh::kForceKernel.name, v.force_block, force_shared_bytes_);
  if (blocks < 1 || device.shared_per_sm + kUnifiedBeyondShared <= kKeepL1) return;
  const std::size_t shared = std::min(device.shared_per_sm, device.shared_per_sm + kUnifiedBeyondShared - kKeepL1);
  const std::size_t share = shared / static_cast<std::size_t>(blocks);
  const std::size_t per_block =
      std::min<std::size_t>({share - std::min(share, device.shared_reserved_per_block), device.shared_per_block_optin,
                             static_cast<std::size_t>(bh::kForceSharedLimit)});
  // A warp's bytes with a stack of s entries: those with none (lists, the stack's slack) plus 4 s.
  const int fixed = bh::group_shared_bytes_per_warp(v.force_list_capacity, v.force_cell_capacity, 0);
  int stack = std::min((static_cast<int>(per_block / static_cast<std::size_t>(warps)) - fixed) / 4, bh::kMaxGroupStack);
  stack -= stack % 32;
  // For measuring the trade-off (BENCHMARKS.md): NBODYLAB_BH_STACK caps the stack lower; the shared
  // memory the stack does not take stays L1 cache, which the walk's tree loads use.
  if (const char* cap = std::getenv("NBODYLAB_BH_STACK"); cap && std::atoi(cap) > 0)
    stack = std::min(stack, std::atoi(cap));
  if (stack <= bh::kMinGroupStack) return;
  // Trust the occupancy calculator over the arithmetic above: keep the larger stack only when the SM
  // still holds as many blocks.
  if (resident_blocks_per_sm(force, bh::kForceKernel.name, v.force_block, bytes_for(stack)) < blocks) return;
  force_stack_ = stack;
  force_shared_bytes_ = bytes_for(stack);
}

namespace {

// Clears what a force walk counts in Control (interactions, nodes touched), as the bounding-box kernel
// leaves them before the first walk: a second walk over the same tree then counts alone.
void forget_walk_counts(bh::Control* ctl, cudaStream_t stream) {
  char* base = reinterpret_cast<char*>(ctl);
  NBL_CUDA_CHECK(
      cudaMemsetAsync(base + offsetof(bh::Control, interactions), 0, 2 * sizeof(unsigned long long), stream));
  NBL_CUDA_CHECK(cudaMemsetAsync(base + offsetof(bh::Control, touched_min), 0x7f, sizeof(int), stream));
  NBL_CUDA_CHECK(cudaMemsetAsync(base + offsetof(bh::Control, touched_max), 0, sizeof(int), stream));
}

}  // namespace

int BarnesHutPipeline::stream_blocks(std::size_t n) const {
  return std::clamp(blocks_for(n, bh::kStreamThreads), 1, sm_count_ * 32);
}

void BarnesHutPipeline::build_tree(BarnesHutBuffers& b, const BarnesHutPhysics& p, cudaStream_t stream,
                                   StageTimer* timer) {
  b.reset_control(stream);
  const bh::Tree t = b.tree(p);
  const std::size_t n = b.size();
  const int count = static_cast<int>(n);
  const auto streaming = [&](std::size_t elements) {
    return LaunchShape::fixed(stream_blocks(elements), bh::kStreamThreads);
  };
  run_stage(timer, Stage::bounding_box, [&] {
    launch(module(BarnesHutSlot::bounding_box), bh::kBoundingBoxKernel,
           LaunchShape::fixed(b.bounds_blocks(), bh::kBoundsThreads), stream, t);
  });
  const KernelModule& build = module(BarnesHutSlot::build);
  if (variant_.morton_build) {
    const bh::Morton m = b.morton();
    run_stage(timer, Stage::tree_build, [&] {
      launch(build, bh::kMortonKeysKernel, streaming(n), stream, t, b.unsorted_keys(), b.unsorted_ids());
      primitives_.sort_pairs(b.unsorted_keys(), m.keys, b.unsorted_ids(), t.sorted, count, 63, stream);
      b.reset_children(stream);
      if (n == 1) {
        launch(build, bh::kOctreeSingleKernel, LaunchShape::fixed(1, 1), stream, t);
      } else {
        launch(build, bh::kRadixTreeKernel, streaming(n - 1), stream, count, m);
        launch(build, bh::kOctreeCountKernel, streaming(n - 1), stream, count, m);
        primitives_.exclusive_sum(m.cells, m.offset, count - 1, stream);
        launch(build, bh::kOctreeEmitKernel, streaming(n - 1), stream, t, m);
        launch(build, bh::kOctreeAttachKernel, streaming(n), stream, t, m);
      }
    });
    run_stage(timer, Stage::summarize, [&] {
      if (n <= 1) return;
      launch(build, bh::kOctreeSummarizeKernel, streaming(n), stream, t, m);
    });
  } else {
    run_stage(timer, Stage::tree_build, [&] {
      launch(build, bh::kInsertKernel, LaunchShape::fixed(build_blocks_, bh::kInsertThreads), stream, t);
    });
    run_stage(timer, Stage::summarize, [&] {
      launch(module(BarnesHutSlot::summarize), bh::kSummarizeKernel,
             LaunchShape::fixed(summarize_blocks_, bh::kSummarizeThreads), stream, t);
    });
    run_stage(timer, Stage::sort, [&] {
      launch(module(BarnesHutSlot::sort), bh::kSortKernel, LaunchShape::fixed(sort_blocks_, bh::kSortThreads), stream,
             t);
    });
  }
  if (has(BarnesHutSlot::groups)) {
    const int insertion_build = variant_.morton_build ? 0 : 1;  // which ids are cells (bh_groups.cu)
    run_stage(timer, Stage::groups, [&] {
      launch(module(BarnesHutSlot::groups), bh::kMakeGroupsKernel, streaming(n), stream, t, insertion_build);
    });
  }
}

void BarnesHutPipeline::forces(BarnesHutBuffers& b, const BarnesHutPhysics& p, cudaStream_t stream, StageTimer* timer,
                               StepStats& stats, bool then_kick, const float4* previous_acc, int slices,
                               const StepControl* control, StopWord* stop) {
  bool retried_spin = false;
  for (int attempt = 0;; ++attempt) {
    if (timer && attempt > 0) timer->begin(stream);
    build_tree(b, p, stream, timer);
    const bh::Tree t = b.tree(p);
    run_stage(timer, Stage::force, [&] {
      bh::Tree walk = t;
      walk.stack_cap = force_stack_;
      const auto shape = LaunchShape::cover(b.size(), variant_.force_block, force_shared_bytes_);
      walk.previous_acc = nullptr;
      if (variant_.relative_opening) {
        if (!previous_acc) {
          // No accelerations to judge by yet: the geometric walk provides them (GADGET-2's first step).
          launch(module(BarnesHutSlot::force), bh::kForceKernel, shape, stream, walk);
          forget_walk_counts(t.ctl, stream);  // the statistics are the relative walk's
          previous_acc = b.accelerations();
        }
        walk.previous_acc = previous_acc;
        launch(module(BarnesHutSlot::force), bh::kPullScaleKernel,
               LaunchShape::fixed(b.bounds_blocks(), bh::kBoundsThreads), stream, walk);
      }
      // A stoppable walk reads the stop word, and each of its launches is waited for by polling the
      // control: a request to abandon raises the word, warps that start after it leave at once, and the
      // launch ends when the warps already walking have finished their items.
      const bool stoppable = control && stop;
      if (stoppable) walk.stop = stop->arm(stream);
      const auto waited = [&] {
        return stoppable ? wait_or_stop(*control, stream, *stop) : next_slice(*control, stream);
      };
      if (slices <= 1 || !control) {
        launch(module(BarnesHutSlot::force), bh::kForceKernel, shape, stream, walk);
        if (stoppable && !waited()) stats.abandoned = true;
        return;
      }
      // In slices of the walk's work items, each waited for: the display draws between them, and a
      // request to abandon the step is seen. Each item's walk does not depend on the slicing.
      walk.slices = slices;
      const auto slice_shape =
          LaunchShape::cover((b.size() + slices - 1) / slices, variant_.force_block, force_shared_bytes_);
      for (int s = 0; s < slices; ++s) {
        if (s > 0 && !waited()) {
          stats.abandoned = true;
          return;
        }
        walk.slice = s;
        launch(module(BarnesHutSlot::force), bh::kForceKernel, slice_shape, stream, walk);
      }
      if (stoppable && !waited()) stats.abandoned = true;
      stats.force_slices = slices;
    });
    if (stats.abandoned) return;
    if (then_kick) {
      run_stage(timer, Stage::integrate, [&] {
        launch(module(BarnesHutSlot::integrate), bh::kKickKernel,
               LaunchShape::fixed(stream_blocks(b.size()), bh::kStreamThreads), stream, t);
      });
    }
    if (timer) timer->finish(stats);
    const bh::Control ctl = b.read_control(stream);
    if (ctl.error & bh::kErrorNonFinite) {
      stats.non_finite = true;
      stats.notices.push_back("the state holds NaN or inf values: the simulation blew up (try a smaller dt)");
      return;
    }
    if (ctl.error & bh::kErrorPoolExhausted) {
      // The Morton build knows how many cells it needs; the insertion build only that it ran out.
      const std::size_t n = b.size();
      const long long needed = variant_.morton_build
                                   ? static_cast<long long>(ctl.cells) + ctl.cells / 4 + 64
                                   : std::max(2LL * b.max_cells(), static_cast<long long>(n + n / 2 + 64));
      if (attempt >= 8 || static_cast<std::size_t>(needed) > 8 * BarnesHutBuffers::kMaxBodies)
        throw Error("the octree needs more cells than the pool can hold (" + std::to_string(needed) + ")");
      b.grow_cells(static_cast<int>(needed), stream);
      stats.notices.push_back("cell pool grown to " + std::to_string(b.max_cells()) + " cells; tree rebuilt");
      continue;
    }
    if (ctl.error & bh::kErrorSpinLimit) {
      if (retried_spin)
        throw Error("the tree build did not finish: a wait exceeded its bound twice (" + variant_.label + ")");
      retried_spin = true;
      stats.notices.push_back("a tree-build wait exceeded its bound; tree rebuilt");
      continue;
    }
    record(ctl, variant_, b.size(), stats);
    return;
  }
}

void BarnesHutPipeline::kick_drift(BarnesHutBuffers& b, const BarnesHutPhysics& p, cudaStream_t stream) {
  launch(module(BarnesHutSlot::integrate), bh::kKickDriftKernel,
         LaunchShape::fixed(stream_blocks(b.size()), bh::kStreamThreads), stream, b.tree(p));
}

void BarnesHutPipeline::write_vertices(BarnesHutBuffers& b, float4* positions, float* keys, int mode,
                                       const bh::VertexScales& scales, cudaStream_t stream) {
  const bh::Tree t = b.tree({});
  const auto shape = LaunchShape::fixed(stream_blocks(b.size()), bh::kStreamThreads);
  const KernelModule& integrate = module(BarnesHutSlot::integrate);
  const bool want_rank =
      mode == static_cast<int>(ColorMode::body_index) || mode == static_cast<int>(ColorMode::warp_id);
  const int* rank = nullptr;
  if (want_rank && variant_.sort) {
    int* r = b.rank();
    launch(integrate, bh::kRankKernel, shape, stream, t, r);
    rank = r;
  }
  launch(integrate, bh::kWriteVerticesKernel, shape, stream, t, positions, keys, mode, scales, rank);
}

ForceError check_barneshut_build(const BarnesHutVariant& variant, const BarnesHutPipeline::Modules& modules,
                                 const DeviceInfo& device, double softening, double theta,
                                 std::unique_ptr<BarnesHutBuffers>& scratch, cudaStream_t stream,
                                 bh::Primitives* sort_scratch) {
  const auto problem = validation_problem(softening);
  const std::size_t n = problem->bodies.size();
  if (!scratch) scratch = std::make_unique<BarnesHutBuffers>();
  if (scratch->size() != n) scratch->allocate(n, variant, BarnesHutBuffers::initial_cells(n), device.sm_count);
  else scratch->fit_variant(variant);
  upload_float4_bodies(problem->bodies, scratch->positions(), scratch->velocities(), stream);
  // NaN in every acceleration first: a body the force kernel skips cannot pass as a stale right answer.
  NBL_CUDA_CHECK(cudaMemsetAsync(scratch->accelerations(), 0xff, n * sizeof(float4), stream));
  BarnesHutPipeline pipeline(variant, modules, device);
  if (sort_scratch) pipeline.swap_scratch(*sort_scratch);
  StepStats stats;
  const BarnesHutPhysics physics{0.0f, static_cast<float>(softening * softening), static_cast<float>(theta)};
  pipeline.forces(*scratch, physics, stream, nullptr, stats);
  if (sort_scratch) pipeline.swap_scratch(*sort_scratch);
  std::vector<float4> acc(ValidationProblem::kChecked);
  NBL_CUDA_CHECK(cudaMemcpyAsync(acc.data(), scratch->accelerations(), acc.size() * sizeof(float4),
                                 cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  Accelerations computed;
  computed.resize(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i)
    computed.x[i] = acc[i].x, computed.y[i] = acc[i].y, computed.z[i] = acc[i].z;
  return validation_error(*problem, computed);
}

AsyncBuilds<BarnesHutBuild>::Make make_barneshut_build(std::shared_ptr<KernelEngine> engine, const BarnesHutVariant& v,
                                                       double softening, double theta, const DeviceInfo& device,
                                                       std::optional<ForceError> last_good) {
  return [engine = std::move(engine), v, softening, theta, device, last_good](BuildTicket& ticket) {
    auto build = std::make_unique<BarnesHutBuild>();
    build->variant = v;
    build->kernels = std::make_unique<ReloadableKernels>(*engine, barneshut_sources(v));
    ticket.set(BuildState::checking);
    CudaStream stream{CudaStream::Priority::background};  // the check yields to the running lab's kernels
    // The check's device memory stays with this worker thread from one build to the next: every
    // allocation and release waits for the whole device, the running lab's frames included, and a
    // swap prefetches dozens of neighbouring variants. Released when the build queue joins the worker.
    thread_local std::unique_ptr<BarnesHutBuffers> scratch;
    thread_local bh::Primitives sort_scratch;
    const BuildVerdict verdict = build->kernels->adopt(
        [&](const ReloadableKernels::Modules& m) {
          return check_barneshut_build(v, m, device, softening, theta, scratch, stream.get(), &sort_scratch);
        },
        force_error_bound(Algorithm::barneshut, false, theta, v.tolerance), last_good);
    if (!verdict.accepted) throw refuse(std::move(build), stream, verdict.report);
    build->pipeline = std::make_unique<BarnesHutPipeline>(v, build->kernels->modules(), device);
    build->report = verdict.report;
    return build;
  };
}

}  // namespace nbl
