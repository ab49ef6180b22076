// The all-pairs optimization ladder (sim/ladder.hpp) as the panel shows it: a few columns of text from
// `nbodylab bench ladder`'s table (app/core/teaching/allpairs_bench.hpp owns the measurement), run in the background.
#pragma once
#include <cstddef>
#include <future>
#include <string>
#include <vector>

#include "sim/settings.hpp"

namespace nbl {

struct LadderTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::string note;  // how it was measured: n, device, repetitions
  // Per rung of kLadder, in order (NaN where not measured): speed-up over the rung it builds on, and
  // the measured rate as % of the issue-slot ceiling its own hot loop implies.
  std::vector<double> speedup, issue_pct;
};

// Runs every rung on `n` bodies and returns the table. Throws Error when it cannot run (no GPU).
// Takes seconds: LadderJob calls it off the UI thread.
LadderTable run_ladder_table(const Settings& base, std::size_t n);

// One ladder run in the background.
class LadderJob {
 public:
  void start(const Settings& base, std::size_t n);
  // Collects a finished run; true when one finished this call.
  bool poll();
  bool running() const { return pending_.valid(); }
  const LadderTable& table() const { return table_; }
  const std::string& error() const { return error_; }

 private:
  std::future<LadderTable> pending_;
  LadderTable table_;
  std::string error_;
};

}  // namespace nbl
