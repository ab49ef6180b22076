// Loading a module's kernels into the CUDA context before their first launch. Under lazy loading
// (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) the driver loads a kernel when it is first
// launched, on the launching thread, and loading synchronizes the context: a swapped-in build's first
// kick, integrate or vertex launch (kernels its check on the worker never ran) stalled the frame loop.
// load_every_kernel() does it on the thread that made the module (a build's worker); the rest lets a
// test see whether it happened. The driver calls come through the runtime's driver entry points, so the
// program still never links the driver API. No CUDA types in this header.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace nbl {

struct KernelLoading {
  int kernels = 0;                  // entry points in the library
  std::size_t max_local_bytes = 0;  // the largest per-thread local memory (stack frame, spills) among them
  std::string problem;              // why some may still load lazily at their first launch ("" when none)
};

// Loads every kernel of `library` (a cudaLibrary_t) into the current context: cuFuncLoad on each of
// the module's functions where the driver has it (12.4 and newer), and cudaFuncGetAttributes on each
// kernel, which loads it too (older drivers). Best effort, never throws: a kernel it could not load is
// loaded at its first launch, as without it, and `problem` says why.
KernelLoading load_every_kernel(void* library);

// How many kernels of `library` are not fully loaded into the current context (cuFuncIsLoaded on the
// module's enumerated functions, which does not load them); nothing when this driver cannot say (12.4).
std::optional<int> unloaded_kernels(void* library);

// Whether the driver loads kernels lazily in this process (nothing when it cannot say).
std::optional<bool> lazy_loading_enabled();

}  // namespace nbl
