#include "cuda/step_slices.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "cuda/check.hpp"

namespace nbl {

namespace {
constexpr int kMaxSlices = 1024;
}  // namespace

int force_slice_count(const StepControl& control, double whole_ms, int items, int fill_items) {
  if (control.slice_ms <= 0 || whole_ms <= control.slice_ms || items < 2) return 1;
  const int per_slice = control.fill_each_slice ? std::max(fill_items, 1) : 1;
  const int most = std::max(1, std::min(items / per_slice, kMaxSlices));
  const double wanted = std::ceil(whole_ms / control.slice_ms);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(most)));
}

int whole_wave_slice_count(int wanted, int items, int wave_items) {
  if (wanted <= 1 || items < 2) return 1;
  wave_items = std::max(wave_items, 1);
  const double waves_wanted = static_cast<double>(items) / (static_cast<double>(wanted) * wave_items);
  const int waves = std::max(1, static_cast<int>(std::ceil(waves_wanted)));
  return std::max(1, (items + wave_items * waves - 1) / (wave_items * waves));
}

bool next_slice(const StepControl& control, cudaStream_t stream) {
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  return !control.abandoned();
}

StopWord::~StopWord() {
  if (copies_) cudaStreamDestroy(copies_);
  if (one_) cudaFreeHost(one_);
  if (word_) cudaFree(word_);
}

const int* StopWord::arm(cudaStream_t stream) {
  if (!word_) {
    NBL_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&word_), sizeof(int)));
    NBL_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&one_), sizeof(int)));
    *one_ = 1;
    NBL_CUDA_CHECK(cudaStreamCreateWithFlags(&copies_, cudaStreamNonBlocking));
  }
  NBL_CUDA_CHECK(cudaMemsetAsync(word_, 0, sizeof(int), stream));
  return word_;
}

void StopWord::raise() {
  if (!word_) return;
  NBL_CUDA_CHECK(cudaMemcpyAsync(word_, one_, sizeof(int), cudaMemcpyHostToDevice, copies_));
  NBL_CUDA_CHECK(cudaStreamSynchronize(copies_));
}

bool wait_or_stop(const StepControl& control, cudaStream_t stream, StopWord& stop) {
  bool raised = false;
  for (;;) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaSuccess) return !raised;
    if (status != cudaErrorNotReady) NBL_CUDA_CHECK(status);
    cudaGetLastError();  // not ready is not an error
    if (!raised && control.abandoned()) {
      stop.raise();
      raised = true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void StateSnapshot::take(std::vector<std::pair<void*, std::size_t>> regions, cudaStream_t stream) {
  std::size_t bytes = 0;
  for (const auto& [at, size] : regions) bytes += size;
  if (copy_.size() < bytes) copy_.resize(bytes);
  std::size_t offset = 0;
  for (const auto& [at, size] : regions) {
    NBL_CUDA_CHECK(cudaMemcpyAsync(copy_.data() + offset, at, size, cudaMemcpyDeviceToDevice, stream));
    offset += size;
  }
  regions_ = std::move(regions);
}

void StateSnapshot::restore(cudaStream_t stream) {
  std::size_t offset = 0;
  for (const auto& [at, size] : regions_) {
    NBL_CUDA_CHECK(cudaMemcpyAsync(at, copy_.data() + offset, size, cudaMemcpyDeviceToDevice, stream));
    offset += size;
  }
  regions_.clear();
}

StepStats abandoned_step(StateSnapshot& snapshot, cudaStream_t stream) {
  snapshot.restore(stream);
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  StepStats stats;
  stats.abandoned = true;
  return stats;
}

}  // namespace nbl
