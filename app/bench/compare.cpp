#include "app/bench/compare.hpp"

#include <chrono>
#include <thread>

#include "app/core/options/setting_options.hpp"
#include "app/core/simulation.hpp"
#include "sim/comparison.hpp"
#include "sim/error.hpp"
#include "sim/ladder.hpp"
#include "sim/settings_table.hpp"

namespace nbl {

namespace {

// The rows of the settings table an A/B's B may change, by key: "theta".
std::string ab_setting_keys() {
  std::string keys;
  for (const SettingDef& s : kSettings)
    if (s.varies_in_ab) keys += (keys.empty() ? "" : ", ") + std::string(s.key);
  return keys;
}

}  // namespace

Settings with_changes(const Settings& base, const std::string& text, const std::string& option) {
  Settings s = base;
  const std::string algorithm(to_string(s.algorithm));
  // What is not a toggle: a row of the settings table that B may change (theta), or a ladder rung.
  const auto setting_or_rung = [&](const std::string& key, const std::string& value, ToggleValues& toggles) {
    if (const SettingDef* row = find_setting(key)) {
      if (!row->varies_in_ab)
        throw InputError(option + ": " + key + " is " + std::string(row->noun) +
                         ", which B shares with A; B differs in " + "toggles and in " + ab_setting_keys());
      if (row->only_for && *row->only_for != s.algorithm)
        throw InputError(option + ": " + key + " is a " + std::string(to_string(*row->only_for)) +
                         " setting; this run is " + algorithm + " (--algo)");
      try {
        row->access.set(s, parse_setting_value(*row, value));
      } catch (const InputError& e) {
        throw InputError(option + ": " + key + "=" + value + ": " + e.what());
      }
      return true;
    }
    if (key != "rung") return false;
    // The all-pairs toggles of one ladder rung (sim/ladder.hpp); later items change them further.
    std::size_t used = 0;
    long rung = -1;
    try {
      rung = std::stol(value, &used);
    } catch (const std::exception&) {
    }
    if (used != value.size() || rung < 0 || rung >= static_cast<long>(kLadder.size()))
      throw InputError(option + ": rung takes a ladder rung, 0 to " + std::to_string(kLadder.size() - 1) + " (got \"" +
                       value + "\")");
    if (s.algorithm != Algorithm::allpairs)
      throw InputError(option + ": the ladder's rungs are all-pairs variants; this run is " + algorithm + " (--algo)");
    toggles = ladder_toggles(static_cast<std::size_t>(rung));
    return true;
  };
  apply_toggle_changes(text, s.algorithm, s.toggles, option, setting_or_rung);
  validate(s);
  return s;
}

std::vector<Table> compare_tables(const Settings& base, const std::string& a_text, const std::string& b_text,
                                  const BenchOptions& options) {
  const Settings a = with_changes(base, a_text, "--compare (A)");
  const Settings b = with_changes(base, b_text, "--compare (B)");
  Simulation sim(a);
  if (!sim.backend().on_gpu()) throw InputError("bench --compare compares GPU kernel variants: it needs a GPU");
  sim.set_comparison(b);
  // Warm-up: until B is built and has compared once (at most two minutes), plus the warm-up steps.
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (sim.step().non_finite) throw Error("NaN or inf in the state during the warm-up");
    if (sim.compare()) break;
    for (const BuildProgress& p : sim.comparison_builds())
      if (p.state == BuildState::refused) throw Error("B is refused: " + p.detail);
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(2))
      throw Error("B's build did not finish in two minutes");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (int i = 0; i < options.warmup_steps; ++i) {
    sim.step();
    sim.compare();
  }
  ComparisonHistory history(static_cast<std::size_t>(options.steps));
  ProgressLine progress(static_cast<std::size_t>(options.steps));
  for (int i = 0; i < options.steps; ++i) {
    if (sim.step().non_finite) throw Error("NaN or inf in the state at measured step " + std::to_string(i + 1));
    if (auto sample = sim.compare()) history.add(*sample);
    progress.update(static_cast<std::size_t>(i + 1));
  }

  Table times("A/B on the same state: A = " + (a_text.empty() ? std::string("the settings given") : a_text) +
              ", B = " + b_text + " (" + std::string(to_string(a.algorithm)) + ", " + sim.backend().name() + ", " +
              std::to_string(sim.body_count()) + " bodies)");
  times.column("stage", "stage")
      .column("a_ms", "A ms")
      .column("a_p10_ms", "A p10")
      .column("a_p90_ms", "A p90")
      .column("b_ms", "B ms")
      .column("b_p10_ms", "B p10")
      .column("b_p90_ms", "B p90")
      .column("speedup", "A/B")
      .column("speedup_low", "95% low")
      .column("speedup_high", "95% high")
      .column("pairs", "pairs");
  for (const auto& row : history.rows()) {
    times.row().add(row.stage);
    for (const Spread* s : {&row.a_ms, &row.b_ms}) {
      if (s->empty()) times.add_empty().add_empty().add_empty();
      else times.add(s->median).add(s->low).add(s->high);
    }
    if (row.speedup.empty()) times.add_empty().add_empty().add_empty().add_empty();
    else
      times.add(row.speedup.median)
          .add(row.speedup.low)
          .add(row.speedup.high)
          .add(static_cast<double>(row.speedup.pairs), 0);
  }
  times.note("Medians over " + std::to_string(history.size()) +
             " steps, warm-up excluded; A/B above 1 means B is faster. "
             "The interval is a 95% confidence interval for the median of the per-step ratios (order statistics).");

  Table forces("A/B forces");
  forces.column("quantity", "quantity").column("value", "value");
  const Spread norm = history.difference_relative_norm(), worst = history.difference_max();
  forces.row().add("B vs A: ||aB - aA|| / ||aA|| (median)").add_sci(norm.median);
  forces.row().add("B vs A: largest per-body difference / RMS force (median)").add_sci(worst.median);
  forces.row().add("NaN or inf in B").add(history.any_non_finite() ? "yes" : "no");
  if (options.force_error_sample > 0) {
    const auto sample = static_cast<std::size_t>(options.force_error_sample);
    if (auto eb = sim.comparison_force_error(sample)) {
      forces.row().add("B vs direct sum: per-body p99").add_sci(eb->p99);
      forces.row().add("B vs direct sum: per-body max").add_sci(eb->max);
    }
    const ForceError ea = sim.force_error(sample);
    forces.row().add("A vs direct sum: per-body p99").add_sci(ea.p99);
    forces.row().add("A vs direct sum: per-body max").add_sci(ea.max);
  }
  return {times, forces};
}

}  // namespace nbl
