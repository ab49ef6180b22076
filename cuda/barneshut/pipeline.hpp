// The six Barnes-Hut kernels in order (Burtscher's CUDA optimization tutorial, Part II), for one variant's modules on one set of
// buffers: bounding box, tree build (lock-based insertion, or Morton keys + radix tree), summarize,
// sort, force groups, force, integrate; and the recovery from bad geometry: a cell pool that ran out
// is grown and the tree rebuilt, a wait that hit its bound is retried once, NaN/inf is reported.
// The backend runs the lab's bodies through this, and the same code runs the check problem a new
// build is judged on.
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/barneshut/buffers.hpp"
#include "cuda/barneshut/variant.hpp"
#include "cuda/engine/async_builds.hpp"
#include "cuda/barneshut/primitives.hpp"
#include "cuda/device.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "cuda/engine/reloadable_kernels.hpp"
#include "cuda/stage_timer.hpp"
#include "sim/backend.hpp"
#include "sim/diagnostics.hpp"
#include "sim/settings.hpp"
#include "sim/step_stats.hpp"

namespace nbl {

class StopWord;  // cuda/step_slices.hpp

// The kernel sources of a variant, one slot each (cuda/engine/reloadable_kernels.hpp keeps them in this order).
enum class BarnesHutSlot { bounding_box, build, summarize, sort, groups, force, integrate, count };
std::vector<KernelSource> barneshut_sources(const BarnesHutVariant& variant);
// Whether two variants run the same code: the same sources, macros and options in every slot, and the
// same host-side choices (leaf capacity, sorting). Anything else is a new build.
bool same_code(const BarnesHutVariant& a, const BarnesHutVariant& b);
// The generated-code reports of the kernels `variant` runs, from its compiled set.
std::vector<KernelInfo> barneshut_kernel_info(const ReloadableKernels& kernels, const BarnesHutVariant& variant);

class BarnesHutPipeline {
 public:
  using Modules = std::vector<std::shared_ptr<KernelModule>>;  // indexed by BarnesHutSlot

  // Sets the launch limits of these modules (dynamic shared memory, resident grids). Throws InputError
  // when the force kernel needs more shared memory than the GPU allows.
  BarnesHutPipeline(const BarnesHutVariant& variant, Modules modules, const DeviceInfo& device);

  // Kernels 1-5: tree and forces for the current positions; with then_kick, kernel 6's second half-kick.
  // Records the tree statistics (or non_finite) in `stats`; stage times when `timer` is given.
  // previous_acc: these bodies' accelerations from an earlier pass (it may be b's own), which a variant
  // with relative opening judges cells by; without them such a variant first computes them with the
  // geometric test, an extra walk over the same tree.
  // slices > 1 (the lab's stepping thread, cuda/step_slices.hpp): the walk in that many launches, each
  // waited for; when `control` asks to abandon between two, the pass stops there with stats.abandoned set
  // (no kick, no statistics) and the caller puts the state back. With `stop` as well, the walk's
  // launches read that word and the stepping thread waits for each by polling the control, so a request
  // to abandon stops a launch inside it (a whole Sort-off walk at a million bodies takes a second).
  void forces(BarnesHutBuffers& b, const BarnesHutPhysics& p, cudaStream_t stream, StageTimer* timer, StepStats& stats,
              bool then_kick = false, const float4* previous_acc = nullptr, int slices = 1,
              const StepControl* control = nullptr, StopWord* stop = nullptr);
  // Kernel 6's first half: v += a dt/2, x += v dt.
  void kick_drift(BarnesHutBuffers& b, const BarnesHutPhysics& p, cudaStream_t stream);
  // The renderer's vertices (sim/render_vertices.hpp layout) into `positions` and `keys`.
  void write_vertices(BarnesHutBuffers& b, float4* positions, float* keys, int mode, const bh::VertexScales& scales,
                      cudaStream_t stream);

  const BarnesHutVariant& variant() const { return variant_; }
  const Modules& modules() const { return modules_; }
  // The group walk's node stack, entries per warp, and the force kernel's shared memory with it: the
  // least the variant needs, grown into what the kernel's occupancy leaves of the SM (0 and the
  // variant's bytes for the other traversals).
  int force_stack_capacity() const { return force_stack_; }
  std::size_t force_shared_bytes() const { return force_shared_bytes_; }
  // Takes over `previous`'s scratch (the device-wide sorts' temporary storage, sized for the bodies it
  // ran): a swapped-in pipeline neither allocates it on its first step nor frees the old one's.
  void adopt_scratch(BarnesHutPipeline& previous) { std::swap(primitives_, previous.primitives_); }
  void swap_scratch(bh::Primitives& other) { std::swap(primitives_, other); }

 private:
  const KernelModule& module(BarnesHutSlot slot) const { return *modules_[static_cast<std::size_t>(slot)]; }
  bool has(BarnesHutSlot slot) const { return modules_[static_cast<std::size_t>(slot)] != nullptr; }
  void size_group_stack(const DeviceInfo& device);
  void build_tree(BarnesHutBuffers& b, const BarnesHutPhysics& p, cudaStream_t stream, StageTimer* timer);
  int stream_blocks(std::size_t n) const;

  BarnesHutVariant variant_;
  Modules modules_;
  int sm_count_ = 1;
  int build_blocks_ = 1, summarize_blocks_ = 1, sort_blocks_ = 1;
  int force_stack_ = 0;
  std::size_t force_shared_bytes_ = 0;
  bh::Primitives primitives_;
};

// A variant compiled, checked and ready to run, made on a worker thread (a switch, a hot reload, A/B's B).
struct BarnesHutBuild {
  BarnesHutVariant variant;
  std::unique_ptr<ReloadableKernels> kernels;
  std::unique_ptr<BarnesHutPipeline> pipeline;
  std::string report;
};
// The work of such a build, for the build queue: compile, load, check against `last_good` by the one
// rule (at this softening and theta). Everything it touches is its own or a copy.
AsyncBuilds<BarnesHutBuild>::Make make_barneshut_build(std::shared_ptr<KernelEngine> engine, const BarnesHutVariant& v,
                                                       double softening, double theta, const DeviceInfo& device,
                                                       std::optional<ForceError> last_good);

// Runs these modules on the check problem of sim/accuracy.hpp (softening, theta) in `scratch`; the
// check's sort scratch is taken from and left in `sort_scratch` when given, so that checks one after
// another on one thread allocate nothing (an allocation waits for the whole device, the lab included).
ForceError check_barneshut_build(const BarnesHutVariant& variant, const BarnesHutPipeline::Modules& modules,
                                 const DeviceInfo& device, double softening, double theta,
                                 std::unique_ptr<BarnesHutBuffers>& scratch, cudaStream_t stream,
                                 bh::Primitives* sort_scratch = nullptr);

}  // namespace nbl
