// Where the lab draws: what its frame loop needs from a window, and nothing more. Two kinds exist: the
// desktop window (GLFW, app/lab/window.hpp) and the offscreen surface (an EGL context and a framebuffer
// object, app/lab/offscreen_surface.hpp) that runs the same loop, panel included, where there is no display
// (`nbodylab --offscreen`: the GPU machine, CI). The GL context is current for the surface's life.
#pragma once
#include <string>

#include "render/camera.hpp"

struct GLFWwindow;

namespace nbl {

class Surface {
 public:
  virtual ~Surface() = default;
  Surface() = default;
  Surface(const Surface&) = delete;
  Surface& operator=(const Surface&) = delete;

  virtual bool should_close() const = 0;
  virtual void request_close() = 0;
  virtual void poll_events() = 0;
  virtual void swap_buffers() = 0;  // the frame is finished: show it (offscreen: finish it)
  // Whether frames are handed over at a display's refresh (vsync on; offscreen, with a refresh rate):
  // then a frame whose picture is unchanged may skip its drawing and wait for the next refresh instead.
  virtual bool paced() const = 0;
  // The frame drew nothing (its picture is the one on screen): wait as long as a swap would have, for
  // the display's next refresh (a window wakes early for input).
  virtual void skip_frame() = 0;

  virtual void set_vsync(bool on) = 0;  // offscreen there is no display to wait for: remembered only
  virtual bool vsync() const = 0;
  virtual void toggle_fullscreen() = 0;

  virtual Viewport framebuffer() const = 0;       // the whole drawable area in pixels
  virtual unsigned draw_framebuffer() const = 0;  // the GL framebuffer the frame goes to (0: the window's)
  virtual float content_scale() const = 0;        // HiDPI: 1 on ordinary screens, 2 on "Retina" ones
  virtual const std::string& gl_description() const = 0;
  virtual const char* kind() const = 0;  // "window" or "offscreen", for messages

  // The GLFW window behind it, for Dear ImGui's GLFW backend; null offscreen, where the lab feeds
  // ImGui's input itself (app/lab/imgui_layer.hpp).
  virtual GLFWwindow* glfw_window() const { return nullptr; }
};

}  // namespace nbl
