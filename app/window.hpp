// The desktop window: GLFW with an OpenGL 4.5 core context (GLAD), owned for the object's life
// (glfwInit ... glfwTerminate). Construction fails with a message the user can act on: no display
// (and how to render without one), or a GL too old (which version was found, which is needed).
#pragma once
#include <string>

#include "render/camera.hpp"

struct GLFWwindow;

namespace nbl {

struct WindowOptions {
  int width = 1600, height = 900;  // screen coordinates
  bool fullscreen = false;
  bool vsync = true;
  std::string title = "nbodylab";
};

// "" when there is something to open a window on; otherwise the message for the user.
std::string display_problem();

class Window {
 public:
  explicit Window(const WindowOptions& options);  // throws Error
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const { return window_; }
  bool should_close() const;
  void request_close();
  void poll_events();
  void swap_buffers();

  void set_vsync(bool on);
  bool vsync() const { return vsync_; }
  void toggle_fullscreen();

  Viewport framebuffer() const;  // the whole drawable area in pixels
  float content_scale() const;   // HiDPI: 1 on ordinary screens, 2 on "Retina" ones
  const std::string& gl_description() const { return gl_description_; }

 private:
  GLFWwindow* window_ = nullptr;
  bool vsync_ = true;
  bool fullscreen_ = false;
  int windowed_x_ = 0, windowed_y_ = 0, windowed_w_ = 0, windowed_h_ = 0;
  std::string gl_description_;
};

}  // namespace nbl
