#include "cuda/engine/nvrtc_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "sim/error.hpp"

namespace nbl {

namespace {

// The NVRTC this program was compiled against: same major version, same ABI.
constexpr const char* kSoname = NBL_NVRTC_SONAME;             // e.g. "libnvrtc.so.13"
constexpr const char* kToolkitLibDir = NBL_CUDA_LIBRARY_DIR;  // the build machine's Toolkit

struct Loaded {
  std::unique_ptr<NvrtcLibrary> library;
  std::string error;
};

std::string loaded_path(void* handle, const std::string& fallback) {
  const link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) return map->l_name;
  return fallback;
}

std::string missing_message(const std::string& tried) {
  return std::string("NVRTC, the CUDA Toolkit's run-time compiler (") + kSoname + "), cannot be loaded:" + tried +
         "\nThe GPU backends and `nbodylab kernels` compile their kernels with it; the CPU backends "
         "(--backend cpu) run without it. Install it: NVIDIA's package cuda-nvrtc-" NBL_CUDA_MAJOR_MINOR_DASHED
         " (or the whole CUDA Toolkit " NBL_CUDA_MAJOR_MINOR "), or set NBODYLAB_NVRTC to the path of " +
         kSoname + ".";
}

Loaded load() {
  Loaded result;
  std::vector<std::string> candidates;
  const char* explicit_path = std::getenv("NBODYLAB_NVRTC");
  if (explicit_path && *explicit_path) {
    candidates.emplace_back(explicit_path);
  } else {
    candidates.emplace_back(kSoname);  // LD_LIBRARY_PATH, ld.so.cache, the default folders
    candidates.push_back(std::string("/usr/local/cuda/lib64/") + kSoname);
    candidates.push_back(std::string(kToolkitLibDir) + "/" + kSoname);
  }
  std::string tried;
  for (const auto& candidate : candidates) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      tried += "\n  " + (why ? std::string(why) : candidate);
      continue;
    }
    try {
      result.library.reset(new NvrtcLibrary(handle, loaded_path(handle, candidate)));
      return result;
    } catch (const Error& e) {
      tried += "\n  " + candidate + ": " + e.what();
    }
  }
  if (explicit_path && *explicit_path) tried += "\n  (only $NBODYLAB_NVRTC was tried, since it is set)";
  result.error = missing_message(tried);
  return result;
}

// Never destroyed (nor NVRTC unloaded) before the process ends: a compile on a build-queue worker (a
// prefetch of a neighbour variant) can still be running while static objects are destroyed at exit,
// and unloading the library under it crashed the process after its last test (H100, run 2026-11-23).
const Loaded& loaded() {
  static const Loaded* instance = new Loaded(load());
  return *instance;
}

}  // namespace

NvrtcLibrary::NvrtcLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {
  auto resolve = [&](auto& function, const char* name) {
    dlerror();
    void* symbol = dlsym(handle_, name);
    if (!symbol) {
      dlclose(handle_);
      handle_ = nullptr;
      throw Error(std::string("it has no ") + name + " (not NVRTC, or a different version)");
    }
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(symbol);
  };
  resolve(get_error_string, "nvrtcGetErrorString");
  resolve(version_numbers, "nvrtcVersion");
  resolve(get_num_supported_archs, "nvrtcGetNumSupportedArchs");
  resolve(get_supported_archs, "nvrtcGetSupportedArchs");
  resolve(create_program, "nvrtcCreateProgram");
  resolve(destroy_program, "nvrtcDestroyProgram");
  resolve(compile_program, "nvrtcCompileProgram");
  resolve(get_program_log_size, "nvrtcGetProgramLogSize");
  resolve(get_program_log, "nvrtcGetProgramLog");
  resolve(get_ptx_size, "nvrtcGetPTXSize");
  resolve(get_ptx, "nvrtcGetPTX");
  resolve(get_cubin_size, "nvrtcGetCUBINSize");
  resolve(get_cubin, "nvrtcGetCUBIN");
}

NvrtcLibrary::~NvrtcLibrary() {
  if (handle_) dlclose(handle_);
}

const NvrtcLibrary& NvrtcLibrary::get() {
  const Loaded& l = loaded();
  if (!l.library) throw Error(l.error);
  return *l.library;
}

bool NvrtcLibrary::available(std::string* why) {
  const Loaded& l = loaded();
  if (why) *why = l.error;
  return l.library != nullptr;
}

std::string NvrtcLibrary::version() const {
  int major = 0, minor = 0;
  version_numbers(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string NvrtcLibrary::describe() {
  const Loaded& l = loaded();
  if (!l.library)
    return "NVRTC: missing (" + std::string(kSoname) +
           " cannot be loaded; the GPU backends and "
           "`nbodylab kernels` need it, the CPU backends do not)";
  return "NVRTC " + l.library->version() + " (" + l.library->path() + ")";
}

}  // namespace nbl
