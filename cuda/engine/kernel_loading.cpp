#include "cuda/engine/kernel_loading.hpp"

#include <cudaTypedefs.h>  // the driver's function types (cuda.h): types only, nothing is linked
#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <vector>

namespace nbl {

namespace {

// The driver functions this needs, looked up once through the runtime; null where the driver is older.
struct DriverCalls {
  PFN_cuKernelGetFunction_v12000 kernel_get_function = nullptr;
  PFN_cuFuncLoad_v12040 func_load = nullptr;
  PFN_cuFuncIsLoaded_v12040 func_is_loaded = nullptr;
  PFN_cuModuleGetLoadingMode_v11070 loading_mode = nullptr;
  PFN_cuLibraryGetModule_v12000 library_get_module = nullptr;
  PFN_cuModuleGetFunctionCount_v12040 module_function_count = nullptr;
  PFN_cuModuleEnumerateFunctions_v12040 module_functions = nullptr;

  bool can_enumerate() const { return library_get_module && module_function_count && module_functions; }

  static const DriverCalls& get() {
    static const DriverCalls& calls = *new DriverCalls(find());  // never destroyed: workers use it at exit
    return calls;
  }

 private:
  template <class F>
  static void look_up(const char* name, unsigned version, F& out) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
      out = reinterpret_cast<F>(fn);
    else cudaGetLastError();  // not sticky: the fallback takes over
  }
  static DriverCalls find() {
    DriverCalls c;
    look_up("cuKernelGetFunction", 12000, c.kernel_get_function);
    look_up("cuFuncLoad", 12040, c.func_load);
    look_up("cuFuncIsLoaded", 12040, c.func_is_loaded);
    look_up("cuModuleGetLoadingMode", 11070, c.loading_mode);
    look_up("cuLibraryGetModule", 12000, c.library_get_module);
    look_up("cuModuleGetFunctionCount", 12040, c.module_function_count);
    look_up("cuModuleEnumerateFunctions", 12040, c.module_functions);
    return c;
  }
};

// The library's functions in the current context, as the driver enumerates them: handles that may be
// only partly loaded, whose state cuFuncIsLoaded tells without loading them.
std::optional<std::vector<CUfunction>> functions_in_context(void* library) {
  const DriverCalls& driver = DriverCalls::get();
  if (!driver.can_enumerate()) return std::nullopt;
  CUmodule module = nullptr;
  unsigned count = 0;
  if (driver.library_get_module(&module, static_cast<CUlibrary>(library)) != CUDA_SUCCESS ||
      driver.module_function_count(&count, module) != CUDA_SUCCESS)
    return std::nullopt;
  std::vector<CUfunction> functions(count);
  if (count > 0 && driver.module_functions(functions.data(), count, module) != CUDA_SUCCESS) return std::nullopt;
  return functions;
}

}  // namespace

KernelLoading load_every_kernel(void* library) {
  KernelLoading out;
  auto note = [&out](const std::string& what) {
    if (out.problem.empty()) out.problem = what;
  };
  const DriverCalls& driver = DriverCalls::get();
  bool by_driver = false;
  if (driver.func_load) {
    if (const auto functions = functions_in_context(library)) {
      by_driver = true;
      for (CUfunction f : *functions)
        if (const CUresult r = driver.func_load(f); r != CUDA_SUCCESS) {
          by_driver = false;
          note("cuFuncLoad returned " + std::to_string(r));
        }
    }
  }
  const auto lib = static_cast<cudaLibrary_t>(library);
  unsigned count = 0;
  cudaError_t listed = cudaLibraryGetKernelCount(&count, lib);
  std::vector<cudaKernel_t> kernels(listed == cudaSuccess ? count : 0);
  if (listed == cudaSuccess && count > 0) listed = cudaLibraryEnumerateKernels(kernels.data(), count, lib);
  if (listed != cudaSuccess) {
    cudaGetLastError();  // not sticky: the launches will say what is wrong, if anything
    note(std::string("the library's kernels cannot be listed: ") + cudaGetErrorString(listed));
    return out;
  }
  for (cudaKernel_t kernel : kernels) {
    ++out.kernels;
    if (!by_driver && driver.kernel_get_function && driver.func_load) {
      CUfunction function = nullptr;
      if (driver.kernel_get_function(&function, reinterpret_cast<CUkernel>(kernel)) == CUDA_SUCCESS)
        driver.func_load(function);
    }
    // Loads the kernel where cuFuncLoad is missing (its attributes need a loaded function), and tells
    // its local memory: the context's reservation grows, synchronizing the device, when a launch needs more.
    cudaFuncAttributes attributes{};
    if (const cudaError_t r = cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel));
        r == cudaSuccess) {
      out.max_local_bytes = std::max(out.max_local_bytes, attributes.localSizeBytes);
    } else {
      cudaGetLastError();
      note(std::string("cudaFuncGetAttributes: ") + cudaGetErrorString(r));
    }
  }
  return out;
}

std::optional<int> unloaded_kernels(void* library) {
  const DriverCalls& driver = DriverCalls::get();
  if (!driver.func_is_loaded) return std::nullopt;
  const auto functions = functions_in_context(library);
  if (!functions) return std::nullopt;
  int unloaded = 0;
  for (CUfunction f : *functions) {
    CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_MAX;
    if (driver.func_is_loaded(&state, f) != CUDA_SUCCESS) return std::nullopt;
    unloaded += state != CU_FUNCTION_LOADING_STATE_LOADED;
  }
  return unloaded;
}

std::optional<bool> lazy_loading_enabled() {
  const DriverCalls& driver = DriverCalls::get();
  if (!driver.loading_mode) return std::nullopt;
  CUmoduleLoadingMode mode{};
  if (driver.loading_mode(&mode) != CUDA_SUCCESS) return std::nullopt;
  return mode == CU_MODULE_LAZY_LOADING;
}

}  // namespace nbl
