#include "sim/settings.hpp"

#include <array>
#include <cmath>
#include <sstream>

#include "sim/error.hpp"

namespace nbl {

namespace {

template <typename E, std::size_t N>
struct NameTable {
  std::array<std::pair<E, std::string_view>, N> entries;

  std::string_view name(E e) const {
    for (const auto& [value, text] : entries)
      if (value == e) return text;
    return "?";
  }
  std::optional<E> parse(std::string_view s) const {
    for (const auto& [value, text] : entries)
      if (text == s) return value;
    return std::nullopt;
  }
  std::string list() const {
    std::string out;
    for (const auto& [value, text] : entries) {
      if (!out.empty()) out += ", ";
      out += text;
    }
    return out;
  }
};

constexpr NameTable<Scene, 6> kScenes{{{{Scene::collision, "collision"},
                                        {Scene::galaxy, "galaxy"},
                                        {Scene::plummer, "plummer"},
                                        {Scene::sphere, "sphere"},
                                        {Scene::cube, "cube"},
                                        {Scene::kepler, "kepler"}}}};
constexpr NameTable<Algorithm, 2> kAlgorithms{{{{Algorithm::allpairs, "allpairs"}, {Algorithm::barneshut, "barneshut"}}}};
constexpr NameTable<BackendKind, 3> kBackends{
    {{{BackendKind::automatic, "auto"}, {BackendKind::gpu, "gpu"}, {BackendKind::cpu, "cpu"}}}};
constexpr NameTable<ColorMode, 6> kColorModes{{{{ColorMode::speed, "speed"},
                                                {ColorMode::acceleration, "acceleration"},
                                                {ColorMode::mass, "mass"},
                                                {ColorMode::body_index, "index"},
                                                {ColorMode::warp_id, "warp"},
                                                {ColorMode::tree_depth, "depth"}}}};

}  // namespace

std::string_view to_string(Scene s) { return kScenes.name(s); }
std::string_view to_string(Algorithm a) { return kAlgorithms.name(a); }
std::string_view to_string(BackendKind b) { return kBackends.name(b); }
std::string_view to_string(ColorMode c) { return kColorModes.name(c); }
std::optional<Scene> parse_scene(std::string_view s) { return kScenes.parse(s); }
std::optional<Algorithm> parse_algorithm(std::string_view s) { return kAlgorithms.parse(s); }
std::optional<BackendKind> parse_backend(std::string_view s) { return kBackends.parse(s); }
std::optional<ColorMode> parse_color_mode(std::string_view s) { return kColorModes.parse(s); }
std::string scene_names() { return kScenes.list(); }
std::string algorithm_names() { return kAlgorithms.list(); }
std::string backend_names() { return kBackends.list(); }
std::string color_mode_names() { return kColorModes.list(); }

void validate(const Settings& s) {
  auto fail = [](const std::string& msg) { throw InputError(msg); };
  if (s.body_count && *s.body_count <= 0)
    fail("the number of bodies must be at least 1 (got " + std::to_string(*s.body_count) + ")");
  if (s.dt && (!std::isfinite(*s.dt) || *s.dt <= 0)) {
    std::ostringstream m;
    m << "the time step dt must be a positive number (got " << *s.dt << ")";
    fail(m.str());
  }
  if (s.softening && (!std::isfinite(*s.softening) || *s.softening < 0)) {
    std::ostringstream m;
    m << "the softening length must be zero or positive (got " << *s.softening << ")";
    fail(m.str());
  }
  if (!std::isfinite(s.opening_angle) || s.opening_angle < 0 || s.opening_angle > 2) {
    std::ostringstream m;
    m << "the opening angle theta must lie in [0, 2] (got " << s.opening_angle
      << "); 0 opens every cell, 0.5 is the usual choice";
    fail(m.str());
  }
  if (s.steps_per_frame < 1 || s.steps_per_frame > 1000)
    fail("steps per frame must lie in [1, 1000] (got " + std::to_string(s.steps_per_frame) + ")");
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& t = kToggles[i];
    const int v = s.toggles.values[i];
    if (v < t.min_value || v > t.max_value || (t.step > 1 && (v - t.min_value) % t.step != 0)) {
      std::ostringstream m;
      m << "toggle '" << t.key << "' must lie in [" << t.min_value << ", " << t.max_value << "]";
      if (t.step > 1) m << " in steps of " << t.step;
      m << " (got " << v << ")";
      fail(m.str());
    }
  }
  if (!std::isfinite(s.view.point_size) || s.view.point_size <= 0) fail("point size must be positive");
  if (!std::isfinite(s.view.exposure) || s.view.exposure <= 0) fail("exposure must be positive");
  if (s.view.octree_depth < 0 || s.view.octree_depth > 32) fail("octree overlay depth must lie in [0, 32]");
}

}  // namespace nbl
