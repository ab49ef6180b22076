// Everything a run is made of, as plain fields (DESIGN.md, Architecture: settings -> simulation ->
// renderer -> panel). The panel and the CLI edit a Settings value; the simulation reads it; JSON saves
// it (settings_io.hpp). Validation happens once, where a value enters (validate() below).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/toggles.hpp"

namespace nbl {

enum class Scene { collision, galaxy, plummer, sphere, cube, kepler };
enum class BackendKind { automatic, gpu, cpu };
enum class ColorMode { speed, acceleration, mass, body_index, warp_id, tree_depth };

// What the renderer and panel show; the simulation ignores these except to fill the colour key.
struct ViewSettings {
  ColorMode color_mode = ColorMode::speed;
  float point_size = 1.0f;        // sprite size multiplier (sprites also grow with mass)
  float exposure = 1.0f;          // tone-map exposure for the additive float framebuffer
  int octree_depth = 0;           // draw octree cells up to this depth; 0 hides the overlay
  bool show_bounding_box = false;
  bool show_axes = false;
  bool vsync = true;
};

struct Settings {
  Scene scene = Scene::collision;
  std::optional<std::int64_t> body_count;  // unset: as many as this machine runs interactively
  std::uint64_t seed = 1;
  std::optional<double> dt;                // unset: the scene's recommended time step
  std::optional<double> softening;         // unset: the scene's recommended softening length
  double opening_angle = 0.5;              // Barnes-Hut theta
  Algorithm algorithm = Algorithm::barneshut;
  BackendKind backend = BackendKind::automatic;
  int steps_per_frame = 1;
  // Kernel sources the GPU backends compile and hot-reload: a workspace made by `nbodylab kernels
  // --export DIR`; empty: the ones installed with the program.
  std::string kernels_dir;
  ToggleValues toggles;
  ViewSettings view;
};

// Names as they appear in JSON and on the command line.
std::string_view to_string(Scene s);
std::string_view to_string(Algorithm a);
std::string_view to_string(BackendKind b);
std::string_view to_string(ColorMode c);
std::optional<Scene> parse_scene(std::string_view s);
std::optional<Algorithm> parse_algorithm(std::string_view s);
std::optional<BackendKind> parse_backend(std::string_view s);
std::optional<ColorMode> parse_color_mode(std::string_view s);

// Comma-separated list of the valid names, for error messages ("scene must be one of: ...").
std::string scene_names();
std::string algorithm_names();
std::string backend_names();
std::string color_mode_names();

// Throws InputError naming the first offending field: n <= 0, dt <= 0 or not finite, softening < 0,
// theta < 0 or > 2, a toggle value outside its range, steps_per_frame < 1, ...
void validate(const Settings& settings);

}  // namespace nbl
