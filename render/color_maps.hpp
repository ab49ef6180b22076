// Colour maps: how a body's colour key (in [0, 1], written by the backend for the current ColorMode)
// becomes a colour. The maps and which one each mode uses live in assets/colormaps.json, so changing
// the look is an edit to data, not code.
#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/settings.hpp"

namespace nbl {

struct ColorMap {
  std::string name;
  std::vector<std::array<float, 3>> texels;  // linear RGB, evenly spaced over [0, 1]
  bool discrete = false;                     // categorical keys (warp id): steps, no blending
};

inline constexpr int kColorMapTexels = 256;
inline constexpr std::size_t kColorModeCount = kColorModeNames.size();

// Each mode has one colour map, or a palette per group of bodies (galaxy of origin: one per galaxy;
// assets/colormaps.json names a list of maps for it).
inline constexpr std::size_t kMaxPalettes = 8;

struct ColorMapSet {
  std::array<std::vector<ColorMap>, kColorModeCount> by_mode;  // indexed by ColorMode; 1 to kMaxPalettes maps
  const ColorMap& operator[](ColorMode mode) const { return by_mode[static_cast<std::size_t>(mode)].front(); }
  const std::vector<ColorMap>& palettes(ColorMode mode) const { return by_mode[static_cast<std::size_t>(mode)]; }
};

// Parses the JSON text (origin names it in errors). Throws Error naming the file and the problem.
ColorMapSet parse_color_maps(const std::string& json_text, const std::string& origin);
// Reads assets/colormaps.json (find_resource).
ColorMapSet load_color_maps();

}  // namespace nbl
