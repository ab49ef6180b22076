// Everything a run is made of, as plain fields (docs/architecture.md: settings -> simulation ->
// renderer -> panel). The panel and the CLI edit a Settings value; the simulation reads it; JSON saves
// it (settings_io.hpp). What each scalar field is called, which values it takes and how it is edited is
// written once, in kSettings (settings_table.hpp); validation happens once, where a value enters
// (validate() below).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/toggles.hpp"

namespace nbl {

enum class Scene { collision, galaxy, plummer, sphere, cube, kepler };
enum class BackendKind { automatic, gpu, cpu };
// The first seven colour keys come from the backends (physics/color_keys.hpp; ab_difference: how far
// A/B's B variant's force on each body differs from A's, log scale, sim/comparison.hpp). The last two
// the renderer makes itself, so no backend knows them: galaxy of origin (which body-index range a body
// was born in, recorded by the scene) and log projected density (the bodies per pixel the sprites add
// up to).
enum class ColorMode { speed, acceleration, mass, body_index, warp_id, tree_depth, ab_difference, origin, density };
enum class PanelTheme { dark, high_contrast };
// How bodies reach the float framebuffer (docs/window.md, "The picture"): GL point sprites, or a
// compute kernel that adds each body's Gaussian into it (CUDA when the vertices are on the GPU, the
// same code on the host otherwise). Both draw the same picture; splatting is the fast one at 10M.
// automatic: the CUDA splat where the vertices are on the GPU, the sprites where they are on the host.
enum class RenderPath { sprites, splat, automatic };

// What the renderer and panel show; the simulation ignores these except to fill the colour key.
struct ViewSettings {
  ColorMode color_mode = ColorMode::speed;
  float point_size = 1.0f;  // sprite size multiplier (sprites also grow with mass)
  float exposure = 1.0f;    // tone-map exposure for the additive float framebuffer
  int octree_depth = 0;     // draw octree cells up to this depth; 0 hides the overlay
  bool show_bounding_box = false;
  bool show_axes = false;
  bool vsync = true;
  // The picture at any N (docs/window.md, "The picture"): the white point follows a percentile of the
  // frame's light, and the camera follows the centre of mass of the bound bodies.
  bool auto_exposure = true;
  bool follow_bound = true;
  // Draw the galaxies' dark-matter halos (scene_groups' dark groups) too: off, the picture shows stars.
  bool show_dark_matter = false;
  // Presenter mode (the window only): larger type, a high-contrast panel, a compact panel and a caption.
  float ui_scale = 1.0f;
  PanelTheme panel_theme = PanelTheme::dark;
  bool presenter = false;
  RenderPath render_path = RenderPath::automatic;
  bool operator==(const ViewSettings&) const = default;
};

struct Settings {
  Scene scene = Scene::collision;
  std::optional<std::int64_t> body_count;  // unset: as many as this machine runs interactively
  std::uint64_t seed = 1;
  std::optional<double> dt;         // unset: the scene's recommended time step
  std::optional<double> softening;  // unset: the scene's recommended softening length
  double opening_angle = 0.65;      // Barnes-Hut theta (with adaptive quadrupoles, bh_moments)
  Algorithm algorithm = Algorithm::barneshut;
  BackendKind backend = BackendKind::automatic;
  int steps_per_frame = 1;
  // Kernel sources the GPU backends compile and hot-reload: a workspace made by `nbodylab kernels
  // --export DIR`; empty: the ones installed with the program.
  std::string kernels_dir;
  ToggleValues toggles;
  ViewSettings view;
};

// An enum value and its name as written in JSON and on the command line. The name tables below are the
// one list of each enum's values: to_string, parsing, the CLI, the JSON and the panel's lists iterate
// over them, so a new value is one row here.
struct EnumName {
  int value;  // the enum value, as an int so that one setting table can hold every enum's names
  std::string_view name;
  std::string_view label = {};  // as the panel shows it, when not the name
};

template <typename E>
constexpr EnumName named(E value, std::string_view name, std::string_view label = {}) {
  return {static_cast<int>(value), name, label};
}

inline constexpr std::array kSceneNames = {
    named(Scene::collision, "collision"), named(Scene::galaxy, "galaxy"), named(Scene::plummer, "plummer"),
    named(Scene::sphere, "sphere"),       named(Scene::cube, "cube"),     named(Scene::kepler, "kepler"),
};
inline constexpr std::array kAlgorithmNames = {
    named(Algorithm::allpairs, "allpairs", "all-pairs"),
    named(Algorithm::barneshut, "barneshut", "Barnes-Hut"),
};
inline constexpr std::array kBackendNames = {
    named(BackendKind::automatic, "auto"),
    named(BackendKind::gpu, "gpu"),
    named(BackendKind::cpu, "cpu"),
};
inline constexpr std::array kColorModeNames = {
    named(ColorMode::speed, "speed"),
    named(ColorMode::acceleration, "acceleration"),
    named(ColorMode::mass, "mass"),
    named(ColorMode::body_index, "index"),
    named(ColorMode::warp_id, "warp"),
    named(ColorMode::tree_depth, "depth"),
    named(ColorMode::ab_difference, "ab", "A/B difference"),
    named(ColorMode::origin, "galaxy", "galaxy of origin"),
    named(ColorMode::density, "density", "log density"),
};
inline constexpr std::array kPanelThemeNames = {
    named(PanelTheme::dark, "dark"),
    named(PanelTheme::high_contrast, "high-contrast"),
};
inline constexpr std::array kRenderPathNames = {
    named(RenderPath::sprites, "sprites"),
    named(RenderPath::splat, "splat"),
    named(RenderPath::automatic, "auto"),
};

// Each table lists its enum's values in declaration order from 0, so an array indexed by the enum (the
// colour maps by ColorMode) has exactly one slot per name.
template <std::size_t N>
consteval bool in_enum_order(const std::array<EnumName, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i].value != static_cast<int>(i)) return false;
  return true;
}
static_assert(in_enum_order(kSceneNames) && in_enum_order(kAlgorithmNames) && in_enum_order(kBackendNames) &&
              in_enum_order(kColorModeNames) && in_enum_order(kPanelThemeNames) && in_enum_order(kRenderPathNames));

// Names as they appear in JSON and on the command line.
std::string_view to_string(Scene s);
std::string_view to_string(Algorithm a);
std::string_view to_string(BackendKind b);
std::string_view to_string(ColorMode c);
std::string_view to_string(RenderPath r);
std::optional<Scene> parse_scene(std::string_view s);
std::optional<Algorithm> parse_algorithm(std::string_view s);
std::optional<BackendKind> parse_backend(std::string_view s);
std::optional<ColorMode> parse_color_mode(std::string_view s);

// Comma-separated list of the valid names, for error messages ("scene must be one of: ...").
std::string scene_names();
std::string algorithm_names();
std::string backend_names();
std::string color_mode_names();

// The N a run gets without -n: as many bodies as this kind of machine runs interactively (the window
// then measures its first frames and adjusts, app/core/body_count_tuner.hpp).
std::size_t default_body_count(Scene scene, Algorithm algorithm, bool on_gpu);
// That rule in words, with its numbers (for --help).
std::string default_body_count_rule();
// Why a run without -n got the N it did ("the default for Barnes-Hut on a GPU"), for summary lines.
std::string default_body_count_reason(Scene scene, Algorithm algorithm, bool on_gpu);

// Throws InputError naming the first offending field: any scalar setting outside its range in kSettings
// (n <= 0, dt <= 0 or not finite, theta outside [0, 2], ...), or a toggle value outside its range.
void validate(const Settings& settings);

// How Barnes-Hut cells are opened, in words for titles and reports: "relative opening, tolerance
// 80e-4" or "theta 0.65" (bh_opening, bh_tolerance and theta).
std::string opening_description(const Settings& settings);

}  // namespace nbl
