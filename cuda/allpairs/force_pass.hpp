// One all-pairs problem on the device and the launches of one variant's module on it: the force pass
// (with the j-slice sum when the source range is split), the two half-kicks of the leapfrog and the
// vertex writer. The backend runs the lab's bodies through this; the same code runs the fixed check
// problem a new build is judged on (sim/accuracy.hpp), so the check exercises exactly what will run.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/allpairs/variant.hpp"
#include "cuda/engine/async_builds.hpp"
#include "cuda/buffer.hpp"
#include "cuda/device_bodies.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "cuda/engine/reloadable_kernels.hpp"
#include "sim/backend.hpp"
#include "sim/bodies.hpp"
#include "sim/diagnostics.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

class RetiredObjects;

// Bodies, accelerations (float or double, per the variant's precision), the partial sums of a split
// source range, and the kick kernel's NaN flag.
struct AllPairsState {
  DeviceBodies bodies;
  std::size_t real_bytes = 4;
  DeviceBuffer<unsigned char> acc[3], partial[3];
  DeviceBuffer<int> status;
  double eps2 = 0, dt = 0;

  std::size_t size() const { return bodies.size(); }
  // New bodies in `layout`; accelerations sized for them in `real_bytes` precision.
  void set_bodies(const Bodies& b, BodyLayout layout, std::size_t real_bytes, cudaStream_t stream);
  // Switches layout (on the device) and precision (reallocating the accelerations) for another variant.
  // Given `old`, the buffers it replaces go there instead of being freed here (a swap; cuda/retire.hpp).
  void adapt_to(const AllPairsVariant& variant, cudaStream_t stream, RetiredObjects* old = nullptr);
  // Room for the partial sums of a source range split `j_splits` ways (grows only; none for 1): a swap
  // makes it for the new variant's launch, the replaced allocation going to `old`.
  void fit_partials(int j_splits, RetiredObjects* old = nullptr);
  // The first `count` accelerations, in double whatever the precision.
  void download_accelerations(Accelerations& out, std::size_t count, cudaStream_t stream) const;
  // The device memory a step changes: the bodies in their layout and the accelerations (a snapshot copies it).
  std::vector<std::pair<void*, std::size_t>> regions();
  // Every acceleration and partial sum set to NaN (0xff bytes): shows whether a kernel wrote them all.
  void poison(cudaStream_t stream);
};

// The kernels of one compiled variant, launched on a state with typed arguments (launch.hpp).
class AllPairsPass {
 public:
  AllPairsPass(const AllPairsVariant& variant, const KernelModule& module) : variant_(variant), module_(module) {}

  // Forces on bodies [i_first, i_end) from all n, as `plan` lays the grid out from i_first (a multiple of
  // the bodies one block takes; a slice of a sliced force pass, cuda/step_slices.hpp).
  void force(AllPairsState& s, std::size_t i_end, const AllPairsLaunch& plan, cudaStream_t stream,
             std::size_t i_first = 0) const;
  // The whole force pass on every body in `slices` launches of whole blocks (cuda/step_slices.hpp); false
  // when `control` asked to abandon the step between two (the pass is unfinished). The slices alternate
  // between `stream` and a second one, two in flight: a slice's blocks take each SM as the slice before
  // it leaves it, as a single launch's would (waiting for each launch before the next left the SMs that
  // finished first idle until the slowest did: docs/scripts.md has the rates). A launch waits for the
  // one two before it, so an abandoned step stops within two slices.
  struct Overlap {
    CudaStream side;
    CudaEvent started{cudaEventDisableTiming};
    CudaEvent ended[2] = {CudaEvent(cudaEventDisableTiming), CudaEvent(cudaEventDisableTiming)};
  };
  bool force_in_slices(AllPairsState& s, const AllPairsLaunch& plan, int slices, const StepControl& control,
                       cudaStream_t stream, Overlap& overlap) const;
  // How many: 1 unless the control asks for slices and the whole pass (`whole_ms`) was slower than one;
  // where each launch must fill the GPU, as many as it takes for each to hold at most one wave of blocks
  // (`blocks_per_sm` of the force kernel on each of `sm_count` SMs), or whole waves when fewer, longer
  // slices are wanted.
  int slice_count(const AllPairsLaunch& plan, std::size_t n, const StepControl& control, double whole_ms, int sm_count,
                  int blocks_per_sm) const;
  void kick_drift(AllPairsState& s, cudaStream_t stream) const;  // v += a dt/2, x += v dt
  void kick(AllPairsState& s, cudaStream_t stream) const;        // v += a dt/2, flags NaN/inf in `status`
  // The renderer's vertex buffer (sim/render_vertices.hpp): n positions with masses, then n colour keys.
  void vertices(AllPairsState& s, nbl_float4* positions, float* color_keys, ColorMode mode, const ColorScales& scales,
                cudaStream_t stream) const;
  // Each of `repeats` force passes timed with CUDA events (ms), after `warmups` untimed ones.
  std::vector<double> time_force(AllPairsState& s, std::size_t i_end, const AllPairsLaunch& plan, int warmups,
                                 int repeats, cudaStream_t stream) const;

  // Blocks of the force kernel one SM keeps resident (for plan_allpairs_launch).
  int force_blocks_per_sm() const;

 private:
  const AllPairsVariant& variant_;
  const KernelModule& module_;
};

// The generated-code reports of the kernels of `kernels` a step runs with the launch `plan` (the force
// kernel's with its grid), and of the vertex writer.
std::vector<KernelInfo> allpairs_kernel_info(const ReloadableKernels& kernels, const AllPairsLaunch& plan);

// A variant compiled and checked on a worker thread, ready to swap in (a switch, a hot reload, A/B's B).
struct AllPairsBuild {
  AllPairsVariant variant;
  std::unique_ptr<ReloadableKernels> kernels;
  std::string report;
};
// The work of such a build, for the build queue: compile, load, check against `last_good` by the one
// rule. Everything it touches is its own or a copy, so it may run on any thread.
AsyncBuilds<AllPairsBuild>::Make make_allpairs_build(std::shared_ptr<KernelEngine> engine, const AllPairsVariant& v,
                                                     double softening, int sm_count,
                                                     std::optional<ForceError> last_good);

// Runs `variant` (compiled into `module`) on the check problem of sim/accuracy.hpp with this softening,
// using `scratch` for its buffers, and returns its force error.
ForceError check_allpairs_build(const AllPairsVariant& variant, const KernelModule& module, double softening,
                                int sm_count, AllPairsState& scratch, cudaStream_t stream);

}  // namespace nbl
