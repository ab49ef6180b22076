// Shared pieces of `nbodylab bench`: one measured run (run_bench), its tables, the progress line, and
// the sub-modes (ladder, sweep, scaling, bhswitches, crossover) registered by add_bench_modes().
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/core/commands.hpp"
#include "app/core/report.hpp"
#include "app/core/options/run_options.hpp"
#include "sim/diagnostics.hpp"
#include "sim/settings.hpp"
#include "sim/snapshot.hpp"
#include "sim/step_stats.hpp"

namespace nbl {

// Warm-up steps are steps of the state like the measured ones: they are only left out of the timings.
// The state that `--save` writes has advanced warmup_steps + steps steps, and the summary says so.
struct BenchOptions {
  int steps = 5;
  int warmup_steps = 1;
  int force_error_sample = 512;
};

struct BenchResult {
  std::string backend, notice;
  std::string variant;             // the kernels that ran, as the backend names them ("" for the CPU backends)
  std::string initial_conditions;  // "plummer", or "loaded from FILE"
  std::vector<std::string> file_description;  // a loaded HDF5 file: its types and unit conversion (Simulation)
  std::size_t bodies = 0;
  std::string bodies_origin;  // why n is what it is when -n was not given ("" when it was)
  double dt = 0, softening = 0;
  int steps_advanced = 0;        // warm-up + measured: how far the final state is from the initial one
  double time = 0;               // simulated time of the final state
  std::vector<StepStats> steps;  // measured steps only
  EnergyReport energy_start, energy_end;
  std::optional<ForceError> force_error;
  Snapshot final_state;  // what --save writes
};

BenchResult run_bench(const Settings& settings, const BenchOptions& options, const std::string& load_file = {});
std::vector<Table> bench_tables(const BenchResult& result, const Settings& settings);
// Prints the tables and writes them to the files that are named (empty: none).
void emit_tables(const std::vector<Table>& tables, const std::string& json_file, const std::string& csv_file);

// "step 3/10  1.52 s/step  about 11 s left" on stderr, only once a run has taken a second.
class ProgressLine {
 public:
  explicit ProgressLine(std::size_t total);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  void update(std::size_t done);

 private:
  std::size_t total_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};
std::string describe_progress(std::size_t done, std::size_t total, double elapsed_s);

// Registers `bench ladder`, `bench sweep`, `bench scaling` and `bench clock` under `bench`, reading
// n, scene, seed, softening and toggles from the bench's run options and repeats / warm-up / error
// sample from its BenchOptions (--steps, --warmup, --error-sample).
std::vector<Command> add_allpairs_bench_modes(CLI::App& bench, std::shared_ptr<RunOptions> run,
                                              std::shared_ptr<BenchOptions> options,
                                              std::shared_ptr<std::string> json_file,
                                              std::shared_ptr<std::string> csv_file);

// The sub-modes of bench; each shares the parent's run options and output files.
std::vector<Command> add_bench_modes(CLI::App& bench, std::shared_ptr<RunOptions> run,
                                     std::shared_ptr<BenchOptions> options, std::shared_ptr<std::string> json_file,
                                     std::shared_ptr<std::string> csv_file);

}  // namespace nbl
