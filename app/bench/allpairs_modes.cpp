// `bench ladder`, `bench sweep`, `bench scaling` and `bench clock`: the command line over the all-pairs
// measurements of app/core/teaching/allpairs_bench.hpp.
#include <charconv>
#include <system_error>

#include "app/bench/bench.hpp"
#include "app/core/teaching/allpairs_bench.hpp"
#include "cuda/clock_probe.hpp"

namespace nbl {

std::vector<Command> add_allpairs_bench_modes(CLI::App& bench, std::shared_ptr<RunOptions> run,
                                              std::shared_ptr<BenchOptions> options,
                                              std::shared_ptr<std::string> json_file,
                                              std::shared_ptr<std::string> csv_file) {
  auto shared = std::make_shared<AllPairsBenchOptions>();
  auto resolve = [run, options, shared](std::size_t default_n) {
    const Settings s = run->resolve();
    AllPairsBenchOptions o = *shared;
    o.n = s.body_count ? static_cast<std::size_t>(*s.body_count) : default_n;
    o.scene = s.scene;
    o.seed = s.seed;
    o.softening = s.softening;
    o.repeats = options->steps;
    o.warmups = options->warmup_steps;
    o.validation_sample = static_cast<std::size_t>(options->force_error_sample);
    return std::make_pair(o, s);
  };
  std::vector<Command> modes;

  CLI::App* ladder = bench.add_subcommand("ladder", "All-pairs: every rung of the optimization ladder, in order");
  ladder->add_option("--single-thread-budget", shared->single_thread_budget,
                     "Interactions the 1-thread rung computes per timed pass (it is timed on a sample of bodies)");
  ladder->add_option("--max-seconds", shared->seconds_per_configuration,
                     "Fewer repeats for a rung whose single pass takes longer than this / --steps");
  auto no_clock = std::make_shared<bool>(false);
  ladder->add_flag("--no-clock", *no_clock, "Skip the SM clock measurement");
  modes.push_back({ladder, [=] {
                     auto [o, s] = resolve(1u << 16);
                     o.measure_clock = !*no_clock;
                     emit_tables({run_ladder(o)}, *json_file, *csv_file);
                     return kExitOk;
                   }});

  auto space = std::make_shared<SweepSpace>();
  CLI::App* sweep = bench.add_subcommand("sweep", "All-pairs: unroll x block size x bodies per thread");
  sweep->add_option("--unrolls", space->unroll, "Unroll factors")->delimiter(',');
  sweep->add_option("--block-sizes", space->block_size, "Threads per block")->delimiter(',');
  sweep->add_option("--bodies-per-thread-values", space->bodies_per_thread, "Bodies per thread")->delimiter(',');
  modes.push_back({sweep, [=] {
                     const auto [o, s] = resolve(1u << 16);
                     emit_tables({run_sweep(o, *space, s.toggles)}, *json_file, *csv_file);
                     return kExitOk;
                   }});

  auto sizes = std::make_shared<std::vector<std::size_t>>(default_scaling_sizes());
  CLI::App* scaling = bench.add_subcommand("scaling", "All-pairs: time per step from small to large n");
  scaling->add_option("--sizes", *sizes, "Body counts, comma-separated, each in [1, 67108864]")
      ->delimiter(',')
      ->check([](const std::string& text) -> std::string {  // on the text: -5 must not wrap to 2^64 - 5
        std::size_t n = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (error != std::errc{} || end != text.data() + text.size() || n < 1 || n > (std::size_t(1) << 26))
          return "each size is a number of bodies in [1, 67108864] (got " + text + ")";
        return "";
      });
  modes.push_back({scaling, [=] {
                     const auto [o, s] = resolve(1u << 16);
                     auto variants = default_scaling_variants();
                     if (!(s.toggles == ToggleValues{})) variants.insert(variants.begin(), {"as given", s.toggles});
                     emit_tables({run_scaling(o, *sizes, variants)}, *json_file, *csv_file);
                     return kExitOk;
                   }});

  auto seconds = std::make_shared<double>(1.0);
  CLI::App* clock = bench.add_subcommand("clock", "The SM clock under an FP32 load, and the ceilings it implies");
  clock->add_option("--seconds", *seconds, "How long to load the GPU")->check(CLI::Range(0.05, 60.0));
  modes.push_back({clock, [=] {
                     emit_tables({clock_table(measure_sm_clock(*seconds))}, *json_file, *csv_file);
                     return kExitOk;
                   }});
  return modes;
}

}  // namespace nbl
