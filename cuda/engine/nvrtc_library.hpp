// NVRTC, loaded at run time. The program links no part of the CUDA Toolkit dynamically (the runtime is
// static, the driver is loaded by the runtime when there is one), so it starts, and runs its CPU
// backends, on a machine without the Toolkit. The GPU backends and `nbodylab kernels` need NVRTC; they
// get it here, and when it is missing the message says what to install.
//
// Where it comes from: $NBODYLAB_NVRTC when set (a path to libnvrtc.so.N; nothing else is tried, so a
// wrong path is reported, not papered over), else the system's library search (LD_LIBRARY_PATH,
// ld.so.cache), else the Toolkit's usual folders (/usr/local/cuda/lib64, the one this was built with).
#pragma once
#include <nvrtc.h>  // types and signatures only: nothing here links against libnvrtc

#include <string>

namespace nbl {

class NvrtcLibrary {
 public:
  // The process-wide library, loaded on first use. Throws Error saying what is missing and how to get
  // it when NVRTC cannot be loaded (the attempt is made once; later calls throw the same message).
  static const NvrtcLibrary& get();
  // Whether it can be loaded, without throwing; `why` gets the message get() would throw.
  static bool available(std::string* why = nullptr);
  // "NVRTC 13.0 (/usr/local/cuda/lib64/libnvrtc.so.13)", or "NVRTC: missing (...)": for `info`.
  static std::string describe();

  // Takes ownership of a dlopen() handle and resolves every symbol; throws Error naming a missing one
  // (the handle is then closed). Use get(): this is public only for the loader.
  NvrtcLibrary(void* handle, std::string path);
  ~NvrtcLibrary();
  NvrtcLibrary(const NvrtcLibrary&) = delete;
  NvrtcLibrary& operator=(const NvrtcLibrary&) = delete;

  const std::string& path() const { return path_; }  // the file that was loaded
  std::string version() const;                       // "13.0"

  // The functions the kernel engine calls, with NVRTC's own signatures.
  decltype(&::nvrtcGetErrorString) get_error_string = nullptr;
  decltype(&::nvrtcVersion) version_numbers = nullptr;
  decltype(&::nvrtcGetNumSupportedArchs) get_num_supported_archs = nullptr;
  decltype(&::nvrtcGetSupportedArchs) get_supported_archs = nullptr;
  decltype(&::nvrtcCreateProgram) create_program = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy_program = nullptr;
  decltype(&::nvrtcCompileProgram) compile_program = nullptr;
  decltype(&::nvrtcGetProgramLogSize) get_program_log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) get_program_log = nullptr;
  decltype(&::nvrtcGetPTXSize) get_ptx_size = nullptr;
  decltype(&::nvrtcGetPTX) get_ptx = nullptr;
  decltype(&::nvrtcGetCUBINSize) get_cubin_size = nullptr;
  decltype(&::nvrtcGetCUBIN) get_cubin = nullptr;

 private:
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace nbl
