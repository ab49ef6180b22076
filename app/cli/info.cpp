// `nbodylab info`: what this machine offers (GPU, CUDA versions, FP32 ceiling, NVRTC) and where the
// program finds its kernel sources, shaders and assets. The GPU script runs it first.
#include <cstdio>

#include "app/core/commands.hpp"
#include "cuda/device.hpp"
#include "cuda/engine/nvrtc_library.hpp"
#include "sim/resources.hpp"

namespace nbl {

Command add_info_command(CLI::App& root) {
  CLI::App* sub = root.add_subcommand("info", "Describe the GPU, the CUDA runtime and the program's resource paths");
  return {sub, [] {
            std::string why;
            if (auto device = query_device(&why)) {
              std::printf("GPU: %s\n", describe(*device).c_str());
            } else {
              std::printf("GPU: none (%s); the CPU backends will run\n", why.c_str());
              std::printf("%s\n", describe_runtime().c_str());
            }
            std::printf("%s\n", NvrtcLibrary::describe().c_str());
            const ResourceRoot& root = resource_location();
            std::printf("resources: %s (%s)\n", root.path.string().c_str(), root.origin.c_str());
            std::printf("kernel sources: %s\n", find_resource("cuda/kernels").string().c_str());
            std::printf("physics headers: %s\n", find_resource("physics").string().c_str());
            std::printf("shaders: %s\n", find_resource("shaders").string().c_str());
            std::printf("assets: %s\n", find_resource("assets").string().c_str());
            return kExitOk;
          }};
}

}  // namespace nbl
