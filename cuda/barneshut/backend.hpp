// The GPU Barnes-Hut backend: the six kernels of Burtscher's CUDA optimization tutorial (Part II) behind the Backend
// interface. A thin facade: the switchboard (barneshut_variant.hpp) picks the kernel sources, the
// reloadable kernel set (reloadable_kernels.hpp) compiles, checks and hot-reloads them, the pipeline
// (barneshut_pipeline.hpp) runs them on the buffers (barneshut_buffers.hpp). Every build it adopts,
// a switched variant or an edited file, passes the one rule of sim/accuracy.hpp first.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/barneshut/tree_copy.hpp"
#include "sim/backend.hpp"

namespace nbl {

class KernelEngine;

class BarnesHutBackend final : public Backend {
 public:
  struct Options {
    int initial_cells = 0;                 // first cell pool; 0: the usual size (tests make it tiny to force growth)
    std::shared_ptr<KernelEngine> engine;  // null: the process's shared engine
  };
  // Throws Error without a usable GPU, InputError for a variant the GPU cannot run, and Error when the
  // variant is refused by the build check.
  BarnesHutBackend(const Settings& settings, Options options);
  explicit BarnesHutBackend(const Settings& settings) : BarnesHutBackend(settings, Options{}) {}
  ~BarnesHutBackend() override;

  std::string name() const override;
  Algorithm algorithm() const override { return Algorithm::barneshut; }
  bool on_gpu() const override { return true; }
  std::size_t body_count() const override;

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
  StepStats step() override;
  void compute_accelerations(Accelerations& out) override;
  void write_vertices(VertexTarget target, ColorMode mode) override;
  void* cuda_stream() const override;
  std::vector<CellBox> tree_cells(int max_depth) override;
  std::vector<KernelInfo> kernel_info() const override;

  // ---- beyond Backend ----
  // Builds the tree for the current positions (with forces) and copies it to the host.
  BarnesHutTreeCopy copy_tree();
  std::size_t device_bytes() const;  // what the buffers hold now
  // Checks the kernel files now (step() does it itself, at most every half second). True when an
  // edited build was checked and swapped in.
  bool poll_reload(bool force = false);
  // How many kernels of the running build's modules are not loaded into the CUDA context (a swapped-in
  // build must have none before its first launch); nothing when the driver cannot say.
  std::optional<int> unloaded_kernels() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::unique_ptr<Backend> make_barneshut_backend(const Settings& settings);

// Device bytes per body the backend allocates for n bodies with these toggles (cell pool, the build's
// scratch): what the simulation checks against free memory before it starts.
std::size_t barneshut_bytes_per_body(std::size_t n, const ToggleValues& toggles);

}  // namespace nbl
