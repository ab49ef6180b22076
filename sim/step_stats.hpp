// What one simulation step reports (each step returns StepStats). The panel keeps a
// history of these; `bench` prints and saves them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nbl {

struct StageTime {
  std::string name;  // "force", "integrate", "bounding box", "tree build", ...
  double ms = 0;     // CUDA events on the GPU, a steady clock on the CPU
};

struct NodesTouched {  // per body in the Barnes-Hut force walk (the tutorial's table)
  double min = 0, avg = 0, max = 0;
};

struct TreeStats {  // Barnes-Hut only
  int max_depth = 0;
  std::int64_t cells = 0;
  double children_per_cell = 0;
  NodesTouched nodes_touched;
};

struct StepStats {
  std::vector<StageTime> stages;
  double total_ms = 0;
  double interactions = 0;  // body-body plus body-cell interactions evaluated this step
  bool has_tree = false;
  TreeStats tree;
  std::vector<std::string> notices;  // what happened and how it was handled (bad geometry, pool growth)
  bool non_finite = false;           // NaN or inf appeared in the state: the caller pauses
  // Stopped early because the StepControl asked (sim/backend.hpp): the state is as it was before the
  // step, and nothing else here counts.
  bool abandoned = false;
  int force_slices = 1;  // launches (or chunks) the force pass was split into so the display could draw

  double stage_ms(const std::string& name) const {
    for (const auto& s : stages)
      if (s.name == name) return s.ms;
    return 0;
  }
};

}  // namespace nbl
