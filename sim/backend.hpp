// A simulation backend: the bodies, wherever they live, and the code that steps them. Four exist
// (docs/architecture.md): all-pairs and Barnes-Hut, each on the GPU and on the CPU. The app, bench and tests talk
// to all four through this interface only; nothing here names CUDA, GL or ImGui.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/bodies.hpp"
#include "sim/build_progress.hpp"
#include "sim/comparison.hpp"
#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/settings.hpp"
#include "sim/step_stats.hpp"

namespace nbl {

// Where write_vertices() puts the vertex buffer (layout: sim/render_vertices.hpp).
struct VertexTarget {
  void* data = nullptr;
  bool on_device = false;  // a CUDA device pointer (a mapped GL buffer) rather than host memory
};

// One octree cell for the overlay.
struct CellBox {
  float center[3];
  float half_size;
  int depth;
};

// What the compiler made of one kernel (the panel's "generated code" view, `nbodylab kernels`).
struct KernelInfo {
  std::string name;      // kernel entry point
  std::string variant;   // the toggles that shaped it, e.g. "soa rsqrt shared unroll=8"
  int registers = -1;    // per thread; -1 when unknown
  int spill_bytes = -1;  // spill stores + loads, bytes
  int shared_bytes = -1;
  std::vector<std::pair<std::string, int>> instruction_mix;  // PTX opcode class -> count
  std::string compile_log;     // the compiler's messages (the error after a failed hot reload)
  bool reload_failed = false;  // the file on disk does not compile; the previous module still runs
  // The hot loop's issued instructions per interaction (0: the kernel has no loop of interactions),
  // and where the count comes from: "SASS (cuobjdump)", or "PTX" with the reason SASS was not read.
  double instructions_per_interaction = 0;
  std::string instruction_source;
};

// How the lab's stepping thread (app/core/stepper.hpp) wants its steps run, so that the display never waits
// for them. bench, A/B, render and the tests leave it unset: their force passes stay whole, as timed.
struct StepControl {
  // Set from the display thread when the user has left the variant that is stepping: the step stops at
  // its next slice boundary and puts the state back as it was before the step (StepStats::abandoned).
  const std::atomic<bool>* abandon = nullptr;
  // A force pass that took longer than this is split into launches (or chunks of bodies) of about this
  // long, or fewer where each must fill the GPU (fill_each_slice), at most two in flight, so that the
  // display's work gets the GPU in between and `abandon` is looked at. The result is
  // bit-identical to the whole pass. 0: never split.
  double slice_ms = 0;
  // On the GPU each launch keeps enough work to fill the GPU, so a long pass gets fewer and longer slices:
  // a launch that leaves SMs idle makes no walk shorter and the whole pass slower. Tests turn it off to
  // slice as finely as the items allow.
  bool fill_each_slice = true;
  bool abandoned() const { return abandon && abandon->load(std::memory_order_relaxed); }
};

class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual std::string name() const = 0;  // e.g. "Barnes-Hut on NVIDIA H100 80GB HBM3"
  virtual Algorithm algorithm() const = 0;
  virtual bool on_gpu() const = 0;

  // Adopt new kernel toggles and physics parameters. Cheap when nothing changed; may compile a kernel.
  // The caller (Simulation) always passes dt and softening set: scene defaults are resolved before.
  virtual void configure(const Settings& settings) = 0;

  // The same without stalling (the lab): a change that needs new kernel code is compiled and checked
  // on worker threads while the running kernels keep stepping, and poll_configure() swaps it in between
  // two steps. Returns true when the settings took effect at once (nothing to build). Backends without
  // kernel builds apply at once.
  virtual bool configure_async(const Settings& settings) {
    configure(settings);
    return true;
  }
  // The newest asynchronous request's outcome, once: adopted (the settings now run) or refused (the
  // previous ones still run). Call between steps.
  virtual std::optional<ConfigureOutcome> poll_configure() { return std::nullopt; }
  // Builds in flight or just finished (the panel's progress line).
  virtual std::vector<BuildProgress> builds() const { return {}; }
  // The kernel variant that runs now, in the words its builds are labelled with (BuildProgress::label);
  // "" for backends without kernel variants (the CPU ones).
  virtual std::string variant_label() const { return {}; }

  // A/B (sim/comparison.hpp): B is another configuration of this backend's algorithm (its toggles, and
  // theta for Barnes-Hut; dt and softening resolved as for A). set_comparison() builds and checks B's
  // kernels on a worker, like configure_async; null clears B. compare() computes B's forces from the
  // current state, times them by stage and compares them with A's (the forces the last step left),
  // once B is built; before that, nothing. B never moves the bodies. GPU backends only.
  virtual void set_comparison(const std::optional<Settings>& b);
  virtual std::optional<ComparisonSample> compare() { return std::nullopt; }
  virtual std::vector<BuildProgress> comparison_builds() const { return {}; }
  virtual bool comparison_ready() const { return false; }
  // B's accelerations from the last compare() (for its error against the direct sum); false when none.
  virtual bool comparison_accelerations(Accelerations& out) {
    (void)out;
    return false;
  }

  // The energy of the state measured on the device in slices spread across frames (cuda/energy_pass.hpp:
  // every pair up to 4M bodies, a sample of rows above, accumulated in double). begin_energy() snapshots
  // the current state and returns false on a backend without such a pass (the caller then measures a
  // host copy with sim/diagnostics.hpp), between steps; advance_energy() enqueues about `budget_ms` of
  // device work on a stream of its own, below the steps' priority, and may be called while a step runs
  // on another thread (it reads the snapshot alone); it returns the report with its last call;
  // energy_progress() is the share enqueued so far.
  virtual bool begin_energy(std::uint64_t seed) {
    (void)seed;
    return false;
  }
  virtual std::optional<EnergyReport> advance_energy(double budget_ms) {
    (void)budget_ms;
    return std::nullopt;
  }
  virtual double energy_progress() const { return 0; }

  virtual void set_bodies(const Bodies& bodies) = 0;
  virtual void get_bodies(Bodies& bodies) = 0;
  virtual std::size_t body_count() const = 0;

  // One kick-drift-kick leapfrog step with the configured dt. Under a StepControl that asks for it the
  // step may stop early, leaving the state as it was (StepStats::abandoned).
  virtual StepStats step() = 0;
  // Set once by the lab's stepping thread before it steps; backends that can neither split their force
  // pass nor stop early ignore it.
  void set_step_control(const StepControl& control) { step_control_ = control; }
  const StepControl& step_control() const { return step_control_; }

  // Accelerations at the current positions, computed by this backend's force path as configured.
  virtual void compute_accelerations(Accelerations& out) = 0;

  // Fill the vertex buffer for the renderer. A host target is complete when this returns; a device
  // target is written in stream order on cuda_stream() (the interop unmap waits for that stream only).
  virtual void write_vertices(VertexTarget target, ColorMode mode) = 0;

  // The CUDA stream (a cudaStream_t) this backend's device work runs on; null for CPU backends.
  virtual void* cuda_stream() const { return nullptr; }

  // Octree cells up to max_depth (Barnes-Hut backends; empty otherwise).
  virtual std::vector<CellBox> tree_cells(int max_depth) {
    (void)max_depth;
    return {};
  }

  // Generated-code report of the kernels this backend runs now (GPU backends).
  virtual std::vector<KernelInfo> kernel_info() const { return {}; }

 protected:
  StepControl step_control_;
};

inline void Backend::set_comparison(const std::optional<Settings>& b) {
  if (b)
    throw InputError("A/B compares GPU kernel variants on the same state: it needs a GPU backend (" + name() + ")");
}

}  // namespace nbl
