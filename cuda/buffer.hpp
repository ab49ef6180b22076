// RAII owners of CUDA resources (CONTRIBUTING.md: no raw cudaFree outside these types and buffer.cpp). Move-only.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda/check.hpp"

namespace nbl {

// Device memory comes from the GPU's stream-ordered pool where it has one (cudaMallocAsync, then ready
// on every stream). Freeing a pool block waits for nothing, where cudaFree of a cudaMalloc block waits
// for every kernel on the GPU, whoever launched it, and the lab's frames with them (H200, driver 580:
// swap_gpu_test's table). device_release keeps cudaFree's old promise (work still on a stream may use
// the block) by waiting for the device itself, unless an IdleRelease lives on the thread.
void* device_allocate(std::size_t bytes);
void device_release(void* data) noexcept;

// While one lives on a thread, whatever is released there is known to be unused by the GPU (the caller
// waited for every stream that used it: the teardown worker after a swap). Device memory is then freed
// without waiting for the device, and kernel modules stay loaded for reuse (own_module).
class IdleRelease {
 public:
  IdleRelease();
  ~IdleRelease();
  IdleRelease(const IdleRelease&) = delete;
  IdleRelease& operator=(const IdleRelease&) = delete;
  static bool here();  // whether one lives on this thread

 private:
  bool was_ = false;
};

// Device memory for `size` elements of T.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t size) { resize(size); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Reallocates only when the size changes; contents are not preserved.
  void resize(std::size_t size) {
    if (size == size_) return;
    release();
    if (size > 0) data_ = static_cast<T*>(device_allocate(size * sizeof(T)));
    size_ = size;
  }

  void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
    NBL_CUDA_CHECK(cudaMemcpyAsync(data_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    resize(host.size());
    upload(host.data(), host.size(), stream);
  }
  void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
    NBL_CUDA_CHECK(cudaMemcpyAsync(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::vector<T> to_host(cudaStream_t stream = nullptr) const {
    std::vector<T> host(size_);
    if (size_) download(host.data(), size_, stream);
    return host;
  }
  // Fill every byte with `byte` (tests poison outputs with 0xff: every float becomes NaN).
  void fill_bytes(int byte, cudaStream_t stream = nullptr) {
    if (size_) NBL_CUDA_CHECK(cudaMemsetAsync(data_, byte, size_ * sizeof(T), stream));
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  void release() {
    device_release(data_);  // never throws from a destructor; errors surface at the next check
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Page-locked host memory (fast, asynchronous copies).
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t size) { resize(size); }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void resize(std::size_t size) {
    if (size == size_) return;
    release();
    if (size > 0) NBL_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), size * sizeof(T)));
    size_ = size;
  }
  T* data() { return data_; }
  std::size_t size() const { return size_; }

 private:
  void release() {
    if (data_) cudaFreeHost(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

class CudaStream {
 public:
  // Where a stream's kernels queue for room on an SM: when a block ends, the GPU starts the next block
  // of the highest-priority stream that has one waiting (a running block is never stopped). CUDA's own
  // default is its lowest priority, so a stream made without one would rank with the background work:
  // every stream here names its place.
  //   background: work that may wait (checking a variant built ahead, the energy's slices)
  //   normal:     the simulation's steps and everything else
  //   display:    what a display frame waits for (the splat, the vertices' copy into GL's buffer),
  //               so a frame gets the next free room on the GPU even while a long launch runs
  enum class Priority { background, normal, display };
  CudaStream() : CudaStream(Priority::normal) {}
  explicit CudaStream(Priority priority) {
    NBL_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority_value(priority)));
  }
  // The numeric CUDA priority of each place on this device (lower numbers first; all equal where the
  // device has a single level).
  static int priority_value(Priority priority) {
    int least = 0, greatest = 0;
    NBL_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    switch (priority) {
      case Priority::background: return least;
      case Priority::normal: return least > greatest ? least - 1 : least;
      case Priority::display: return greatest;
    }
    return least;
  }
  ~CudaStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  CudaStream(CudaStream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&&) = delete;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }
  int priority() const {
    int value = 0;
    NBL_CUDA_CHECK(cudaStreamGetPriority(stream_, &value));
    return value;
  }
  void synchronize() const { NBL_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent() : CudaEvent(cudaEventDefault) {}
  // cudaEventDisableTiming makes a lighter event, for ordering only (ms_since needs the default).
  explicit CudaEvent(unsigned flags) { NBL_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
  ~CudaEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  CudaEvent(CudaEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& o) noexcept {
    std::swap(event_, o.event_);
    return *this;
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  void record(cudaStream_t stream) { NBL_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { NBL_CUDA_CHECK(cudaEventSynchronize(event_)); }
  cudaEvent_t get() const { return event_; }
  // Milliseconds from `start` to this event; both must have completed.
  float ms_since(const CudaEvent& start) const {
    float ms = 0;
    NBL_CUDA_CHECK(cudaEventSynchronize(event_));
    NBL_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace nbl
