// Files the program reads at run time (kernel sources, physics headers for NVRTC, shaders, assets)
// live in the source tree, under one root. The root is the first of these that holds the physics
// headers: $NBODYLAB_ROOT; the parent of the executable's folder (build/.. is the source tree, so a
// build folder finds the tree it was built from, and gpu-bundle/bin/.. likewise); the source tree the
// program was built from.
#pragma once
#include <filesystem>
#include <string_view>

namespace nbl {

// The root described above; throws Error naming every place it looked when none qualifies.
const std::filesystem::path& resource_root();

// resource_root() / relative, checked to exist (e.g. "cuda/kernels" or "shaders/points.vert");
// throws Error naming the missing path.
std::filesystem::path find_resource(std::string_view relative);

// The directory that holds the executable.
std::filesystem::path executable_dir();

}  // namespace nbl
