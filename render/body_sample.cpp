#include "render/body_sample.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

#include "cuda/buffer.hpp"
#include "cuda/check.hpp"

namespace nbl {

SamplePlan sample_plan(std::size_t body_count, std::size_t max_count) {
  if (body_count == 0 || max_count == 0) return {};
  const std::size_t stride = std::max<std::size_t>(1, body_count / max_count);
  return {std::min(max_count, (body_count + stride - 1) / stride), stride};
}

struct BodySampler::Device {
  std::array<PinnedBuffer<glm::vec4>, kRing> samples;
  std::array<CudaEvent, kRing> done;
  Device() {
    for (auto& s : samples) s.resize(kMaxSample);
    for (auto& e : done) e = CudaEvent(cudaEventDisableTiming);
  }
};

BodySampler::BodySampler() = default;
BodySampler::~BodySampler() = default;

BodySampler::Slot& BodySampler::next_slot(const SamplePlan& plan, std::size_t body_count, double time) {
  Slot& slot = slots_[static_cast<std::size_t>(next_)];
  next_ = (next_ + 1) % kRing;
  slot.meta = {time, body_count, plan.stride, {}};
  slot.meta.positions.resize(plan.count);  // the count; filled on take()
  slot.pending = true;
  return slot;
}

void BodySampler::gather(GLuint vertex_buffer, std::size_t body_count, double time) {
  const SamplePlan plan = sample_plan(body_count, kMaxSample);
  if (plan.count == 0) return;
  Slot& slot = next_slot(plan, body_count, time);
  slot.on_device = false;
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 3, vertex_buffer, 0,
                    static_cast<GLsizeiptr>(body_count * sizeof(glm::vec4)));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, slot.buffer.id());
  gather_.set("u_count", static_cast<unsigned>(plan.count));
  gather_.set("u_stride", static_cast<unsigned>(plan.stride));
  gather_.use();
  glDispatchCompute(static_cast<GLuint>((plan.count + 255) / 256), 1, 1);
  glMemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
  slot.fence.place();
}

void BodySampler::gather_device(const float* vertices, void* stream, std::size_t body_count, double time) {
  const SamplePlan plan = sample_plan(body_count, kMaxSample);
  if (plan.count == 0) return;
  if (!device_) device_ = std::make_unique<Device>();
  const auto k = static_cast<std::size_t>(next_);
  Slot& slot = next_slot(plan, body_count, time);
  slot.on_device = true;
  // Every stride-th float4 of the positions, one row of 16 bytes each: a strided copy does the gather.
  const auto s = static_cast<cudaStream_t>(stream);
  NBL_CUDA_CHECK(cudaMemcpy2DAsync(device_->samples[k].data(), sizeof(glm::vec4), vertices,
                                   plan.stride * sizeof(glm::vec4), sizeof(glm::vec4), plan.count,
                                   cudaMemcpyDeviceToHost, s));
  device_->done[k].record(s);
}

bool BodySampler::finished(Slot& slot, bool wait) {
  if (!slot.on_device) {
    if (wait) slot.fence.wait();
    return wait || slot.fence.signaled();
  }
  const CudaEvent& done = device_->done[static_cast<std::size_t>(&slot - slots_.data())];
  if (wait) {
    done.synchronize();
    return true;
  }
  const cudaError_t status = cudaEventQuery(done.get());
  if (status == cudaErrorNotReady) {
    cudaGetLastError();  // not an error: the copy is still running
    return false;
  }
  NBL_CUDA_CHECK(status);
  return true;
}

const void* BodySampler::data(const Slot& slot) const {
  return slot.on_device
             ? static_cast<const void*>(device_->samples[static_cast<std::size_t>(&slot - slots_.data())].data())
             : slot.buffer.data();
}

std::optional<BodySample> BodySampler::take_previous() {
  std::optional<BodySample> previous;
  for (int k = 2; k <= kRing; ++k) {
    Slot& slot = slots_[static_cast<std::size_t>((next_ - k + kRing) % kRing)];
    if (!slot.pending) continue;
    slot.pending = false;
    if (k > 2) continue;  // older: superseded
    finished(slot, /*wait=*/true);
    BodySample sample = slot.meta;
    std::memcpy(sample.positions.data(), data(slot), sample.positions.size() * sizeof(glm::vec4));
    previous = std::move(sample);
  }
  return previous;
}

std::optional<BodySample> BodySampler::take() {
  // Newest first: walk back from the slot gathered last.
  std::optional<BodySample> newest;
  for (int k = 1; k <= kRing; ++k) {
    Slot& slot = slots_[static_cast<std::size_t>((next_ - k + kRing) % kRing)];
    if (!slot.pending || !finished(slot, /*wait=*/false)) continue;
    slot.pending = false;
    if (newest) continue;  // an older finished one: superseded
    BodySample sample = slot.meta;
    std::memcpy(sample.positions.data(), data(slot), sample.positions.size() * sizeof(glm::vec4));
    newest = std::move(sample);
  }
  return newest;
}

}  // namespace nbl
