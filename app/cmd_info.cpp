// `nbodylab info`: what this machine offers (GPU, CUDA versions, FP32 ceiling) and where the program
// finds its kernel sources and shaders. The GPU script runs it first.
#include <cstdio>

#include "app/commands.hpp"
#include "cuda/device.hpp"
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
            std::printf("kernel sources: %s\n", find_resource("cuda/kernels").string().c_str());
            std::printf("physics headers: %s\n", find_resource("physics").string().c_str());
            return kExitOk;
          }};
}

}  // namespace nbl
