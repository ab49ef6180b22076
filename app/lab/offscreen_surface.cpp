#include "app/lab/offscreen_surface.hpp"

#include <thread>
#include <utility>

#include "cuda/nvtx.hpp"
#include "render/gl.hpp"

namespace nbl {

OffscreenSurface::OffscreenSurface(FrameSize size, double refresh_hz)
    : size_(size), target_(size.width, size.height, GL_RGBA8), refresh_hz_(refresh_hz) {}

// A window's swap hands the frame to the display and lets the CPU run a frame ahead of the GPU; with
// vsync off the frame interval is then the slower of the two, not their sum. Offscreen the same: the
// swap waits for the frame before this one (a fence), so the CPU builds the next frame and its panel
// while the GPU draws this one, and never runs more than a frame ahead. (A glFinish here made every
// frame the CPU's time plus the GPU's, as no window does.)
void OffscreenSurface::swap_buffers() {
  GlFence drawn;
  drawn.place();
  const NvtxRange range("offscreen swap: the previous frame's GPU work");
  previous_frame_.wait();
  previous_frame_ = std::move(drawn);
  wait_for_refresh();
}

void OffscreenSurface::wait_for_refresh() {
  if (vsync_ && refresh_hz_ > 0) {  // the display's next refresh; a late frame takes the one after it
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(1.0 / refresh_hz_));
    const auto now = std::chrono::steady_clock::now();
    next_refresh_ =
        next_refresh_ + period > now ? next_refresh_ + period : now + period - (now - next_refresh_) % period;
    std::this_thread::sleep_until(next_refresh_);
  }
}

}  // namespace nbl
