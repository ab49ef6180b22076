// `nbodylab info`: what this machine offers (GPU, CUDA versions, FP32 ceiling, NVRTC), the HDF5 library
// snapshots are read with, and where the program finds its kernel sources, shaders and assets. The GPU
// script runs it first. `nbodylab info SNAPSHOT` says instead what a snapshot holds and how the lab
// would convert it (sim/hdf5_snapshot.hpp), without running anything.
#include <cstdio>
#include <memory>
#include <string>

#include "app/core/commands.hpp"
#include "cuda/device.hpp"
#include "cuda/engine/nvrtc_library.hpp"
#include "sim/diagnostics.hpp"
#include "sim/hdf5_snapshot.hpp"
#include "sim/resources.hpp"
#include "sim/snapshot.hpp"

namespace nbl {

namespace {

int describe_snapshot(const std::string& file) {
  const Snapshot s = read_snapshot(file);  // InputError (exit 2) for a file the lab would refuse
  std::printf("%s: %zu bodies at t = %g (the lab's units)\n", file.c_str(), s.bodies.size(), s.time);
  for (const std::string& line : s.meta.description) std::printf("  %s\n", line.c_str());
  std::printf("  virial speed sqrt(G M / R) in the lab's units: %g\n", virial_speed(s.bodies));
  return kExitOk;
}

}  // namespace

Command add_info_command(CLI::App& root) {
  CLI::App* sub =
      root.add_subcommand("info",
                          "Describe the GPU, the CUDA runtime, the HDF5 library and the program's resource paths; "
                          "with a SNAPSHOT, what it holds and how the lab converts it");
  auto snapshot = std::make_shared<std::string>();
  sub->add_option("snapshot", *snapshot, "A Tipsy or HDF5 snapshot to describe instead (as --load would read it)")
      ->type_name("SNAPSHOT");
  return {sub, [snapshot] {
            if (!snapshot->empty()) return describe_snapshot(*snapshot);
            std::string why;
            if (auto device = query_device(&why)) {
              std::printf("GPU: %s\n", describe(*device).c_str());
            } else {
              std::printf("GPU: none (%s); the CPU backends will run\n", why.c_str());
              std::printf("%s\n", describe_runtime().c_str());
            }
            std::printf("%s\n", NvrtcLibrary::describe().c_str());
            std::printf("HDF5: %s (snapshots in the GADGET, SWIFT and AREPO layouts: --load, --save FILE.hdf5)\n",
                        hdf5_library_version().c_str());
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
