// Which OpenGL a context offers, and whether that is enough (OpenGL 4.5 core: the highest Mesa's
// llvmpipe offers, so CI and the NVIDIA driver run the same code). Pure string logic, unit-tested
// without a context.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace nbl {

inline constexpr int kGlMajorNeeded = 4;
inline constexpr int kGlMinorNeeded = 5;

struct GlVersion {
  int major = 0, minor = 0;
  bool es = false;  // an OpenGL ES context ("OpenGL ES 3.2 ...")
};

// Parses a GL_VERSION string: "4.5 (Core Profile) Mesa 22.3.6", "4.6.0 NVIDIA 550.54",
// "OpenGL ES 3.2 Mesa ...". Nothing when it does not start with a version number.
std::optional<GlVersion> parse_gl_version(std::string_view version_string);

// Empty when `version_string` offers at least OpenGL 4.5 (desktop); otherwise the message for the
// user: which version was found, which is needed, and what to try.
std::string gl_version_problem(std::string_view version_string, std::string_view renderer = {});

}  // namespace nbl
