// The lab without a display (`nbodylab --offscreen`): an EGL context (render/egl_context.hpp: the NVIDIA
// driver's device platform on the GPU machine, so CUDA-GL interop works; Mesa's surfaceless platform in
// CI) and one framebuffer object of a fixed size that stands in for the window's back buffer. The frame
// loop draws the scene and the panel into it exactly as into a window; screenshots read it back. Its
// swap lets the CPU run one frame ahead of the GPU, as a window's does.
#pragma once
#include <chrono>
#include <string>

#include "app/core/interrupt.hpp"
#include "app/lab/surface.hpp"
#include "app/core/options/view_options.hpp"
#include "render/egl_context.hpp"
#include "render/gl_objects.hpp"

namespace nbl {

class OffscreenSurface : public Surface {
 public:
  // refresh_hz > 0: with vsync on, a frame is handed over no sooner than a display of that refresh rate
  // would take it (the swap waits for its next refresh), as a window's swap with vsync does.
  explicit OffscreenSurface(FrameSize size, double refresh_hz = 0);  // throws Error when no EGL context can be made

  bool should_close() const override { return close_requested_ || interrupt_requested(); }  // Ctrl-C ends the session
  void request_close() override { close_requested_ = true; }
  void poll_events() override {}  // input comes from the script, through ImGui's IO
  void swap_buffers() override;
  bool paced() const override { return vsync_ && refresh_hz_ > 0; }
  void skip_frame() override { wait_for_refresh(); }

  void set_vsync(bool on) override { vsync_ = on; }
  bool vsync() const override { return vsync_; }
  void toggle_fullscreen() override {}  // a framebuffer object has one size

  Viewport framebuffer() const override { return {0, 0, size_.width, size_.height}; }
  unsigned draw_framebuffer() const override { return target_.framebuffer(); }
  float content_scale() const override { return 1.0f; }
  const std::string& gl_description() const override { return context_.description(); }
  const char* kind() const override { return "offscreen"; }

 private:
  void wait_for_refresh();
  EglContext context_;  // first: every GL object below needs it, and goes before it
  FrameSize size_;
  GlRenderTarget target_;
  double refresh_hz_ = 0;
  std::chrono::steady_clock::time_point next_refresh_{};
  GlFence previous_frame_;  // placed at the last swap: the GPU's end of the frame before this one
  bool close_requested_ = false;
  bool vsync_ = false;
};

}  // namespace nbl
