// GL errors, never silent. After setup every GL call goes through GLAD's debug wrappers (the loader is
// generated with --debug), and one of two policies applies:
//   exceptions  (debug builds, tests): each call is checked as it returns; an error throws GlError
//               naming the call and, where the driver says more (GL_KHR_debug), the driver's message;
//   per frame   (release builds): nothing is checked per call; the frame loop asks take_gl_error()
//               once per frame and the panel reports the first error it returns.
#pragma once
#include <string>

#include "sim/error.hpp"

namespace nbl {

class GlError : public Error {
 public:
  using Error::Error;
};

enum class GlErrorMode { exceptions, per_frame };

// exceptions in a debug build (NDEBUG unset), per_frame otherwise.
GlErrorMode default_gl_error_mode();

// Installs the policy for the current context (call right after the loader loaded it, before any
// other GL call). Also registers a GL_KHR_debug callback where the context has the extension, so an
// error carries the driver's explanation.
void install_gl_error_checks(GlErrorMode mode);
GlErrorMode gl_error_mode();

// The first GL error raised since the last call ("" when none), e.g. "GL_INVALID_ENUM (driver:
// glBindBuffer(target=0xdead))"; drains GL's error queue.
std::string take_gl_error();

// The name of a GL error code ("GL_INVALID_ENUM", ...).
std::string gl_error_name(unsigned code);

}  // namespace nbl
