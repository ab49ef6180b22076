// `nbodylab bench`: runs a simulation without a window and reports what it measured. The plain form
// times one configuration (per-stage ms, interactions/s, GFLOP/s, energy drift, force error, tree
// statistics); the sub-modes run families of configurations (the all-pairs ladder, sweeps, scaling,
// the Barnes-Hut switches). Timings are medians over the measured steps, warm-up excluded; GPU stages
// are timed with CUDA events by the backends themselves.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <unistd.h>

#include "app/bench/bench.hpp"
#include "app/bench/compare.hpp"
#include "app/core/commands.hpp"
#include "app/core/report.hpp"
#include "app/core/options/run_options.hpp"
#include "app/core/simulation.hpp"
#include "app/core/text_format.hpp"
#include "cuda/device.hpp"
#include "physics/gravity.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/stage_names.hpp"
#include "sim/statistics.hpp"
#include "sim/snapshot.hpp"

namespace nbl {

namespace {

// Bytes a streaming stage moves per body, to show its bandwidth (the tutorial's GB/s column).
std::optional<double> stage_bytes_per_body(const std::string& stage) {
  if (stage == "bounding box") return 16.0;  // read x, y, z, mass
  if (stage == "integrate")
    return 48.0 + 32 + 32 + 16;  // kick+drift: r pos, vel, acc; w pos, vel; kick: r vel, acc; w vel
  return std::nullopt;
}

}  // namespace

std::string describe_progress(std::size_t done, std::size_t total, double elapsed_s) {
  char buffer[128];
  const double per = done ? elapsed_s / static_cast<double>(done) : 0;
  std::snprintf(buffer, sizeof buffer, "step %zu/%zu  %.2f s/step  about %.0f s left", done, total, per,
                per * static_cast<double>(total - done));
  return buffer;
}

ProgressLine::ProgressLine(std::size_t total) : total_(total), start_(std::chrono::steady_clock::now()) {}

void ProgressLine::update(std::size_t done) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < 1.0 || !isatty(2)) return;  // short runs and logs stay quiet
  std::fprintf(stderr, "\r%s   ", describe_progress(done, total_, elapsed).c_str());
  std::fflush(stderr);
  shown_ = true;
}

ProgressLine::~ProgressLine() {
  if (shown_) std::fprintf(stderr, "\r%*s\r", 70, "");
}

BenchResult run_bench(const Settings& settings, const BenchOptions& options, const std::string& load_file) {
  BenchResult result;
  Simulation sim(settings, load_file);
  result.notice = sim.notice();
  result.backend = sim.backend().name();
  result.bodies = sim.body_count();
  result.bodies_origin = sim.body_count_origin();
  result.dt = sim.dt();
  result.softening = sim.softening();
  result.initial_conditions = load_file.empty() ? std::string(to_string(settings.scene)) : "loaded from " + load_file;
  result.file_description = sim.file_description();

  for (int i = 0; i < options.warmup_steps; ++i) {
    const StepStats s = sim.step();
    if (s.non_finite) throw Error("the simulation produced NaN or inf during warm-up; try a smaller --dt");
  }
  const EnergyReport e0 = sim.energy();
  ProgressLine progress(static_cast<std::size_t>(options.steps));
  for (int i = 0; i < options.steps; ++i) {
    StepStats s = sim.step();
    if (s.non_finite)
      throw Error("the simulation produced NaN or inf at step " + std::to_string(i + 1) + "; try a smaller --dt");
    result.steps.push_back(std::move(s));
    progress.update(static_cast<std::size_t>(i + 1));
  }
  const EnergyReport e1 = sim.energy();
  result.energy_start = e0;
  result.energy_end = e1;
  if (options.force_error_sample > 0) result.force_error = sim.force_error(options.force_error_sample);
  result.final_state = sim.snapshot();
  result.steps_advanced = options.warmup_steps + options.steps;
  result.time = sim.time();
  result.variant = sim.backend().variant_label();  // after the steps: the pipeline that ran them
  return result;
}

std::vector<Table> bench_tables(const BenchResult& r, const Settings& settings) {
  std::vector<Table> tables;
  const auto device = query_device();

  // Per stage, the tutorial's per-kernel table.
  std::vector<std::string> stage_names;
  for (const auto& s : r.steps)
    for (const auto& st : s.stages)
      if (std::find(stage_names.begin(), stage_names.end(), st.name) == stage_names.end())
        stage_names.push_back(st.name);
  std::vector<double> totals;
  for (const auto& s : r.steps) totals.push_back(s.total_ms);
  const double step_ms = median(totals);
  std::vector<double> interactions;
  for (const auto& s : r.steps) interactions.push_back(s.interactions);
  const double inter = median(interactions);

  Table stages("Per stage (median of " + std::to_string(r.steps.size()) + " steps)");
  stages.column("stage", "stage")
      .column("ms", "ms")
      .column("min_ms", "min ms")
      .column("max_ms", "max ms")
      .column("share", "share %")
      .column("rate", "rate");
  for (const auto& name : stage_names) {
    std::vector<double> ms;
    for (const auto& s : r.steps) ms.push_back(s.stage_ms(name));
    const double med = median(ms);
    stages.row()
        .add(name)
        .add(med, 3)
        .add(*std::min_element(ms.begin(), ms.end()), 3)
        .add(*std::max_element(ms.begin(), ms.end()), 3)
        .add(step_ms > 0 ? 100 * med / step_ms : 0, 1);
    if (name == "force" && med > 0) stages.add(si(inter * kFlopsPerInteraction / (med * 1e-3), "FLOP/s"));
    else if (auto bytes = stage_bytes_per_body(name); bytes && med > 0)
      stages.add(si(*bytes * r.bodies / (med * 1e-3), "B/s"));
    else stages.add_empty();
  }
  stages.row()
      .add("total")
      .add(step_ms, 3)
      .add(*std::min_element(totals.begin(), totals.end()), 3)
      .add(*std::max_element(totals.begin(), totals.end()), 3)
      .add(100.0, 1)
      .add_empty();
  tables.push_back(stages);

  // A long run in eighths: does the step slow down as the system evolves (ejecta widening the box)?
  if (r.steps.size() >= 100) {
    Table over("Over the run: ms per step in eighths of the " + std::to_string(r.steps.size()) + " measured steps");
    over.column("part", "part")
        .column("first_step", "from step")
        .column("ms", "ms/step (median)")
        .column("ratio", "x first part")
        .column("force_ms", "force ms")
        .column("interactions", "interactions/step")
        .column("interactions_ratio", "x first part")
        .column("max_depth", "tree depth");
    const std::size_t parts = 8, per = r.steps.size() / parts;
    double first = 0, first_interactions = 0;
    for (std::size_t p = 0; p < parts; ++p) {
      std::vector<double> ms, force, interactions, depth;
      for (std::size_t k = p * per; k < (p + 1 == parts ? r.steps.size() : (p + 1) * per); ++k) {
        ms.push_back(r.steps[k].total_ms);
        force.push_back(r.steps[k].stage_ms(stage_name(Stage::force)));
        interactions.push_back(r.steps[k].interactions);
        depth.push_back(r.steps[k].tree.max_depth);
      }
      const double m = median(ms), i = median(interactions);
      if (p == 0) first = m, first_interactions = i;
      over.row()
          .add(static_cast<double>(p + 1), 0)
          .add(static_cast<double>(p * per + 1), 0)
          .add(m, 3)
          .add(first > 0 ? m / first : 0.0, 3)
          .add(median(force), 3)
          .add_sci(i, 3)
          .add(first_interactions > 0 ? i / first_interactions : 0.0, 3)
          .add(median(depth), 0);
    }
    over.note(
        "medians of each part's steps (CUDA events on a GPU); the warm-up steps are not in the first part. "
        "Interactions that grow with the time tell a denser system (the same walk, more work); a time that "
        "grows alone tells a slower walk");
    tables.push_back(over);
  }

  Table summary("Summary");
  summary.column("quantity", "quantity").column("value", "value");
  auto text_row = [&](const std::string& q, const std::string& v) { summary.row().add(q).add(v); };
  auto number_row = [&](const std::string& q, double v, int precision = 3) { summary.row().add(q).add(v, precision); };
  auto sci_row = [&](const std::string& q, double v) { summary.row().add(q).add_sci(v, 3); };
  text_row("backend", r.backend);
  if (!r.variant.empty()) text_row("kernels", r.variant);
  text_row("algorithm", std::string(to_string(settings.algorithm)));
  text_row("scene", r.initial_conditions);
  for (const std::string& line : r.file_description) summary.note(line);  // the loaded file, under the table
  number_row("bodies", static_cast<double>(r.bodies), 0);
  sci_row("dt", r.dt);
  text_row("steps the state advanced", std::to_string(r.steps_advanced) + " (" +
                                           std::to_string(r.steps_advanced - static_cast<int>(r.steps.size())) +
                                           " warm-up + " + std::to_string(r.steps.size()) + " measured)");
  sci_row("simulated time at end", r.time);
  sci_row("softening", r.softening);
  if (settings.algorithm == Algorithm::barneshut) {
    number_row("theta", settings.opening_angle, 2);
    text_row("opening", opening_description(settings));
  }
  number_row("ms per step (median)", step_ms, 3);
  sci_row("interactions per step", inter);
  const double rate = step_ms > 0 ? inter / (step_ms * 1e-3) : 0;
  sci_row("interactions/s (whole step)", rate);
  number_row("GFLOP/s (20 per interaction)", rate * kFlopsPerInteraction / 1e9, 1);
  const double force_ms = [&] {
    std::vector<double> ms;
    for (const auto& s : r.steps) ms.push_back(s.stage_ms("force"));
    return median(ms);
  }();
  if (device && r.backend.find("CPU") == std::string::npos && force_ms > 0) {
    const double force_flops = inter * kFlopsPerInteraction / (force_ms * 1e-3);
    number_row("force kernel % of FP32 ceiling", 100 * force_flops / device->fp32_peak_flops(), 1);
  }
  const double de =
      r.energy_start.total != 0 ? (r.energy_end.total - r.energy_start.total) / std::fabs(r.energy_start.total) : 0;
  sci_row("energy drift dE/|E|", de);
  if (r.energy_start.sampled) {
    const double err =
        std::hypot(r.energy_start.potential_error, r.energy_end.potential_error) / std::fabs(r.energy_start.total);
    sci_row("  (sampled potential: +- one standard error)", err);
  }
  number_row("virial ratio 2K/|W| at end", r.energy_end.virial_ratio(), 3);
  text_row("energy method", r.energy_end.method);
  if (r.force_error) {
    const ForceError& f = *r.force_error;
    sci_row("force error: relative norm", f.relative_norm);
    sci_row("force error: RMS per body", f.rms);
    sci_row("force error: median", f.median);
    sci_row("force error: 99th percentile", f.p99);
    sci_row("force error: max", f.max);
    // The same errors against the sample's RMS acceleration: unlike the per-body figures they stay
    // meaningful where the pulls on a body cancel (sim/diagnostics.hpp).
    sci_row("force error / RMS accel: RMS", f.normalized_rms);
    sci_row("force error / RMS accel: median", f.normalized_median);
    sci_row("force error / RMS accel: 99th percentile", f.normalized_p99);
    sci_row("force error / RMS accel: max", f.normalized_max);
    sci_row("RMS acceleration of the sample", f.reference_rms);
    number_row("force error: bodies sampled", static_cast<double>(f.count), 0);
    if (f.non_finite) text_row("force error", "NaN or inf in the forces");
  }
  if (!r.steps.empty() && r.steps.back().has_tree) {
    std::vector<double> depth, cells, children, tmin, tavg, tmax;
    for (const auto& s : r.steps) {
      depth.push_back(s.tree.max_depth);
      cells.push_back(static_cast<double>(s.tree.cells));
      children.push_back(s.tree.children_per_cell);
      tmin.push_back(s.tree.nodes_touched.min);
      tavg.push_back(s.tree.nodes_touched.avg);
      tmax.push_back(s.tree.nodes_touched.max);
    }
    number_row("tree: max depth", median(depth), 0);
    number_row("tree: cells", median(cells), 0);
    number_row("tree: children per cell", median(children), 2);
    number_row("nodes touched per body: min", median(tmin), 0);
    number_row("nodes touched per body: avg", median(tavg), 1);
    number_row("nodes touched per body: max", median(tmax), 0);
  }
  std::map<std::string, int> notices;
  for (const auto& s : r.steps)
    for (const auto& n : s.notices) ++notices[n];
  for (const auto& [text, count] : notices)
    summary.note("note: " + text + (count > 1 ? " (" + std::to_string(count) + " steps)" : ""));
  if (!r.notice.empty()) summary.note("note: " + r.notice);
  if (!r.bodies_origin.empty())
    summary.note("bodies: " + with_commas(static_cast<std::int64_t>(r.bodies)) + ", " + r.bodies_origin);
  tables.push_back(summary);
  return tables;
}

void emit_tables(const std::vector<Table>& tables, const std::string& json_file, const std::string& csv_file) {
  for (const auto& t : tables) std::printf("%s\n", t.text().c_str());
  if (!json_file.empty()) write_tables_json(json_file, tables);
  if (!csv_file.empty()) write_tables_csv(csv_file, tables);
}

Command add_bench_command(CLI::App& root) {
  CLI::App* bench =
      root.add_subcommand("bench", "Run without a window and measure (tables on stdout, --json/--csv files)");
  bench->fallthrough();
  auto run = std::make_shared<RunOptions>();
  auto options = std::make_shared<BenchOptions>();
  auto json_file = std::make_shared<std::string>();
  auto csv_file = std::make_shared<std::string>();
  run->add_to(*bench);
  bench->add_option("--steps", options->steps, "Measured steps; the state advances --warmup + --steps steps in all")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  bench
      ->add_option("--warmup", options->warmup_steps,
                   "Steps run before measuring: left out of the timings, but the state advances through them "
                   "(--warmup 0 --steps N advances exactly N)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  bench
      ->add_option("--error-sample", options->force_error_sample,
                   "Bodies whose forces are checked against the double-precision direct sum (0: skip)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  auto compare = std::make_shared<std::vector<std::string>>();
  bench
      ->add_option("--compare", *compare,
                   "A/B: two sets of changes on top of the other options, e.g. --compare \"unroll=8\" \"unroll=128\" "
                   "(toggles by key, theta=X, rung=N for a ladder rung's toggles): B's forces are computed from A's "
                   "state every step, timed and compared")
      ->expected(2)
      ->type_name("A B");
  bench->add_option("--json", *json_file, "Also write the tables as JSON to this file");
  bench->add_option("--csv", *csv_file, "Also write the tables as CSV to this file");

  std::vector<Command> modes = add_bench_modes(*bench, run, options, json_file, csv_file);
  return {bench, [=] {
            // Every output is checked before any work starts: a run that cannot save its result does not start.
            check_output_file(*json_file, "--json");
            check_output_file(*csv_file, "--csv");
            check_distinct_outputs({{"--json", *json_file}, {"--csv", *csv_file}, {"--save", run->save_file()}});
            for (auto& mode : modes) {
              if (!mode.app->parsed()) continue;
              const bool takes_load = mode.app->get_name() == "groups";  // one configuration: a snapshot's tree
              if (!compare->empty())
                throw InputError("--compare is the plain `bench`'s A/B; `bench " + mode.app->get_name() +
                                 "` runs its own configurations: drop --compare, or the mode");
              if ((!takes_load && !run->load_file().empty()) || !run->save_file().empty())
                throw InputError("bench " + mode.app->get_name() +
                                 " makes its own bodies for every configuration: "
                                 "--load and --save apply to the plain `bench`" +
                                 std::string(takes_load ? " (and --load to `bench groups`)" : " only"));
              return mode.run();
            }
            if (!compare->empty()) {
              if (!run->load_file().empty() || !run->save_file().empty())
                throw InputError("bench --compare makes its own bodies: --load and --save apply to the plain `bench`");
              emit_tables(compare_tables(run->resolve(), (*compare)[0], (*compare)[1], *options), *json_file,
                          *csv_file);
              return kExitOk;
            }
            check_output_file(run->save_file(), "--save");
            const Settings settings = run->resolve();
            const BenchResult result = run_bench(settings, *options, run->load_file());
            if (!result.notice.empty()) std::fprintf(stderr, "nbodylab: %s\n", result.notice.c_str());
            emit_tables(bench_tables(result, settings), *json_file, *csv_file);
            if (!run->save_file().empty())
              write_snapshot(run->save_file(), result.final_state, static_cast<float>(result.softening));
            return kExitOk;
          }};
}

}  // namespace nbl
