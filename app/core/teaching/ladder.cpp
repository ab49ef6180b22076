#include "app/core/teaching/ladder.hpp"

#include <chrono>
#include <cmath>
#include <variant>
#include <nlohmann/json.hpp>
#include <utility>

#include "app/core/teaching/allpairs_bench.hpp"
#include "sim/error.hpp"
#include "sim/ladder.hpp"

namespace nbl {

namespace {

// The ladder table's columns the panel has room for, by the bench table's keys, with short headings.
constexpr std::pair<const char*, const char*> kPanelColumns[] = {
    {"name", "rung"},      {"ms", "ms"},           {"speedup", "x prev"},    {"cumulative", "x total"},
    {"gflops", "GFLOP/s"}, {"peak_pct", "% peak"}, {"issue_pct", "% issue"}, {"error_rms", "err rms"},
};

}  // namespace

LadderTable run_ladder_table(const Settings& base, std::size_t n) {
  AllPairsBenchOptions options;
  options.n = n;
  options.seed = base.seed;
  options.progress = false;       // the panel shows its own "running" state
  options.measure_clock = false;  // the panel's % is against the driver's peak clock, as elsewhere in it
  options.seconds_per_configuration = 5;
  const Table bench = run_ladder(options);

  // Column positions by key (the bench table keeps keys in column order in its JSON form).
  const auto parsed = nlohmann::json::parse(bench.json());
  const auto& keys = parsed.at("columns");
  LadderTable table;
  std::vector<std::size_t> picked;
  for (const auto& [key, heading] : kPanelColumns) {
    for (std::size_t c = 0; c < keys.size(); ++c)
      if (keys[c].get<std::string>() == key) {
        picked.push_back(c);
        table.columns.emplace_back(heading);
      }
  }
  for (std::size_t r = 0; r < bench.rows(); ++r) {
    std::vector<std::string> row;
    for (std::size_t c : picked) row.push_back(bench.at(r, c).text);
    table.rows.push_back(std::move(row));
  }
  // The numbers behind the bar chart, for the rungs of kLadder (the rows after them are "best").
  auto number = [&](std::size_t r, const char* key) {
    for (std::size_t c = 0; c < keys.size(); ++c)
      if (keys[c].get<std::string>() == key)
        if (const double* v = std::get_if<double>(&bench.at(r, c).value)) return *v;
    return std::nan("");
  };
  for (std::size_t r = 0; r < kLadder.size() && r < bench.rows(); ++r) {
    table.speedup.push_back(number(r, "speedup"));
    table.issue_pct.push_back(number(r, "issue_pct"));
  }
  const auto& notes = parsed.at("notes");
  if (!notes.empty()) table.note = notes.front().get<std::string>();  // what was measured, on which GPU
  return table;
}

void LadderJob::start(const Settings& base, std::size_t n) {
  if (running()) return;
  error_.clear();
  pending_ = std::async(std::launch::async, [base, n] { return run_ladder_table(base, n); });
}

bool LadderJob::poll() {
  if (!pending_.valid() || pending_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
  try {
    table_ = pending_.get();
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  return true;
}

}  // namespace nbl
