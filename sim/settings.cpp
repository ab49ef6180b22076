#include "sim/settings.hpp"

#include <cstdio>
#include <span>
#include <string>

#include "sim/error.hpp"
#include "sim/settings_table.hpp"

namespace nbl {

namespace {

std::string_view name_of(std::span<const EnumName> names, int value) {
  for (const auto& n : names)
    if (n.value == value) return n.name;
  return "?";
}

template <typename E>
std::optional<E> parse_name(std::span<const EnumName> names, std::string_view text) {
  for (const auto& n : names)
    if (n.name == text) return static_cast<E>(n.value);
  return std::nullopt;
}

std::string list_names(std::span<const EnumName> names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n.name;
  }
  return out;
}

// The interactive defaults (as many bodies as the machine runs at >= 30 FPS), per machine
// class; the window's tuner corrects them for the machine in front of it.
constexpr std::size_t kGpuBarnesHutBodies = std::size_t(1) << 20;
constexpr std::size_t kGpuAllPairsBodies = std::size_t(1) << 17;
constexpr std::size_t kCpuBarnesHutBodies = std::size_t(1) << 14;
constexpr std::size_t kCpuAllPairsBodies = std::size_t(1) << 12;
constexpr std::size_t kKeplerBodies = 2;

}  // namespace

std::string_view to_string(Scene s) { return name_of(kSceneNames, static_cast<int>(s)); }
std::string_view to_string(Algorithm a) { return name_of(kAlgorithmNames, static_cast<int>(a)); }
std::string_view to_string(BackendKind b) { return name_of(kBackendNames, static_cast<int>(b)); }
std::string_view to_string(ColorMode c) { return name_of(kColorModeNames, static_cast<int>(c)); }
std::string_view to_string(RenderPath r) { return name_of(kRenderPathNames, static_cast<int>(r)); }
std::optional<Scene> parse_scene(std::string_view s) { return parse_name<Scene>(kSceneNames, s); }
std::optional<Algorithm> parse_algorithm(std::string_view s) { return parse_name<Algorithm>(kAlgorithmNames, s); }
std::optional<BackendKind> parse_backend(std::string_view s) { return parse_name<BackendKind>(kBackendNames, s); }
std::optional<ColorMode> parse_color_mode(std::string_view s) { return parse_name<ColorMode>(kColorModeNames, s); }
std::string scene_names() { return list_names(kSceneNames); }
std::string algorithm_names() { return list_names(kAlgorithmNames); }
std::string backend_names() { return list_names(kBackendNames); }
std::string color_mode_names() { return list_names(kColorModeNames); }

std::size_t default_body_count(Scene scene, Algorithm algorithm, bool on_gpu) {
  if (scene == Scene::kepler) return kKeplerBodies;
  if (on_gpu) return algorithm == Algorithm::barneshut ? kGpuBarnesHutBodies : kGpuAllPairsBodies;
  return algorithm == Algorithm::barneshut ? kCpuBarnesHutBodies : kCpuAllPairsBodies;
}

std::string default_body_count_rule() {
  return "what this kind of machine runs smoothly: on a GPU " + std::to_string(kGpuBarnesHutBodies) +
         " for Barnes-Hut and " + std::to_string(kGpuAllPairsBodies) + " for all-pairs, on the CPU " +
         std::to_string(kCpuBarnesHutBodies) + " and " + std::to_string(kCpuAllPairsBodies) + "; " +
         std::to_string(kKeplerBodies) +
         " for kepler. The window then measures its first frames and lowers "
         "it (on the CPU also raises it) to hold 30 FPS";
}

std::string default_body_count_reason(Scene scene, Algorithm algorithm, bool on_gpu) {
  if (scene == Scene::kepler) return "the kepler scene's two bodies";
  return std::string("the default for ") + (algorithm == Algorithm::barneshut ? "Barnes-Hut" : "all-pairs") +
         (on_gpu ? " on a GPU" : " on the CPU") + "; -n chooses";
}

void validate(const Settings& s) {
  for (const SettingDef& setting : kSettings) {
    const std::string problem = check_setting(setting, setting.access.get(s));
    if (!problem.empty()) throw InputError(std::string(setting.noun) + " " + problem);
  }
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const std::string problem = toggle_problem(kToggles[i], s.toggles.values[i]);
    if (!problem.empty()) throw InputError("toggle '" + std::string(kToggles[i].key) + "' " + problem);
  }
}

std::string opening_description(const Settings& settings) {
  if (settings.toggles.is(Choice{"bh_opening", "relative"}))
    return "relative opening, tolerance " + std::to_string(settings.toggles[ToggleId{"bh_tolerance"}]) + "e-4";
  char text[32];
  std::snprintf(text, sizeof text, "theta %g", settings.opening_angle);
  return text;
}

}  // namespace nbl
