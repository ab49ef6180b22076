#include "render/gl_errors.hpp"

#include <cstdio>

#include "render/gl.hpp"

namespace nbl {

namespace {

GlErrorMode g_mode = GlErrorMode::per_frame;
thread_local std::string t_driver_message;  // the last error the driver explained (GL_KHR_debug)

void GLAD_API_PTR record_debug_message(GLenum, GLenum type, GLuint, GLenum severity, GLsizei length,
                                       const GLchar* message, const void*) {
  if (type != GL_DEBUG_TYPE_ERROR && severity != GL_DEBUG_SEVERITY_HIGH) return;
  t_driver_message.assign(message,
                          length >= 0 ? static_cast<std::size_t>(length) : std::char_traits<char>::length(message));
}

std::string describe(GLenum code) {
  std::string text = gl_error_name(code);
  if (!t_driver_message.empty()) text += " (driver: " + t_driver_message + ")";
  t_driver_message.clear();
  return text;
}

void no_check_before(const char*, GLADapiproc, int, ...) {}
void no_check_after(void*, const char*, GLADapiproc, int, ...) {}

// Runs inside GLAD's wrapper right after each GL call; the wrappers are compiled with -fexceptions,
// so the exception unwinds through them to the caller.
void throw_after(void*, const char* name, GLADapiproc, int, ...) {
  const GLenum code = glad_glGetError();
  if (code == GL_NO_ERROR) return;
  while (glad_glGetError() != GL_NO_ERROR) {
  }
  throw GlError(std::string("OpenGL error in ") + name + ": " + describe(code));
}

}  // namespace

std::string gl_error_name(unsigned code) {
  switch (code) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    default: {
      char text[32];
      std::snprintf(text, sizeof text, "GL error 0x%04x", code);
      return text;
    }
  }
}

GlErrorMode default_gl_error_mode() {
#ifdef NDEBUG
  return GlErrorMode::per_frame;
#else
  return GlErrorMode::exceptions;
#endif
}

GlErrorMode gl_error_mode() { return g_mode; }

void install_gl_error_checks(GlErrorMode mode) {
  g_mode = mode;
  gladSetGLPreCallback(no_check_before);  // GLAD's default would clear pending errors before each call
  gladSetGLPostCallback(mode == GlErrorMode::exceptions ? throw_after : no_check_after);
  while (glad_glGetError() != GL_NO_ERROR) {
  }
  if (GLAD_GL_KHR_debug) {
    glad_glEnable(GL_DEBUG_OUTPUT);
    glad_glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);  // the message arrives inside the call that caused it
    glad_glDebugMessageCallback(record_debug_message, nullptr);
  }
}

std::string take_gl_error() {
  const GLenum code = glad_glGetError();
  if (code == GL_NO_ERROR) return {};
  while (glad_glGetError() != GL_NO_ERROR) {
  }
  return describe(code);
}

}  // namespace nbl
