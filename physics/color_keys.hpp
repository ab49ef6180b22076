// The colour key of a body for each colour mode, defined once for the CPU backends and the GPU kernels
// (NVRTC includes this too), so a scene looks the same whichever backend draws it. Keys lie in [0, 1];
// the renderer maps them through a colour map. Magnitudes go through x / (x + scale), with the scales
// from sim/render_vertices.hpp color_scales(): the typical body lands mid-range and none clips.
#pragma once
#include "physics/hd.hpp"

namespace nbl {

NBL_HD inline float clamp_key(float k) { return k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k); }

NBL_HD inline float magnitude_key(float magnitude, float scale) {
  return scale > 0.0f ? clamp_key(magnitude / (magnitude + scale)) : 0.0f;
}

NBL_HD inline float mass_key(float mass, float max_mass) { return max_mass > 0.0f ? clamp_key(mass / max_mass) : 0.0f; }

// Position in memory (or in tree order): watch sorting reorder it.
NBL_HD inline float order_key(int order, int n) { return n > 1 ? clamp_key(float(order) / float(n - 1)) : 0.0f; }

// The warp (32 consecutive bodies) that computes a body; golden-ratio hashing makes neighbouring warps
// land far apart on the colour map.
NBL_HD inline float warp_key(int warp) {
  const float h = float(warp) * 0.6180339887f;
  return h - float(int(h));
}

NBL_HD inline float depth_key(int depth, int max_depth) {
  return max_depth > 0 ? clamp_key(float(depth) / float(max_depth)) : 0.0f;
}

}  // namespace nbl
