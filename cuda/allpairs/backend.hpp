// The GPU all-pairs backend: O(n^2) direct summation with every rung of the optimization ladder
// (Burtscher's CUDA optimization tutorial, Part I) selectable at run time. The switchboard (allpairs_variant.hpp) turns the
// toggles into a kernel variant; the engine (kernel_engine.hpp) compiles and caches it; this class
// keeps the bodies on the device in the layout the variant reads, runs kick-drift-kick steps with
// per-stage CUDA-event timings, writes the renderer's vertex buffer, and hot-reloads a kernel file
// edited on disk. Every build it adopts, a hot reload or a switched variant, passes the one rule of
// sim/accuracy.hpp first (cuda/engine/reloadable_kernels.hpp); a refused variant leaves the running one.
// No CUDA types in this header: app/ (bench) includes it.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/allpairs/variant.hpp"
#include "sim/backend.hpp"

namespace nbl {

class KernelEngine;

class AllPairsBackend final : public Backend {
 public:
  // Throws Error when there is no usable GPU, or the variant does not compile or is refused by the
  // build check. `engine` defaults to the process's shared one.
  explicit AllPairsBackend(const Settings& settings, std::shared_ptr<KernelEngine> engine = nullptr);
  ~AllPairsBackend() override;

  std::string name() const override;
  Algorithm algorithm() const override { return Algorithm::allpairs; }
  bool on_gpu() const override { return true; }
  void configure(const Settings& settings) override;
  bool configure_async(const Settings& settings) override;
  std::optional<ConfigureOutcome> poll_configure() override;
  std::vector<BuildProgress> builds() const override;
  std::string variant_label() const override;
  void set_comparison(const std::optional<Settings>& b) override;
  std::optional<ComparisonSample> compare() override;
  std::vector<BuildProgress> comparison_builds() const override;
  bool comparison_ready() const override;
  bool comparison_accelerations(Accelerations& out) override;
  bool begin_energy(std::uint64_t seed) override;
  std::optional<EnergyReport> advance_energy(double budget_ms) override;
  double energy_progress() const override;
  void set_bodies(const Bodies& bodies) override;
  void get_bodies(Bodies& bodies) override;
  std::size_t body_count() const override;
  StepStats step() override;
  void compute_accelerations(Accelerations& out) override;
  void write_vertices(VertexTarget target, ColorMode mode) override;
  void* cuda_stream() const override;
  std::vector<KernelInfo> kernel_info() const override;

  // ---- beyond Backend: for the bench and the tests ----
  const AllPairsVariant& variant() const;
  AllPairsLaunch launch() const;  // the force launch for all n bodies

  // Times the force pass (the force kernel, plus the slice sum when the j range is split) with CUDA
  // events: `warmups` untimed runs, then `repeats` timed ones. Forces are computed for the first
  // `i_count` bodies (0: all) against all n, so a slow variant can be timed on a sample of bodies and
  // scaled (the bench does this for the single-thread rung).
  struct ForceTiming {
    std::vector<double> ms;  // one per repeat
    double median_ms = 0;
    std::size_t i_count = 0, n = 0;
    AllPairsLaunch launch;
    double interactions() const { return static_cast<double>(i_count) * static_cast<double>(n); }
  };
  ForceTiming time_force(int warmups, int repeats, std::size_t i_count = 0);

  // The accelerations the last force pass left in the buffers, without computing them again (after
  // time_force on a sample, only the first i_count are meaningful).
  void read_accelerations(Accelerations& out) const;

  // Fills the acceleration (and partial-sum) buffers with 0xff bytes (NaN), so a test sees whether
  // the kernel really wrote every element.
  void poison_outputs();

  // Checks the kernel files now (step() does it itself, at most every half second). True when a new
  // build was validated and swapped in.
  bool poll_reload(bool force = false);

  // How many kernels of the running build are not loaded into the CUDA context (a swapped-in build
  // must have none before its first launch: cuda/engine/kernel_loading.hpp); nothing when the driver cannot say.
  std::optional<int> unloaded_kernels() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Device memory per body, the worst case over the variants (float4 bodies 32 B, double
// accelerations 24 B, the host-copy vertex staging 20 B).
inline constexpr std::size_t kAllPairsBytesPerBody = 80;

}  // namespace nbl
