#include "app/lab/offscreen_surface.hpp"

#include "render/gl.hpp"

namespace nbl {

OffscreenSurface::OffscreenSurface(FrameSize size)
    : size_(size), target_(size.width, size.height, GL_RGBA8) {}

// A window's swap hands the frame to the display, which bounds how far the CPU runs ahead of the GPU.
// Offscreen nothing does: glFinish keeps the frame interval an honest measure of one whole frame.
void OffscreenSurface::swap_buffers() { glFinish(); }

}  // namespace nbl
