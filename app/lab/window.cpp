#include "app/lab/window.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdlib>

#include "app/core/interrupt.hpp"
#include "render/gl.hpp"
#include "render/gl_errors.hpp"
#include "render/gl_version.hpp"
#include "sim/error.hpp"

namespace nbl {

namespace {

// GLFW reports errors through a callback; keep the last one for the message we throw.
std::string g_last_glfw_error;

void remember_glfw_error(int code, const char* description) {
  g_last_glfw_error = std::string(description ? description : "unknown") + " (GLFW error " + std::to_string(code) + ")";
}

const char* kRenderHint =
    "Render without a window:  nbodylab render --scene collision --frames 300 --out frames/\n"
    "run the whole lab, panel included, without a display:  nbodylab --offscreen --script session.json\n"
    "or run the window on a virtual display:  xvfb-run -a nbodylab";

// Which OpenGL the display offers when it refused 4.5 core: open an invisible window with GLFW's
// defaults and ask.
std::string probe_gl_version() {
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* probe = glfwCreateWindow(64, 64, "probe", nullptr, nullptr);
  if (!probe) return {};
  glfwMakeContextCurrent(probe);
  using GetString = const unsigned char* (*)(unsigned int);
  auto get_string = reinterpret_cast<GetString>(glfwGetProcAddress("glGetString"));
  std::string version;
  if (get_string) {
    const unsigned char* v = get_string(0x1F02);  // GL_VERSION
    const unsigned char* r = get_string(0x1F01);  // GL_RENDERER
    version = gl_version_problem(v ? reinterpret_cast<const char*>(v) : "", r ? reinterpret_cast<const char*>(r) : "");
  }
  glfwMakeContextCurrent(nullptr);
  glfwDestroyWindow(probe);
  return version;
}

}  // namespace

std::string display_problem() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((x11 && *x11) || (wayland && *wayland)) return {};
  return std::string(
             "no display: neither DISPLAY nor WAYLAND_DISPLAY is set, so there is no screen to open "
             "the window on.\n") +
         kRenderHint;
}

Window::Window(const WindowOptions& options) : vsync_(options.vsync) {
  if (auto problem = display_problem(); !problem.empty()) throw Error(problem);
  glfwSetErrorCallback(remember_glfw_error);
  if (!glfwInit()) throw Error("cannot open the display (" + g_last_glfw_error + ").\n" + kRenderHint);

  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, kGlMajorNeeded);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, kGlMinorNeeded);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT,
                 default_gl_error_mode() == GlErrorMode::exceptions ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  GLFWmonitor* monitor = options.fullscreen ? glfwGetPrimaryMonitor() : nullptr;
  int width = options.width, height = options.height;
  if (monitor) {
    const GLFWvidmode* mode = glfwGetVideoMode(monitor);
    width = mode->width;
    height = mode->height;
  }
  window_ = glfwCreateWindow(width, height, options.title.c_str(), monitor, nullptr);
  if (!window_) {
    const std::string why = g_last_glfw_error;
    std::string problem = probe_gl_version();
    glfwTerminate();
    if (problem.empty()) problem = "cannot create an OpenGL 4.5 core window (" + why + ")";
    throw Error(problem);
  }
  fullscreen_ = monitor != nullptr;
  glfwMakeContextCurrent(window_);
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw Error("the OpenGL 4.5 context was created but its functions could not be loaded");
  }
  install_gl_error_checks(default_gl_error_mode());
  const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  if (auto problem = gl_version_problem(version ? version : "", renderer ? renderer : ""); !problem.empty()) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw Error(problem);
  }
  gl_description_ = std::string("OpenGL ") + version + " on " + renderer;
  set_vsync(options.vsync);
}

Window::~Window() {
  glfwDestroyWindow(window_);
  glfwTerminate();
}

// Ctrl-C in the terminal closes the window as its close button does (app/core/interrupt.hpp).
bool Window::should_close() const { return glfwWindowShouldClose(window_) || interrupt_requested(); }
void Window::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
void Window::poll_events() { glfwPollEvents(); }
void Window::swap_buffers() {
  glfwSwapBuffers(window_);
  last_frame_ = std::chrono::steady_clock::now();
}

void Window::skip_frame() {
  // Until the refresh after the last frame, as a swap with vsync would have waited; input wakes it
  // early, so a click is answered at once.
  GLFWmonitor* monitor = glfwGetWindowMonitor(window_);
  if (!monitor) monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  const double hz = mode && mode->refreshRate > 0 ? mode->refreshRate : 60.0;
  const auto next = last_frame_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(1.0 / hz));
  const double wait_s = std::chrono::duration<double>(next - std::chrono::steady_clock::now()).count();
  if (wait_s > 0) glfwWaitEventsTimeout(wait_s);
  last_frame_ = std::chrono::steady_clock::now();
}

void Window::set_vsync(bool on) {
  vsync_ = on;
  glfwSwapInterval(on ? 1 : 0);
}

void Window::toggle_fullscreen() {
  if (fullscreen_) {
    glfwSetWindowMonitor(window_, nullptr, windowed_x_, windowed_y_, windowed_w_, windowed_h_, GLFW_DONT_CARE);
  } else {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    if (!monitor) return;
    glfwGetWindowPos(window_, &windowed_x_, &windowed_y_);
    glfwGetWindowSize(window_, &windowed_w_, &windowed_h_);
    const GLFWvidmode* mode = glfwGetVideoMode(monitor);
    glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
  }
  fullscreen_ = !fullscreen_;
  set_vsync(vsync_);  // some drivers reset the swap interval with the mode
}

Viewport Window::framebuffer() const {
  Viewport v;
  glfwGetFramebufferSize(window_, &v.width, &v.height);
  return v;
}

float Window::content_scale() const {
  float x = 1, y = 1;
  glfwGetWindowContentScale(window_, &x, &y);
  return std::max(1.0f, x);
}

}  // namespace nbl
