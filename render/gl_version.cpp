#include "render/gl_version.hpp"

#include <cctype>

namespace nbl {

namespace {

bool read_int(std::string_view& s, int& out) {
  std::size_t used = 0;
  int value = 0;
  while (used < s.size() && std::isdigit(static_cast<unsigned char>(s[used]))) {
    value = value * 10 + (s[used] - '0');
    if (value > 1000) return false;
    ++used;
  }
  if (used == 0) return false;
  out = value;
  s.remove_prefix(used);
  return true;
}

}  // namespace

std::optional<GlVersion> parse_gl_version(std::string_view s) {
  GlVersion v;
  constexpr std::string_view es_prefix = "OpenGL ES ";
  if (s.substr(0, es_prefix.size()) == es_prefix) {
    v.es = true;
    s.remove_prefix(es_prefix.size());
    if (s.substr(0, 4) == "CM " || s.substr(0, 4) == "CL ") s.remove_prefix(3);  // ES 1.x profiles
  }
  if (!read_int(s, v.major) || s.empty() || s.front() != '.') return std::nullopt;
  s.remove_prefix(1);
  if (!read_int(s, v.minor)) return std::nullopt;
  return v;
}

std::string gl_version_problem(std::string_view version_string, std::string_view renderer) {
  const std::string needed =
      "OpenGL " + std::to_string(kGlMajorNeeded) + "." + std::to_string(kGlMinorNeeded) + " core";
  std::string found(version_string);
  found.insert(found.begin(), '"');
  found.push_back('"');
  if (!renderer.empty()) found.append(" on ").append(renderer);
  const auto v = parse_gl_version(version_string);
  if (!v) return "nbodylab needs " + needed + ", but the driver reported an unreadable version " + found;
  if (v->es)
    return "nbodylab needs desktop " + needed + ", but only OpenGL ES " + std::to_string(v->major) + "." +
           std::to_string(v->minor) + " is available (" + found + ")";
  if (v->major > kGlMajorNeeded || (v->major == kGlMajorNeeded && v->minor >= kGlMinorNeeded)) return {};
  return "nbodylab needs " + needed + ", but this display offers only OpenGL " + std::to_string(v->major) + "." +
         std::to_string(v->minor) + " (" + found +
         "). Update the graphics driver (Mesa >= 20 offers 4.5 even in software: LIBGL_ALWAYS_SOFTWARE=1), "
         "or render without a window: nbodylab render --out frames/";
}

}  // namespace nbl
