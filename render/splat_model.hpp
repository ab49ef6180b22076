// One body's Gaussian as the splatting renderer adds it into the float framebuffer: where it lands,
// how wide it is, what light it carries and which pixels it touches. The CUDA kernel (render/splat_kernel.cu)
// and the host loop (render/splatter.cpp) both call these, so the two splat paths cannot drift apart.
// They restate shaders/bodies.vert and bodies.frag (GLSL cannot include a header): a change to the
// sprite's look changes both, and the image comparison in tests/render/splat_test.cpp says when the
// two renderers stop drawing the same picture.
#pragma once
#include <math.h>

#include "physics/hd.hpp"

namespace nbl {

inline constexpr int kSplatMaxGroups = 8;  // as bodies.vert's u_group_starts[8]

// Everything a frame's splat needs besides the bodies: the uniforms of bodies.vert, the target's size
// and the colour maps' shape. Plain numbers, copied to the kernel by value.
struct SplatView {
  float view_projection[16];  // column-major, as glm stores it
  int width = 0, height = 0;  // the float framebuffer, pixels; row 0 is the bottom (GL's convention)
  float star_sigma_px = 0.75f, min_sigma_px = 0.45f, overlap = 0.6f;
  float target_depth = 1, mean_mass = 1;
  int density_valid = 0;  // the previous frame's quarter copy holds bodies per pixel
  int density_width = 0, density_height = 0;
  int density_stride = 4;                  // floats per quarter texel, the bodies per pixel last (4: RGBA, 1: alone)
  int group_starts[kSplatMaxGroups] = {};  // origin colouring: the first index of groups 1..7
  int group_count = 1;
  int palette_count = 1;
  int color_texels = 256;  // per palette: linear RGB, evenly spaced over [0, 1]
  int color_linear = 1;    // 0: discrete maps, nearest texel
};

// The body's footprint: its centre in pixels, Gaussian sigma, and the light and bodies per pixel at the
// centre (each multiplied by exp(-r^2 / 2 sigma^2) out to 3 sigma).
struct SplatBody {
  bool visible = false;
  float x = 0, y = 0, sigma = 1;
  float light[3] = {0, 0, 0};
  float peak = 0;
};

namespace splat_detail {

NBL_HD inline float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
NBL_HD inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// textureLod(u_density, uv, 0).a with linear filtering and clamp-to-edge, on `stride` floats per texel
// with the bodies per pixel last (4: RGBA, 1: the density alone).
NBL_HD inline float density_at(const float* texels, int stride, int w, int h, float u, float v) {
  const float tx = u * static_cast<float>(w) - 0.5f, ty = v * static_cast<float>(h) - 0.5f;
  const float fx0 = floorf(tx), fy0 = floorf(ty);
  const float fx = tx - fx0, fy = ty - fy0;
  const int x0 = clampi(static_cast<int>(fx0), 0, w - 1), x1 = clampi(static_cast<int>(fx0) + 1, 0, w - 1);
  const int y0 = clampi(static_cast<int>(fy0), 0, h - 1), y1 = clampi(static_cast<int>(fy0) + 1, 0, h - 1);
  auto a = [&](int x, int y) { return texels[stride * (y * w + x) + stride - 1]; };
  return (a(x0, y0) * (1 - fx) + a(x1, y0) * fx) * (1 - fy) + (a(x0, y1) * (1 - fx) + a(x1, y1) * fx) * fy;
}

// texture(u_color_maps, vec2(key, layer)).rgb: palettes are layer-major rows of `texels` RGB triples.
NBL_HD inline void color_at(const SplatView& v, const float* palettes, int layer, float key, float rgb[3]) {
  const int n = v.color_texels;
  const float* row = palettes + 3 * n * clampi(layer, 0, v.palette_count - 1);
  key = clampf(key != key ? 0.0f : key, 0.0f, 1.0f);
  if (!v.color_linear) {
    const int i = clampi(static_cast<int>(floorf(key * static_cast<float>(n))), 0, n - 1);
    for (int c = 0; c < 3; ++c) rgb[c] = row[3 * i + c];
    return;
  }
  const float t = key * static_cast<float>(n) - 0.5f;
  const float f0 = floorf(t), f = t - f0;
  const int i0 = clampi(static_cast<int>(f0), 0, n - 1), i1 = clampi(static_cast<int>(f0) + 1, 0, n - 1);
  for (int c = 0; c < 3; ++c) rgb[c] = row[3 * i0 + c] * (1 - f) + row[3 * i1 + c] * f;
}

}  // namespace splat_detail

// bodies.vert for one body: position_mass = (x, y, z, mass), key = its colour key, index = its place in
// the buffer (galaxy of origin), density = the previous frame's quarter copy (RGBA floats) or null.
NBL_HD inline SplatBody splat_body(const SplatView& v, const float* position_mass, float key, int index,
                                   const float* palettes, const float* density) {
  using namespace splat_detail;
  SplatBody b;
  const float* m = v.view_projection;
  const float px = position_mass[0], py = position_mass[1], pz = position_mass[2], mass = position_mass[3];
  const float cx = m[0] * px + m[4] * py + m[8] * pz + m[12];
  const float cy = m[1] * px + m[5] * py + m[9] * pz + m[13];
  const float cz = m[2] * px + m[6] * py + m[10] * pz + m[14];
  const float cw = m[3] * px + m[7] * py + m[11] * pz + m[15];
  // GL clips a point by its vertex: outside the view volume (or behind the eye, or NaN) it is not drawn.
  if (!(cw > 0.0f) || !(fabsf(cx) <= cw) || !(fabsf(cy) <= cw) || !(fabsf(cz) <= cw) || mass != mass) return b;
  const float ndc_x = cx / cw, ndc_y = cy / cw;
  b.x = (ndc_x * 0.5f + 0.5f) * static_cast<float>(v.width);
  b.y = (ndc_y * 0.5f + 0.5f) * static_cast<float>(v.height);

  const float mass_ratio = fmaxf(mass, 0.0f) / v.mean_mass;
  const float mass_scale = clampf(powf(mass_ratio, 1.0f / 3.0f), 0.7f, 4.0f);
  const float depth_scale = clampf(sqrtf(v.target_depth / fmaxf(cw, 1e-6f)), 0.3f, 5.0f);
  float sigma = v.star_sigma_px * mass_scale * depth_scale;
  if (v.density_valid && density) {
    const float bodies_per_px = density_at(density, v.density_stride, v.density_width, v.density_height,
                                           ndc_x * 0.5f + 0.5f, ndc_y * 0.5f + 0.5f);
    const float crowded = sqrtf(v.overlap / (3.14159265f * fmaxf(bodies_per_px, 1e-6f)));
    sigma = fminf(sigma, fmaxf(crowded, v.min_sigma_px));
  }
  b.sigma = fmaxf(sigma, v.min_sigma_px);
  b.peak = 1.0f / (2.0f * 3.14159265f * b.sigma * b.sigma * 0.98889f);
  int layer = 0;
  for (int g = 0; g < v.group_count - 1 && g < kSplatMaxGroups; ++g) layer += index >= v.group_starts[g] ? 1 : 0;
  float rgb[3];
  color_at(v, palettes, layer, key, rgb);
  const float scale = fminf(mass_ratio, 64.0f) * b.peak;
  for (int c = 0; c < 3; ++c) b.light[c] = rgb[c] * scale;
  b.visible = true;
  return b;
}

// shaders/downsample.comp's alpha for quarter texel (x, y): four bilinear taps of the full-size buffer
// (RGBA floats), one source pixel either side of the texel's centre: the mean of its 4x4 pixels.
NBL_HD inline float quarter_density(const float* full_rgba, int width, int height, int qw, int qh, int x, int y) {
  using namespace splat_detail;
  const float u = (static_cast<float>(x) + 0.5f) / static_cast<float>(qw);
  const float v = (static_cast<float>(y) + 0.5f) / static_cast<float>(qh);
  const float du = 1.0f / static_cast<float>(width), dv = 1.0f / static_cast<float>(height);
  return 0.25f * (density_at(full_rgba, 4, width, height, u - du, v - dv) +
                  density_at(full_rgba, 4, width, height, u + du, v - dv) +
                  density_at(full_rgba, 4, width, height, u - du, v + dv) +
                  density_at(full_rgba, 4, width, height, u + du, v + dv));
}

// bodies.frag over the sprite's square: every pixel whose centre lies within 3 sigma of the body gets
// add(x, y, weight) with weight = exp(-r^2 / 2 sigma^2); the caller adds (light, peak) times weight.
template <typename Add>
NBL_HD inline void splat_pixels(const SplatView& v, const SplatBody& b, Add&& add) {
  using namespace splat_detail;
  const float radius = 3.0f * b.sigma, radius2 = radius * radius;
  const float inv_two_sigma2 = 1.0f / (2.0f * b.sigma * b.sigma);
  const int x0 = clampi(static_cast<int>(ceilf(b.x - radius - 0.5f)), 0, v.width - 1);
  const int x1 = clampi(static_cast<int>(floorf(b.x + radius - 0.5f)), 0, v.width - 1);
  const int y0 = clampi(static_cast<int>(ceilf(b.y - radius - 0.5f)), 0, v.height - 1);
  const int y1 = clampi(static_cast<int>(floorf(b.y + radius - 0.5f)), 0, v.height - 1);
  for (int y = y0; y <= y1; ++y) {
    const float dy = static_cast<float>(y) + 0.5f - b.y;
    for (int x = x0; x <= x1; ++x) {
      const float dx = static_cast<float>(x) + 0.5f - b.x;
      const float r2 = dx * dx + dy * dy;
      if (r2 > radius2) continue;
      add(x, y, expf(-r2 * inv_two_sigma2));
    }
  }
}

}  // namespace nbl
