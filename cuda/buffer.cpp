#include "cuda/buffer.hpp"

namespace nbl {

namespace {

thread_local bool idle_release = false;

bool device_has_memory_pools() {
  static const bool yes = [] {
    int device = 0, supported = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
      cudaGetLastError();  // not sticky: plain cudaMalloc takes over
      return false;
    }
    return supported != 0;
  }();
  return yes;
}

// Each thread allocates on a stream of its own that nothing else uses, so waiting for it waits for the
// allocation alone.
cudaStream_t allocation_stream() {
  struct Owned {
    cudaStream_t stream = nullptr;
    Owned() { NBL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
    ~Owned() { cudaStreamDestroy(stream); }  // at thread exit; an error after the context is gone is moot
  };
  thread_local Owned owned;
  return owned.stream;
}

}  // namespace

void* device_allocate(std::size_t bytes) {
  void* data = nullptr;
  if (device_has_memory_pools()) {
    const cudaStream_t stream = allocation_stream();
    NBL_CUDA_CHECK(cudaMallocAsync(&data, bytes, stream));
    NBL_CUDA_CHECK(cudaStreamSynchronize(stream));  // from here on the block is usable on every stream
  } else {
    NBL_CUDA_CHECK(cudaMalloc(&data, bytes));
  }
  return data;
}

void device_release(void* data) noexcept {
  if (!data) return;
  if (device_has_memory_pools() && !idle_release) cudaDeviceSynchronize();  // what cudaFree of cudaMalloc did
  cudaFree(data);
}

IdleRelease::IdleRelease() : was_(std::exchange(idle_release, true)) {}
IdleRelease::~IdleRelease() { idle_release = was_; }
bool IdleRelease::here() { return idle_release; }

}  // namespace nbl
