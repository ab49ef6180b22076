// The single list of the scalar settings (CONTRIBUTING.md), as kToggles (toggles.hpp) is for the kernel
// toggles. validate(), the command line (app/core/options/setting_options.hpp), the JSON settings (settings_io.hpp)
// and the panel's widgets (app/lab/setting_widgets.hpp) all iterate over kSettings: a setting's name, range,
// default rule and widget are written once, in its row, and adding a field to Settings is one row here.
// tests/sim/settings_table_test.cpp checks that every consumer has every row.
#pragma once
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "sim/settings.hpp"

namespace nbl {

enum class SettingKind {
  choice,      // one of an enum's values, by name (`choices`)
  integer,     // a whole number in [integer_min, integer_max]
  unsigned64,  // any whole number from 0 to 2^64 - 1 (the seed)
  real,        // a number in [real_min, real_max], or (real_min, real_max] when real_min_exclusive
  flag,        // on or off
};

// When an edit reaches the run. The groups also order the panel and the command line: the restart
// group, then the live group, make the panel's Simulation section (Restart sits between them); the view
// group is its View section and the CLI's "View" options.
enum class SettingGroup {
  restart,  // rebuilds the bodies (scene, N, seed): in the window it waits for Restart (R)
  live,     // reaches the simulation at the next step
  view,     // the picture only: the renderer reads it, the simulation never does (JSON: under "view")
};

// How the panel edits it. Sliders show the whole valid range; a log slider spreads a range that spans
// orders of magnitude; an input takes any value (an optional setting's input has an "auto" box beside it).
enum class PanelWidget { combo, radio, input, slider, log_slider, checkbox };

// A setting's value, whatever its field's type: Unset for an optional field left to its default rule,
// EnumValue for an enum (its value as an int, see EnumName), the others as their 64-bit forms.
struct Unset {
  bool operator==(const Unset&) const = default;
};
struct EnumValue {
  int value;
  bool operator==(const EnumValue&) const = default;
};
using SettingValue = std::variant<Unset, bool, std::int64_t, std::uint64_t, double, EnumValue>;

// How a row reads and writes its field. set() takes only values check_setting() accepts (the right
// alternative, in range), so its narrowing to int or float cannot wrap.
struct SettingAccess {
  SettingValue (*get)(const Settings&);
  void (*set)(Settings&, const SettingValue&);
};

inline constexpr std::int64_t kNoIntegerLimit = std::numeric_limits<std::int64_t>::max();
inline constexpr double kNoRealLimit = std::numeric_limits<double>::infinity();

struct SettingDef {
  std::string_view key;    // JSON key (under "view" for the view group); how code and tests name it
  std::string_view cli;    // CLI11 option names; a flag's sets it on, or off when named --no-...
  std::string_view label;  // panel label
  std::string_view noun;   // how validate() names it in a message: "the opening angle theta"
  SettingGroup group;
  SettingKind kind;
  std::span<const EnumName> choices = {};
  std::int64_t integer_min = 0, integer_max = 0;
  double real_min = 0, real_max = 0;
  bool real_min_exclusive = false;
  // Non-null for an optional field (JSON null, the panel's "auto"): says what applies while it is unset.
  std::string (*unset_means)() = nullptr;
  std::string_view zero_means = {};        // what 0 stands for, shown in the panel and --help ("off")
  std::optional<Algorithm> only_for = {};  // meaningful with this algorithm only (the panel hides it otherwise)
  bool window_only = false;                // only the window has it: `render` takes no such option
  bool varies_in_ab = false;               // an A/B's B may differ from A in it, as in a toggle (theta)
  PanelWidget widget = PanelWidget::input;
  std::string_view symbol_label = {};  // the label with Greek letters, when the panel's font has them
  std::string_view help = {};          // what it does (panel tooltip, --help)
  SettingAccess access = {};
};

namespace setting_access {

template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

// A float as the shortest decimal that names it (0.01f -> 0.01, not 0.0099999998): the value the user
// typed, so that a float field holding a range's end (0.01) passes the check the typed value passed.
inline double decimal(float v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  double d = 0;
  std::from_chars(text, end, d);
  return d;
}

template <typename T>
SettingValue to_value(const T& v) {
  if constexpr (is_optional<T>::value) return v ? to_value(*v) : SettingValue{Unset{}};
  else if constexpr (std::is_enum_v<T>) return EnumValue{static_cast<int>(v)};
  else if constexpr (std::is_same_v<T, bool>) return v;
  else if constexpr (std::is_same_v<T, float>) return decimal(v);
  else if constexpr (std::is_floating_point_v<T>) return static_cast<double>(v);
  else if constexpr (std::is_unsigned_v<T>) return static_cast<std::uint64_t>(v);
  else return static_cast<std::int64_t>(v);
}

template <typename T>
T from_value(const SettingValue& v) {
  if constexpr (is_optional<T>::value) {
    if (std::holds_alternative<Unset>(v)) return std::nullopt;
    return from_value<typename T::value_type>(v);
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(std::get<EnumValue>(v).value);
  } else if constexpr (std::is_same_v<T, bool>) {
    return std::get<bool>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::get<double>(v));
  } else if constexpr (std::is_unsigned_v<T>) {
    return static_cast<T>(std::get<std::uint64_t>(v));
  } else {
    return static_cast<T>(std::get<std::int64_t>(v));
  }
}

template <typename T>
T& member(Settings& s, T Settings::*field) {
  return s.*field;
}
template <typename T>
T& member(Settings& s, T ViewSettings::*field) {
  return s.view.*field;
}
template <typename T>
const T& member(const Settings& s, T Settings::*field) {
  return s.*field;
}
template <typename T>
const T& member(const Settings& s, T ViewSettings::*field) {
  return s.view.*field;
}

}  // namespace setting_access

// The accessors of one field of Settings or of its ViewSettings: field<&Settings::seed>.
template <auto Field>
inline constexpr SettingAccess field = {
    [](const Settings& s) { return setting_access::to_value(setting_access::member(s, Field)); },
    [](Settings& s, const SettingValue& v) {
      auto& f = setting_access::member(s, Field);
      f = setting_access::from_value<std::remove_reference_t<decltype(f)>>(v);
    },
};

// What the run-time defaults of the optional fields are (their unset_means).
std::string default_dt_rule();
std::string default_softening_rule();

// clang-format off
inline constexpr std::array kSettings = {
  // ---------------- restart: new bodies ----------------
  SettingDef{.key = "scene", .cli = "--scene", .label = "Scene", .noun = "the scene",
    .group = SettingGroup::restart, .kind = SettingKind::choice, .choices = kSceneNames,
    .widget = PanelWidget::combo,
    .help = "Initial conditions, deterministic per seed: two colliding galaxies, one disk galaxy, a Plummer "
            "sphere, a cold uniform sphere, a random cube, or a two-body Kepler orbit. Units: G = 1 and a total "
            "mass of 1, so a time unit is sqrt(L^3 / (G M)) for the length unit L: the Plummer sphere has a "
            "virial radius of 1 (scale length 3 pi / 16), the sphere a radius of 1, the cube a side of 2, a lone "
            "galaxy's disk a scale length of 0.25, the collision's galaxies (masses 1 : 0.7) meet at a pericentre "
            "of 1, and the Kepler pair (0.75 and 0.25) has a semi-major axis of 1, so its period is 2 pi.",
    .access = field<&Settings::scene>},
  SettingDef{.key = "bodies", .cli = "-n,--bodies", .label = "Bodies (N)", .noun = "the number of bodies",
    .group = SettingGroup::restart, .kind = SettingKind::integer, .integer_min = 1, .integer_max = kNoIntegerLimit,
    .unset_means = &default_body_count_rule,
    .widget = PanelWidget::input,
    .help = "Number of bodies.",
    .access = field<&Settings::body_count>},
  SettingDef{.key = "seed", .cli = "--seed", .label = "Seed", .noun = "the seed",
    .group = SettingGroup::restart, .kind = SettingKind::unsigned64,
    .widget = PanelWidget::input,
    .help = "Random seed of the initial conditions.",
    .access = field<&Settings::seed>},

  // ---------------- live: the next step ----------------
  SettingDef{.key = "steps_per_frame", .cli = "--steps-per-frame", .label = "Steps / frame", .noun = "steps per frame",
    .group = SettingGroup::live, .kind = SettingKind::integer, .integer_min = 1, .integer_max = 1000,
    .widget = PanelWidget::log_slider,
    .help = "Simulation steps per drawn frame: the film runs faster, the frame rate drops.",
    .access = field<&Settings::steps_per_frame>},
  SettingDef{.key = "dt", .cli = "--dt", .label = "dt", .noun = "the time step dt",
    .group = SettingGroup::live, .kind = SettingKind::real, .real_min = 0, .real_max = kNoRealLimit,
    .real_min_exclusive = true, .unset_means = &default_dt_rule,
    .widget = PanelWidget::input,
    .help = "Leapfrog time step, in the scene's time unit (the Scene's tooltip). Too large and close encounters "
            "blow up (the lab pauses on NaN).",
    .access = field<&Settings::dt>},
  SettingDef{.key = "softening", .cli = "--eps,--softening", .label = "softening", .noun = "the softening length",
    .group = SettingGroup::live, .kind = SettingKind::real, .real_min = 0, .real_max = kNoRealLimit,
    .unset_means = &default_softening_rule,
    .widget = PanelWidget::input, .symbol_label = "softening ε",
    .help = "Plummer softening length eps: a body pulls another with m d / (|d|^2 + eps^2)^(3/2), as a Plummer "
            "sphere of radius eps would, so the pull peaks at |d| = eps / sqrt(2) and falls to zero at zero "
            "distance: close passes cannot scatter bodies hard, and a body's pull on itself is zero.",
    .access = field<&Settings::softening>},
  SettingDef{.key = "theta", .cli = "--theta", .label = "theta (opening)", .noun = "the opening angle theta",
    .group = SettingGroup::live, .kind = SettingKind::real, .real_min = 0, .real_max = 2,
    .only_for = Algorithm::barneshut, .varies_in_ab = true,
    .widget = PanelWidget::slider, .symbol_label = "θ (opening angle)",
    .help = "Barnes-Hut opening angle: a cell stands in for its bodies when size / distance < theta. 0 opens "
            "every cell (exact, slow); larger is faster and less accurate. 0.65 with adaptive quadrupole cells (the "
            "default moments) errs about as much as 0.5 with monopoles, the tutorial's choice, for fewer "
            "interactions (docs/barneshut.md, Cell moments). Under the "
            "default relative opening test (Optimizations, Opening test) theta decides only a new state's first "
            "pass; set the test to 'by angle' to study it.",
    .access = field<&Settings::opening_angle>},
  SettingDef{.key = "algorithm", .cli = "--algo,--algorithm", .label = "Algorithm", .noun = "the algorithm",
    .group = SettingGroup::live, .kind = SettingKind::choice, .choices = kAlgorithmNames,
    .widget = PanelWidget::radio,
    .help = "Force algorithm: every pair (O(n^2)) or the Barnes-Hut octree (O(n log n)). The bodies carry over.",
    .access = field<&Settings::algorithm>},
  SettingDef{.key = "backend", .cli = "--backend", .label = "Backend", .noun = "the backend",
    .group = SettingGroup::live, .kind = SettingKind::choice, .choices = kBackendNames,
    .widget = PanelWidget::combo,
    .help = "Where to run: auto takes the GPU when there is one, else the CPU. The bodies carry over.",
    .access = field<&Settings::backend>},

  // ---------------- view: the picture ----------------
  SettingDef{.key = "color_mode", .cli = "--color", .label = "Colour", .noun = "the colour mode",
    .group = SettingGroup::view, .kind = SettingKind::choice, .choices = kColorModeNames,
    .widget = PanelWidget::combo,
    .help = "What a body's colour shows: speed, acceleration, mass, body index (memory order), the warp that "
            "computes it, the octree depth of its leaf, the galaxy it was born in (two palettes, shaded by speed), "
            "or the log of the projected density (bodies per pixel) through a perceptual colour map.",
    .access = field<&ViewSettings::color_mode>},
  SettingDef{.key = "point_size", .cli = "--point-size", .label = "Point size", .noun = "the point size",
    .group = SettingGroup::view, .kind = SettingKind::real, .real_min = 0.1, .real_max = 10,
    .widget = PanelWidget::log_slider,
    .help = "Sprite size multiplier (sprites also grow with mass).",
    .access = field<&ViewSettings::point_size>},
  SettingDef{.key = "exposure", .cli = "--exposure", .label = "Exposure", .noun = "the exposure",
    .group = SettingGroup::view, .kind = SettingKind::real, .real_min = 0.01, .real_max = 100,
    .widget = PanelWidget::log_slider,
    .help = "Bodies add light into a float framebuffer; exposure scales it before the tone curve (an asinh "
            "stretch between a lone star and the white point). With auto exposure it brightens (> 1) or darkens "
            "(< 1) the adapted picture.",
    .access = field<&ViewSettings::exposure>},
  SettingDef{.key = "renderer", .cli = "--renderer", .label = "Renderer", .noun = "the renderer",
    .group = SettingGroup::view, .kind = SettingKind::choice, .choices = kRenderPathNames,
    .widget = PanelWidget::combo,
    .help = "How bodies are drawn into the float framebuffer. sprites: GL point sprites (the reference look). "
            "splat: a compute kernel adds the same Gaussians with atomics (CUDA on the GPU path, the host "
            "otherwise): the same picture, several times faster at millions of bodies. auto: the CUDA splat "
            "where the bodies' vertices are on the GPU, the sprites where they are on the host.",
    .access = field<&ViewSettings::render_path>},
  SettingDef{.key = "octree_depth", .cli = "--octree-depth", .label = "Octree depth", .noun = "the octree overlay depth",
    .group = SettingGroup::view, .kind = SettingKind::integer, .integer_min = 0, .integer_max = 32,
    .zero_means = "off",
    .widget = PanelWidget::slider,
    .help = "Draw the Barnes-Hut cells down to this depth (1: the root), coloured by depth.",
    .access = field<&ViewSettings::octree_depth>},
  SettingDef{.key = "show_bounding_box", .cli = "--bbox", .label = "Bounding box", .noun = "the bounding box",
    .group = SettingGroup::view, .kind = SettingKind::flag,
    .widget = PanelWidget::checkbox,
    .help = "Draw the bodies' bounding box.",
    .access = field<&ViewSettings::show_bounding_box>},
  SettingDef{.key = "show_axes", .cli = "--axes", .label = "Axes", .noun = "the axes",
    .group = SettingGroup::view, .kind = SettingKind::flag,
    .widget = PanelWidget::checkbox,
    .help = "Draw the coordinate axes.",
    .access = field<&ViewSettings::show_axes>},
  SettingDef{.key = "vsync", .cli = "--no-vsync", .label = "VSync", .noun = "vsync",
    .group = SettingGroup::view, .kind = SettingKind::flag,
    .window_only = true,
    .widget = PanelWidget::checkbox,
    .help = "Wait for the display's refresh (V toggles).",
    .access = field<&ViewSettings::vsync>},
  SettingDef{.key = "auto_exposure", .cli = "--no-auto-exposure", .label = "Auto exposure", .noun = "auto exposure",
    .group = SettingGroup::view, .kind = SettingKind::flag,
    .widget = PanelWidget::checkbox,
    .help = "Set the white point from the 99.5th percentile of the frame's light (measured on the GPU from a "
            "quarter-size copy), adapting over about a third of a second: dense cores keep their gradation at "
            "any N. Off: a fixed white point of 2,000 lone stars.",
    .access = field<&ViewSettings::auto_exposure>},
  SettingDef{.key = "follow", .cli = "--no-follow", .label = "Follow bound bodies", .noun = "camera following",
    .group = SettingGroup::view, .kind = SettingKind::flag,
    .widget = PanelWidget::checkbox,
    .help = "The camera moves with the centre of mass of the bound bodies (negative energy relative to that "
            "centre, estimated on a sample of 4,096 bodies), so a recoiling remnant stays in view while escapers "
            "fly off. Panning and orbiting still work on top (C toggles).",
    .access = field<&ViewSettings::follow_bound>},
  SettingDef{.key = "show_dark_matter", .cli = "--dark-matter", .label = "Dark matter", .noun = "the dark-matter halos",
    .group = SettingGroup::view, .kind = SettingKind::flag,
    .widget = PanelWidget::checkbox,
    .help = "Also draw the galaxies' dark halos: a quarter of the bodies, three quarters of the mass, each body nine "
            "times a star's mass (so drawn brighter). They are simulated either way; off, the picture shows the "
            "stars, as a telescope would.",
    .access = field<&ViewSettings::show_dark_matter>},
  SettingDef{.key = "ui_scale", .cli = "--ui-scale", .label = "UI scale", .noun = "the UI scale",
    .group = SettingGroup::view, .kind = SettingKind::real, .real_min = 0.75, .real_max = 2.5,
    .window_only = true,
    .widget = PanelWidget::slider,
    .help = "Size of the panel's type and widgets: 1.5 to 2 reads from the back of a lecture room.",
    .access = field<&ViewSettings::ui_scale>},
  SettingDef{.key = "panel_theme", .cli = "--theme", .label = "Panel theme", .noun = "the panel theme",
    .group = SettingGroup::view, .kind = SettingKind::choice, .choices = kPanelThemeNames,
    .window_only = true,
    .widget = PanelWidget::combo,
    .help = "dark: the lab's usual panel; high-contrast: white on black with bright accents, for projectors.",
    .access = field<&ViewSettings::panel_theme>},
  SettingDef{.key = "presenter", .cli = "--presenter", .label = "Presenter layout", .noun = "the presenter layout",
    .group = SettingGroup::view, .kind = SettingKind::flag,
    .window_only = true,
    .widget = PanelWidget::checkbox,
    .help = "A compact panel (simulation and view only) and a large caption over the picture: a title and a live "
            "figure, readable from the back of a room (F9 toggles).",
    .access = field<&ViewSettings::presenter>},
};
// clang-format on

inline constexpr std::size_t kSettingCount = kSettings.size();

// Run-time lookup by key (JSON, tests): nullptr when there is no such setting.
inline const SettingDef* find_setting(std::string_view key) {
  for (const auto& s : kSettings)
    if (s.key == key) return &s;
  return nullptr;
}

// A setting named in code: checked at compile time, so a typo does not build.
struct SettingId {
  std::size_t index;
  consteval SettingId(const char* key) : index(lookup(key)) {}  // NOLINT(google-explicit-constructor)
  static consteval std::size_t lookup(std::string_view key) {
    for (std::size_t i = 0; i < kSettings.size(); ++i)
      if (kSettings[i].key == key) return i;
    throw "unknown setting key";  // not a constant expression: a compile error names the call site
  }
  const SettingDef& def() const { return kSettings[index]; }
};

// Where the key sits in a settings file: "theta", "view.exposure".
std::string json_path(const SettingDef& setting);
// The first long option name, as messages name it: "--bodies", "--softening".
std::string cli_name(const SettingDef& setting);
// The choice's name for an enum value, "" when the value has none.
std::string_view choice_name(const SettingDef& setting, int value);
// The names of a choice setting's values, joined: "auto, gpu, cpu".
std::string choice_names(const SettingDef& setting, std::string_view separator = ", ");

// The value as a user writes it: "0.5", "1000", "speed", "on", "auto".
std::string format_setting(const SettingDef& setting, const SettingValue& value);
// The valid values in words, to follow the setting's name: "must lie in [1, 1000]", "must be at least 1",
// "must be a positive number", "must be one of: auto, gpu, cpu".
std::string setting_requirement(const SettingDef& setting);
// "" when `value` is allowed; else what is wrong, to follow the setting's name:
// "must lie in [0, 2] (got 3)". A value of the wrong alternative, or Unset for a setting that must be
// set, is refused too.
std::string check_setting(const SettingDef& setting, const SettingValue& value);

// A/B (sim/comparison.hpp): B is A's settings with changes, each a kernel toggle or a row that
// varies_in_ab; everything else B shares with A (the simulation resolves dt and softening as A's).
// The changes from `a` to `b` as toggle_changes writes them, the rows after the toggles of a's algorithm,
// only those that apply to it ("bh_sort=off, theta=0.3"); "" when B computes what A does.
std::string ab_changes(const Settings& a, const Settings& b);
// Whether `a` and `b` agree in every toggle and every row that varies_in_ab.
bool same_ab_settings(const Settings& a, const Settings& b);
// `to` takes `from`'s toggles and rows that vary_in_ab (a swap of A and B, B made current).
void copy_ab_settings(Settings& to, const Settings& from);

}  // namespace nbl
