// `nbodylab bench --compare A B`: A/B as a table (sim/comparison.hpp). A runs the simulation, B computes
// forces from the same state every step and is timed and compared; the tables give each stage's median
// time for both with its spread, the speed-up with its 95% confidence interval, and how far B's forces
// are from A's and from the double-precision direct sum. A and B are changes on top of the settings the
// other options give: "unroll=8,layout=soa" (toggles by key), "theta=0.3" (Barnes-Hut).
#pragma once
#include <string>
#include <vector>

#include "app/bench/bench.hpp"
#include "app/core/report.hpp"
#include "sim/settings.hpp"

namespace nbl {

// `base` with the changes of `text`: comma-separated key=value pairs (the text ab_changes writes), each a
// toggle of the settings' algorithm, a setting row that varies in an A/B (theta: sim/settings_table.hpp)
// or `rung` (the toggles of a ladder rung). Throws InputError naming the bad pair.
Settings with_changes(const Settings& base, const std::string& text, const std::string& option);

std::vector<Table> compare_tables(const Settings& base, const std::string& a, const std::string& b,
                                  const BenchOptions& options);

}  // namespace nbl
