// The stages of one step, named once. Every backend names its StepStats stages from this table (the
// panel's per-stage bars, `bench`'s columns), and the GPU backends open an NVTX range of the same name
// around each stage's launches (cuda/stage_timer.hpp), so Nsight Systems and ncu's NVTX filters show the
// words the panel shows.
#pragma once
#include <array>
#include <cstddef>

namespace nbl {

enum class Stage { bounding_box, tree_build, summarize, sort, groups, force, integrate };

inline constexpr std::array<const char*, 7> kStageNames = {
    "bounding box", "tree build", "summarize", "sort", "groups", "force", "integrate",
};

inline constexpr const char* stage_name(Stage stage) { return kStageNames[static_cast<std::size_t>(stage)]; }

}  // namespace nbl
