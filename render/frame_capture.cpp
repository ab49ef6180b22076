#include "render/frame_capture.hpp"

#include <algorithm>

namespace nbl {

FrameCapture::FrameCapture(int width, int height, int slots) : width_(width), height_(height) {
  const std::size_t bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4;
  for (int i = 0; i < std::clamp(slots, 2, kMaxSlots); ++i) slots_.push_back(std::make_unique<Slot>(bytes));
}

bool FrameCapture::capture(GLuint framebuffer, const Viewport& region, std::int64_t index) {
  // The oldest slot first, so frames come out in order.
  Slot& slot = *slots_[static_cast<std::size_t>(next_)];
  if (slot.state.load(std::memory_order_acquire) != kFree) return false;
  next_ = (next_ + 1) % static_cast<int>(slots_.size());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
  if (framebuffer == 0) glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer.id());
  glReadPixels(region.x, region.y, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE,
               nullptr);  // into the buffer: returns at once
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  slot.fence.place();
  slot.index = index;
  slot.state.store(kCopying, std::memory_order_release);
  return true;
}

std::vector<CapturedFrame> FrameCapture::finished(bool wait) {
  std::vector<CapturedFrame> out;
  const int n = static_cast<int>(slots_.size());
  // Oldest first: the slot after the newest one written is the oldest.
  for (int k = 0; k < n; ++k) {
    const int i = (next_ + k) % n;
    Slot& slot = *slots_[static_cast<std::size_t>(i)];
    if (slot.state.load(std::memory_order_acquire) != kCopying) continue;
    if (wait) slot.fence.wait();
    else if (!slot.fence.signaled()) break;  // later ones are not done either
    slot.fence.reset();
    slot.state.store(kHandedOut, std::memory_order_release);
    out.push_back({i, width_, height_, static_cast<const std::uint8_t*>(slot.buffer.data()), slot.index});
  }
  return out;
}

void FrameCapture::release(int slot) {
  slots_[static_cast<std::size_t>(slot)]->state.store(kFree, std::memory_order_release);
}

int FrameCapture::busy_slots() const {
  int busy = 0;
  for (const auto& s : slots_) busy += s->state.load(std::memory_order_acquire) != kFree;
  return busy;
}

}  // namespace nbl
