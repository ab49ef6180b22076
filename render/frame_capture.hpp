// Reading frames back without stalling the frame loop: glReadPixels into a ring of pixel-pack buffers
// (GL_PIXEL_PACK_BUFFER, persistently mapped), which returns at once while the GPU copies; a fence per
// slot says when the copy is done, a frame or two later. A finished slot is handed out (its pixels,
// bottom row first, as GL reads them) and stays busy until whoever took it releases it, from any
// thread: the recorder's encoder reads the mapped memory directly, so the frame loop copies nothing.
// When no slot is free the frame is dropped, and the caller counts it.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "render/camera.hpp"
#include "render/gl_objects.hpp"

namespace nbl {

struct CapturedFrame {
  int slot = -1;
  int width = 0, height = 0;
  const std::uint8_t* pixels = nullptr;  // RGBA8, bottom row first; valid until release(slot)
  std::int64_t index = 0;                // what the caller tagged it with
};

class FrameCapture {
 public:
  static constexpr int kMaxSlots = 8;
  FrameCapture(int width, int height, int slots = 4);
  int width() const { return width_; }
  int height() const { return height_; }

  // Starts reading `region` (width() x height()) of `framebuffer` (0: the window's back buffer) into a
  // free slot. False, and nothing read, when every slot is busy.
  bool capture(GLuint framebuffer, const Viewport& region, std::int64_t index);
  // The slots whose copy has finished since the last call, oldest first (GL thread). Never waits unless
  // `wait`: then every capture still in flight is finished first (when recording stops).
  std::vector<CapturedFrame> finished(bool wait = false);
  // Gives a slot back once its pixels are no longer needed; safe from any thread.
  void release(int slot);
  int busy_slots() const;

 private:
  enum State : int { kFree, kCopying, kHandedOut };
  struct Slot {
    explicit Slot(std::size_t bytes) : buffer(bytes) {}
    GlMappedBuffer buffer;
    GlFence fence;
    std::int64_t index = 0;
    std::atomic<int> state{kFree};
  };
  int width_, height_;
  std::vector<std::unique_ptr<Slot>> slots_;
  int next_ = 0;
};

}  // namespace nbl
