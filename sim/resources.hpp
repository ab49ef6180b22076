// Files the program reads at run time (kernel sources, physics headers for NVRTC, shaders, assets).
// Looked up, in order, under $NBODYLAB_ROOT, next to the executable (build/.. is the source tree, so a
// copied build folder still finds them), and the source tree the program was built from.
#pragma once
#include <filesystem>
#include <string_view>

namespace nbl {

// The path of `relative` (e.g. "cuda/kernels" or "shaders/points.vert") under the first root that has
// it; throws Error naming every place it looked when none does.
std::filesystem::path find_resource(std::string_view relative);

// The directory that holds the executable.
std::filesystem::path executable_dir();

}  // namespace nbl
