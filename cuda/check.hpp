// Every CUDA runtime call goes through NBL_CUDA_CHECK: a failure becomes an nbl::Error that names the
// call, the file and line, and CUDA's own description, which main() prints before exiting non-zero.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "sim/error.hpp"

namespace nbl {

class CudaError : public Error {
 public:
  CudaError(cudaError_t code, const std::string& what) : Error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace nbl

#define NBL_CUDA_CHECK(call)                                                                         \
  do {                                                                                               \
    const cudaError_t nbl_status_ = (call);                                                          \
    if (nbl_status_ != cudaSuccess) ::nbl::throw_cuda_error(nbl_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: catches bad launch configurations at once (not at the next sync).
#define NBL_CUDA_CHECK_LAUNCH() NBL_CUDA_CHECK(cudaGetLastError())
