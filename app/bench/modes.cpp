// The families of runs `nbodylab bench` can make. Each mode is one function from settings to tables.
//   bench bhswitches  each Barnes-Hut switch on and off: the tutorial's "kernel speedups" table
//   bench crossover   the n where Barnes-Hut starts to beat the faster of two all-pairs variants
//   bench geometry    the inputs that used to break Barnes-Hut (far outlier, coincident bodies, line, plane) against
//                     the Plummer sphere they are made from
//   bench moments     monopole against quadrupole cells across theta: force error against cost, and the
//                     fastest theta of each that meets the accuracy target
//   bench groups      the group walk's costliest groups, replayed on the host (bench_groups.cpp)
// The all-pairs modes (ladder, sweep, scaling) live in bench_allpairs.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <unistd.h>

#include "app/bench/bench.hpp"
#include "app/core/teaching/allpairs_bench.hpp"
#include "app/core/simulation.hpp"
#include "sim/error.hpp"
#include "sim/geometry_cases.hpp"
#include "sim/settings_io.hpp"
#include "sim/stage_names.hpp"
#include "sim/statistics.hpp"

namespace nbl {

Table groups_table(const Settings& base, const BenchOptions& options, int top,
                   const std::string& load_file);  // bench_groups.cpp

namespace {

double median_of(const std::vector<StepStats>& steps, const std::string& stage) {
  std::vector<double> v;
  for (const auto& s : steps) v.push_back(stage.empty() ? s.total_ms : s.stage_ms(stage));
  return median(std::move(v));
}

struct Switch {
  const char* name;
  const char* tutorial;         // the speedups in Burtscher's CUDA optimization tutorial at 50k / 500k / 5M bodies
  const char* stage;            // the kernel it acts on
  void (*base)(ToggleValues&);  // the configuration it is measured in
  void (*off)(ToggleValues&);   // the switch turned off
};

void defaults(ToggleValues&) {}
void insertion(ToggleValues& t) { t.set({"bh_build", "insertion"}); }
void warp_walk(ToggleValues& t) { t.set({"bh_traversal", "warp"}); }

const Switch kSwitches[] = {
    {"avoid volatile", "1.14x / 1.19x / 1.18x", "force", defaults, [](ToggleValues& t) { t["bh_avoid_volatile"] = 0; }},
    {"rsqrtf instruction", "1.43x / 1.47x / 1.46x", "force", defaults, [](ToggleValues& t) { t["bh_rsqrt"] = 0; }},
    {"throttling barrier (insertion build)", "0.97x / 1.03x / 1.04x", "tree build", insertion,
     [](ToggleValues& t) { insertion(t), t["bh_throttle"] = 0; }},
    {"wait-free pre-pass (summarize)", "1.02x / 1.21x / 1.31x", "summarize", insertion,
     [](ToggleValues& t) { insertion(t), t["bh_waitfree"] = 0; }},
    {"combined memory fence (insertion build)", "1.54x / 1.57x / 1.50x", "tree build", insertion,
     [](ToggleValues& t) { insertion(t), t["bh_combined_fence"] = 0; }},
    {"sorting of bodies (warp walk)", "3.60x / 6.28x / 8.21x", "force", warp_walk,
     [](ToggleValues& t) { warp_walk(t), t["bh_sort"] = 0; }},
    {"warp-synchronous walk vs per-thread", "6.23x / 8.04x / 8.60x", "force", warp_walk,
     [](ToggleValues& t) {
       t.set({"bh_traversal", "thread"});
     }},
    {"group interaction lists vs warp walk (ours)", "", "force", defaults, warp_walk},
    {"sorting of bodies (group lists)", "", "force", defaults, [](ToggleValues& t) { t["bh_sort"] = 0; }},
    {"Morton build vs insertion build (ours)", "", "", defaults, insertion},
};

Table bhswitches_table(const Settings& base, const BenchOptions& options) {
  std::map<std::string, std::vector<StepStats>> cache;  // keyed by the toggles' JSON: each run once
  std::size_t bodies = 0;                               // what every configuration shares, for the table's note
  std::string backend;
  auto measure = [&](void (*edit)(ToggleValues&)) -> const std::vector<StepStats>& {
    Settings s = base;
    s.algorithm = Algorithm::barneshut;
    edit(s.toggles);
    const std::string key = settings_to_json(s);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    BenchOptions o = options;
    o.force_error_sample = 0;
    std::fprintf(stderr, "bench bhswitches: %zu configurations measured...\r", cache.size());
    BenchResult r = run_bench(s, o);
    bodies = r.bodies;
    backend = r.backend;
    return cache[key] = std::move(r.steps);
  };
  Table t("Barnes-Hut switches: speedup from turning each one on (median step times)");
  t.column("switch", "switch")
      .column("tutorial", "tutorial 50k/500k/5M")
      .column("kernel", "kernel")
      .column("kernel_on_ms", "on ms")
      .column("kernel_off_ms", "off ms")
      .column("kernel_speedup", "kernel x")
      .column("step_on_ms", "step on ms")
      .column("step_off_ms", "step off ms")
      .column("step_speedup", "step x");
  for (const Switch& sw : kSwitches) {
    const auto& on = measure(sw.base);
    const auto& off = measure(sw.off);
    const double k_on = median_of(on, sw.stage), k_off = median_of(off, sw.stage);
    const double s_on = median_of(on, ""), s_off = median_of(off, "");
    t.row()
        .add(sw.name)
        .add(std::string(*sw.tutorial ? sw.tutorial : "-"))
        .add(std::string(*sw.stage ? sw.stage : "step"));
    t.add(k_on, 3).add(k_off, 3).add(k_off / k_on, 2).add(s_on, 3).add(s_off, 3).add(s_off / s_on, 2);
  }
  std::fprintf(stderr, "%60s\r", "");
  // The run's facts in the table itself, as the ladder's: a kept JSON or log says what it measured.
  t.note(std::string(to_string(base.scene)) + " scene, n = " + std::to_string(bodies) + ", seed " +
         std::to_string(base.seed) + ", " + opening_description(base) + ", " + backend);
  t.note("Each configuration: the defaults with the switch's row changed; 'off' is the same with the switch off.");
  t.note("Speedup = time off / time on, so > 1 means the switch helps on this GPU.");
  return t;
}

// The all-pairs side of the crossover is the faster of two variants at each n: the defaults (4 bodies
// per thread, best from about 16k bodies up) and 1 body per thread (best below, where 4 per thread
// leave too few threads to fill the GPU). Each point is the median of its steps with the 10th and 90th
// percentiles, so two points whose ranges overlap are read as a tie, not a winner.
Table crossover_table(const Settings& base, const BenchOptions& options, std::size_t max_n) {
  Table t("Barnes-Hut vs the faster of two all-pairs variants (median ms per step, 10th-90th percentile)");
  t.column("n", "n")
      .column("allpairs_variant", "all-pairs variant")
      .column("allpairs_ms", "all-pairs ms")
      .column("allpairs_p10_ms", "p10")
      .column("allpairs_p90_ms", "p90")
      .column("barneshut_ms", "Barnes-Hut ms")
      .column("barneshut_p10_ms", "p10")
      .column("barneshut_p90_ms", "p90")
      .column("ratio", "all-pairs / BH")
      .column("separated", "ranges apart");
  auto step_times = [](const std::vector<StepStats>& steps) {
    std::vector<double> ms;
    for (const auto& s : steps) ms.push_back(s.total_ms);
    return spread(ms);
  };
  double crossover = std::nan("");
  double previous_ratio = std::nan(""), previous_n = 0;
  for (std::size_t n = 1024; n <= max_n; n *= 2) {
    Settings s = base;
    s.body_count = static_cast<std::int64_t>(n);
    BenchOptions o = options;
    o.force_error_sample = 0;
    if (isatty(2)) std::fprintf(stderr, "bench crossover: n = %zu...\r", n);
    s.algorithm = Algorithm::allpairs;
    const Spread ap_default = step_times(run_bench(s, o).steps);
    s.toggles["bodies_per_thread"] = 1;
    const Spread ap_single = step_times(run_bench(s, o).steps);
    const bool single_wins = ap_single.median < ap_default.median;
    const Spread& ap = single_wins ? ap_single : ap_default;
    s.toggles = base.toggles;
    s.algorithm = Algorithm::barneshut;
    const Spread bh = step_times(run_bench(s, o).steps);
    const double ratio = ap.median / bh.median;
    const bool apart = ap.low > bh.high || bh.low > ap.high;
    t.row().add(static_cast<double>(n), 0).add(std::string(single_wins ? "1 body/thread" : "defaults"));
    t.add(ap.median, 3).add(ap.low, 3).add(ap.high, 3).add(bh.median, 3).add(bh.low, 3).add(bh.high, 3).add(ratio, 2);
    t.add(std::string(apart ? "yes" : "no (a tie)"));
    if (std::isnan(crossover) && ratio >= 1 && previous_n > 0 && previous_ratio < 1) {
      // Interpolate in log n between the two sizes that bracket ratio = 1.
      const double f = std::log(1.0 / previous_ratio) / std::log(ratio / previous_ratio);
      crossover = previous_n * std::pow(static_cast<double>(n) / previous_n, f);
    }
    previous_ratio = ratio;
    previous_n = static_cast<double>(n);
  }
  if (isatty(2)) std::fprintf(stderr, "%60s\r", "");
  t.note("Whole steps (force, and for Barnes-Hut the tree), " + std::to_string(options.steps) +
         " measured steps per point after " + std::to_string(options.warmup_steps) +
         " warm-up; all-pairs: the faster of the defaults and --bodies-per-thread 1.");
  if (std::isnan(crossover)) t.note("no crossover in this range");
  else
    t.note("crossover: Barnes-Hut is faster above about n = " + std::to_string(static_cast<long>(crossover)) +
           " (interpolated between the medians; the tutorial found about 15,000 on a GTX 480)");
  return t;
}

// Each geometry case (sim/geometry_cases.hpp) stepped on the configured backend, through the Backend
// interface only, so the same table comes from the CPU and the GPU: time, operation counts and force
// error, each as a ratio to the Plummer sphere of the same n and seed. The lab's target is at
// most 2x in cost; the error is relative to the sample's RMS acceleration, which cancellation along
// a line or in a plane cannot inflate.
Table geometry_table(const Settings& base, const BenchOptions& options) {
  Settings s = base;
  s.algorithm = Algorithm::barneshut;
  s.scene = Scene::plummer;
  struct Figures {
    double ms = 0, force_ms = 0, interactions_per_body = 0, touched_per_body = 0, touched_max = 0, p99 = 0, max = 0;
  };
  std::optional<Figures> sphere;
  std::optional<Table> t;
  std::map<std::string, std::vector<std::string>> notices;  // case -> what its last step reported
  for (GeometryCase c : kGeometryCases) {
    const std::string name(to_string(c));
    std::fprintf(stderr, "bench geometry: %s...%20s\r", name.c_str(), "");
    Simulation sim(s);
    const std::size_t n = sim.body_count();
    if (!t) {
      t.emplace("Barnes-Hut on hard geometry, " + opening_description(s) + ", n = " + std::to_string(n) + " (" +
                sim.backend().name() + ")");
      t->column("case", "case")
          .column("bodies", "bodies")
          .column("ms", "ms/step")
          .column("ms_ratio", "x")
          .column("force_ms", "force ms")
          .column("force_ratio", "x")
          .column("interactions_per_body", "interactions/body")
          .column("interactions_ratio", "x")
          .column("touched_per_body", "nodes touched/body")
          .column("touched_ratio", "x")
          .column("touched_max", "touched max")
          .column("touched_max_ratio", "x")
          .column("error_p99", "err/RMS p99")
          .column("error_p99_ratio", "x")
          .column("error_max", "err/RMS max")
          .column("error_max_ratio", "x")
          .column("max_depth", "depth");
    }
    if (c != GeometryCase::plummer) sim.backend().set_bodies(make_geometry_case(c, n, s.seed));
    const double bodies = static_cast<double>(sim.body_count());
    std::vector<StepStats> steps;
    bool blew_up = false;
    for (int i = 0; i < options.warmup_steps + options.steps && !blew_up; ++i) {
      StepStats step = sim.step();
      blew_up = step.non_finite;
      notices[name] = step.notices;  // the last step's: the counts in them drift as bodies move
      if (i >= options.warmup_steps) steps.push_back(std::move(step));
    }
    t->row().add(name).add(bodies, 0);
    if (blew_up || steps.empty()) {
      t->add(std::string("NaN/inf"));
      for (int k = 0; k < 14; ++k) t->add_empty();
      continue;
    }
    std::vector<double> interactions, touched, touched_max, depth;
    for (const StepStats& step : steps) {
      interactions.push_back(step.interactions / bodies);
      touched.push_back(step.tree.nodes_touched.avg);
      touched_max.push_back(step.tree.nodes_touched.max);
      depth.push_back(step.tree.max_depth);
    }
    Figures f;
    f.ms = median_of(steps, "");
    f.force_ms = median_of(steps, stage_name(Stage::force));
    f.interactions_per_body = median(interactions);
    f.touched_per_body = median(touched);
    f.touched_max = median(touched_max);
    if (options.force_error_sample > 0) {
      const ForceError e = sim.force_error(static_cast<std::size_t>(options.force_error_sample));
      f.p99 = e.normalized_p99;
      f.max = e.normalized_max;
    } else {
      f.p99 = f.max = std::nan("");
    }
    if (!sphere) sphere = f;
    t->add(f.ms, 3)
        .add(f.ms / sphere->ms, 2)
        .add(f.force_ms, 3)
        .add(f.force_ms / sphere->force_ms, 2)
        .add(f.interactions_per_body, 1)
        .add(f.interactions_per_body / sphere->interactions_per_body, 2)
        .add(f.touched_per_body, 1)
        .add(f.touched_per_body / sphere->touched_per_body, 2)
        .add(f.touched_max, 0)
        .add(f.touched_max / sphere->touched_max, 2)
        .add_sci(f.p99, 2)
        .add(f.p99 / sphere->p99, 2)
        .add_sci(f.max, 2)
        .add(f.max / sphere->max, 2)
        .add(median(depth), 0);
  }
  std::fprintf(stderr, "%60s\r", "");
  t->note(
      "Cases: the Plummer sphere; plus one body at rest at x = 1e20; plus n/10 bodies on top of its body 0; its "
      "bodies moved onto the x axis; onto the xy plane; plus n/100 bodies at rest spread out to radius 10,000 "
      "(ejecta). "
      "Same n, seed and softening throughout.");
  t->note(
      "x: ratio to the Plummer sphere. Medians of the measured steps (warm-up excluded); the force error is "
      "|a - a_ref| / sqrt(mean |a_ref|^2) on a sample, against the double-precision direct sum.");
  for (const auto& [name, lines] : notices)
    for (const std::string& line : lines) t->note(name + ": " + line);
  return *t;
}

// The accuracy a Barnes-Hut step must reach, whatever its cells' moments (the lab's Barnes-Hut
// target): per-body relative force error against the double direct sum.
struct AccuracyTarget {
  double p99 = 2e-3;
  double max = 2e-2;
  bool met_by(const ForceError& e) const { return !e.non_finite && e.p99 <= p99 && e.max <= max; }
};

// Each theta with each choice of bh_moments (monopole, quadrupole, adaptive), stepped on the configured
// backend (bh_moments is the only difference between the rows of one theta): median ms per step and per
// force pass, interactions, and the force error on a sample, per body and against the sample's RMS
// acceleration. The note names, for each choice, the fastest theta that meets the target, and which
// choice is fastest there: a quadrupole costs more per cell interaction and needs fewer of them for
// the same accuracy.
Table moments_table(const Settings& base, const BenchOptions& options, const std::vector<double>& thetas) {
  constexpr Choice kOrders[] = {{"bh_moments", "monopole"}, {"bh_moments", "quadrupole"}, {"bh_moments", "adaptive"}};
  constexpr int kCount = static_cast<int>(std::size(kOrders));
  const AccuracyTarget target;
  auto settings_for = [&](double theta, Choice order) {
    Settings s = base;
    s.algorithm = Algorithm::barneshut;
    s.opening_angle = theta;
    s.toggles.set(order).set(Choice{"bh_opening", "geometric"});  // a study of theta: cells open by it
    return s;
  };
  for (double theta : thetas) validate(settings_for(theta, kOrders[0]));  // a bad theta before any work

  struct Best {
    double theta = 0, ms = 0;
    bool found = false;
  };
  Best best[kCount];
  std::optional<Table> t;
  std::string facts;
  bool orders_differ = false;  // a backend that ignores bh_moments gives equal forces at every theta > 0
  std::map<double, ForceError> monopole_error;
  for (double theta : thetas) {
    for (int o = 0; o < kCount; ++o) {
      const Settings s = settings_for(theta, kOrders[o]);
      const std::string order = toggle_value_text(ToggleId("bh_moments").def(), kOrders[o].value);
      if (isatty(2)) std::fprintf(stderr, "bench moments: theta %g, %s...%20s\r", theta, order.c_str(), "");
      const BenchResult r = run_bench(s, options);
      if (!t) {
        t.emplace("Cell moments: force error against cost across theta (" + std::string(to_string(base.scene)) +
                  ", n = " + std::to_string(r.bodies) + ", " + r.backend + ")");
        t->column("theta", "theta")
            .column("moments", "moments")
            .column("ms", "ms/step")
            .column("force_ms", "force ms")
            .column("interactions", "interactions/step")
            .column("error_p99", "err p99")
            .column("error_max", "err max")
            .column("error_rms_p99", "err/RMS p99")
            .column("error_rms_max", "err/RMS max");
        facts = std::string(to_string(base.scene)) + " scene, n = " + std::to_string(r.bodies) + ", seed " +
                std::to_string(base.seed) + ", " + std::to_string(options.steps) + " measured steps after " +
                std::to_string(options.warmup_steps) + " warm-up per row, " + r.backend;
      }
      std::vector<double> interactions, force_ms;
      for (const StepStats& step : r.steps) {
        interactions.push_back(step.interactions);
        force_ms.push_back(step.stage_ms(stage_name(Stage::force)));
      }
      const double ms = median_of(r.steps, "");
      t->row().add(theta, 2).add(order).add(ms, 3).add(median(force_ms), 3).add_sci(median(interactions), 3);
      if (r.force_error) {
        const ForceError& e = *r.force_error;
        t->add_sci(e.p99, 2).add_sci(e.max, 2).add_sci(e.normalized_p99, 2).add_sci(e.normalized_max, 2);
        if (target.met_by(e) && (!best[o].found || ms < best[o].ms)) best[o] = {theta, ms, true};
        if (o == 0) monopole_error[theta] = e;
        if (o == 1 && theta > 0 && (e.p99 != monopole_error[theta].p99 || e.max != monopole_error[theta].max))
          orders_differ = true;
      } else {
        for (int k = 0; k < 4; ++k) t->add_empty();
      }
    }
  }
  if (isatty(2)) std::fprintf(stderr, "%60s\r", "");
  t->note(facts);
  t->note(
      "Medians of the measured steps; the force error on --error-sample bodies against the double-precision "
      "direct sum, per body (|a - a_ref| / |a_ref|) and against the sample's RMS acceleration.");
  if (options.force_error_sample == 0) {
    t->note("--error-sample 0: no force errors measured, so no theta can be named for the accuracy target.");
    return *t;
  }
  char line[256];
  std::snprintf(line, sizeof line, "target: per-body force error p99 <= %g and max <= %g", target.p99, target.max);
  std::string summary = line;
  for (int o = 0; o < kCount; ++o) {
    const std::string order = toggle_value_text(ToggleId("bh_moments").def(), kOrders[o].value);
    if (best[o].found) {
      std::snprintf(line, sizeof line, "; %s: fastest at theta %g (%.3f ms/step)", order.c_str(), best[o].theta,
                    best[o].ms);
    } else {
      std::snprintf(line, sizeof line, "; %s: no theta listed meets it", order.c_str());
    }
    summary += line;
  }
  t->note(summary);
  // The fastest choice at the target, against the monopole (the tutorial's) where it reaches it too.
  int fastest = -1;
  for (int o = 0; o < kCount; ++o)
    if (best[o].found && (fastest < 0 || best[o].ms < best[fastest].ms)) fastest = o;
  if (fastest >= 0) {
    const std::string name = toggle_value_text(ToggleId("bh_moments").def(), kOrders[fastest].value);
    if (fastest != 0 && best[0].found) {
      std::snprintf(line, sizeof line,
                    "at that accuracy %s is fastest: %.2fx the monopole (%.3f against %.3f ms per step)", name.c_str(),
                    best[0].ms / best[fastest].ms, best[fastest].ms, best[0].ms);
    } else if (fastest != 0) {
      std::snprintf(line, sizeof line, "at that accuracy %s is fastest (%.3f ms per step); no monopole row reaches it",
                    name.c_str(), best[fastest].ms);
    } else {
      std::snprintf(line, sizeof line, "at that accuracy the monopole is fastest (%.3f ms per step)", best[0].ms);
    }
    t->note(line);
  }
  const bool any_far_cells = std::any_of(thetas.begin(), thetas.end(), [](double theta) { return theta > 0; });
  if (any_far_cells && !orders_differ)
    t->note(
        "warning: quadrupole and monopole rows have the same force errors at every theta > 0: this backend "
        "does not seem to read bh_moments");
  return *t;
}

}  // namespace

std::vector<Command> add_bench_modes(CLI::App& bench, std::shared_ptr<RunOptions> run,
                                     std::shared_ptr<BenchOptions> options, std::shared_ptr<std::string> json_file,
                                     std::shared_ptr<std::string> csv_file) {
  std::vector<Command> modes = add_allpairs_bench_modes(bench, run, options, json_file, csv_file);

  CLI::App* switches = bench.add_subcommand(
      "bhswitches", "Barnes-Hut: measure each optimization switch on and off (the tutorial's speedup table)");
  modes.push_back({switches, [=] {
                     Settings s = run->resolve();
                     s.algorithm = Algorithm::barneshut;
                     emit_tables({bhswitches_table(s, *options)}, *json_file, *csv_file);
                     return kExitOk;
                   }});

  auto max_n = std::make_shared<std::size_t>(1u << 17);
  CLI::App* crossover = bench.add_subcommand(
      "crossover",
      "Find the n where Barnes-Hut beats the faster all-pairs variant (30 steps per point unless --steps)");
  crossover->add_option("--max-n", *max_n, "Largest n to try (doubling from 1024)")->check(CLI::Range(1024, 1 << 26));
  CLI::Option* steps_given = bench.get_option("--steps");
  CLI::Option* warmup_given = bench.get_option("--warmup");
  modes.push_back({crossover, [=] {
                     // Enough steps per point for a 10th-90th percentile range that means something.
                     BenchOptions o = *options;
                     if (steps_given->count() == 0) o.steps = 30;
                     if (warmup_given->count() == 0) o.warmup_steps = 3;
                     emit_tables({crossover_table(run->resolve(), o, *max_n)}, *json_file, *csv_file);
                     return kExitOk;
                   }});

  CLI::App* geometry = bench.add_subcommand(
      "geometry", "Barnes-Hut: far outlier, coincident bodies, line and plane against a Plummer sphere of the same n");
  modes.push_back({geometry, [=] {
                     emit_tables({geometry_table(run->resolve(), *options)}, *json_file, *csv_file);
                     return kExitOk;
                   }});

  auto thetas = std::make_shared<std::vector<double>>(std::vector<double>{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9});
  CLI::App* moments = bench.add_subcommand(
      "moments", "Barnes-Hut: monopole against quadrupole cells across theta, force error against ms per step");
  moments->add_option("--thetas", *thetas, "Opening angles to measure, each with both cell moments")
      ->delimiter(',')
      ->capture_default_str();
  modes.push_back({moments, [=] {
                     emit_tables({moments_table(run->resolve(), *options, *thetas)}, *json_file, *csv_file);
                     return kExitOk;
                   }});
  auto top = std::make_shared<int>(12);
  CLI::App* groups = bench.add_subcommand(
      "groups",
      "Barnes-Hut (GPU, group walk): replay each force group's walk of the last step's tree on the host; "
      "the costliest groups and what they are (of the scene, or of a snapshot given with --load)");
  groups->add_option("--top", *top, "How many of the costliest groups to list")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  modes.push_back({groups, [=] {
                     emit_tables({groups_table(run->resolve(), *options, *top, run->load_file())}, *json_file,
                                 *csv_file);
                     return kExitOk;
                   }});
  return modes;
}

}  // namespace nbl
