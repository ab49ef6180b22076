// The desktop window: GLFW with an OpenGL 4.5 core context (GLAD), owned for the object's life
// (glfwInit ... glfwTerminate). Construction fails with a message the user can act on: no display
// (and how to render without one), or a GL too old (which version was found, which is needed).
#pragma once
#include <chrono>
#include <string>

#include "app/lab/surface.hpp"

namespace nbl {

struct WindowOptions {
  int width = 1600, height = 900;  // screen coordinates
  bool fullscreen = false;
  bool vsync = true;
  std::string title = "nbodylab";
};

// "" when there is something to open a window on; otherwise the message for the user.
std::string display_problem();

class Window : public Surface {
 public:
  explicit Window(const WindowOptions& options);  // throws Error
  ~Window() override;

  GLFWwindow* handle() const { return window_; }
  GLFWwindow* glfw_window() const override { return window_; }
  bool should_close() const override;
  void request_close() override;
  void poll_events() override;
  void swap_buffers() override;
  bool paced() const override { return vsync_; }
  void skip_frame() override;

  void set_vsync(bool on) override;
  bool vsync() const override { return vsync_; }
  void toggle_fullscreen() override;

  Viewport framebuffer() const override;
  unsigned draw_framebuffer() const override { return 0; }
  float content_scale() const override;
  const std::string& gl_description() const override { return gl_description_; }
  const char* kind() const override { return "window"; }

 private:
  GLFWwindow* window_ = nullptr;
  bool vsync_ = true;
  std::chrono::steady_clock::time_point last_frame_{};  // the last swap or skipped frame
  bool fullscreen_ = false;
  int windowed_x_ = 0, windowed_y_ = 0, windowed_w_ = 0, windowed_h_ = 0;
  std::string gl_description_;
};

}  // namespace nbl
