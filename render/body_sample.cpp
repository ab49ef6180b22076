#include "render/body_sample.hpp"

#include <algorithm>
#include <cstring>

namespace nbl {

SamplePlan sample_plan(std::size_t body_count, std::size_t max_count) {
  if (body_count == 0 || max_count == 0) return {};
  const std::size_t stride = std::max<std::size_t>(1, body_count / max_count);
  return {std::min(max_count, (body_count + stride - 1) / stride), stride};
}

void BodySampler::gather(GLuint vertex_buffer, std::size_t body_count, double time) {
  const SamplePlan plan = sample_plan(body_count, kMaxSample);
  if (plan.count == 0) return;
  Slot& slot = slots_[static_cast<std::size_t>(next_)];
  next_ = (next_ + 1) % kRing;
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 3, vertex_buffer, 0,
                    static_cast<GLsizeiptr>(body_count * sizeof(glm::vec4)));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 4, slot.buffer.id());
  gather_.set("u_count", static_cast<unsigned>(plan.count));
  gather_.set("u_stride", static_cast<unsigned>(plan.stride));
  gather_.use();
  glDispatchCompute(static_cast<GLuint>((plan.count + 255) / 256), 1, 1);
  glMemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
  slot.fence.place();
  slot.meta = {time, body_count, plan.stride, {}};
  slot.meta.positions.resize(plan.count);  // the count; filled on take()
  slot.pending = true;
}

std::optional<BodySample> BodySampler::take_previous() {
  std::optional<BodySample> previous;
  for (int k = 2; k <= kRing; ++k) {
    Slot& slot = slots_[static_cast<std::size_t>((next_ - k + kRing) % kRing)];
    if (!slot.pending) continue;
    slot.pending = false;
    if (k > 2) continue;  // older: superseded
    slot.fence.wait();
    BodySample sample = slot.meta;
    std::memcpy(sample.positions.data(), slot.buffer.data(), sample.positions.size() * sizeof(glm::vec4));
    previous = std::move(sample);
  }
  return previous;
}

std::optional<BodySample> BodySampler::take() {
  // Newest first: walk back from the slot gathered last.
  std::optional<BodySample> newest;
  for (int k = 1; k <= kRing; ++k) {
    Slot& slot = slots_[static_cast<std::size_t>((next_ - k + kRing) % kRing)];
    if (!slot.pending || !slot.fence.signaled()) continue;
    slot.pending = false;
    if (newest) continue;  // an older finished one: superseded
    BodySample sample = slot.meta;
    std::memcpy(sample.positions.data(), slot.buffer.data(), sample.positions.size() * sizeof(glm::vec4));
    newest = std::move(sample);
  }
  return newest;
}

}  // namespace nbl
