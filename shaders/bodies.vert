// Bodies as point sprites. Reads the vertex buffer the simulation wrote (sim/render_vertices.hpp):
// attribute 0 = (x, y, z, mass), attribute 1 = colour key in [0, 1] for the current colour mode.
//
// Each body is a small Gaussian of fixed total light, so the float framebuffer holds surface
// brightness (rgb) and bodies per pixel (alpha) whatever the sprites' sizes. The size follows the
// on-screen density that the previous frame measured (u_density, a quarter-size copy of its alpha):
// where bodies are sparse a sprite is a star of u_star_sigma_px; where they crowd it shrinks towards a
// pixel (u_min_sigma_px), so that about u_overlap bodies share a sprite's core instead of thousands
// smearing into fog. docs/window.md ("The picture") gives the numbers and their reasons.
#version 450 core

layout(location = 0) in vec4 a_position_mass;
layout(location = 1) in float a_color_key;

uniform mat4 u_view_projection;
uniform float u_star_sigma_px;   // Gaussian sigma of a lone body of mean mass at the camera target's depth
uniform float u_min_sigma_px;    // the smallest sprite: a pixel's worth, still sampled without aliasing
uniform float u_overlap;         // bodies per sigma-disc (pi sigma^2) the sizing aims at
uniform float u_target_depth;    // clip-space w of the camera target
uniform float u_mean_mass;
uniform bool u_density_valid;    // false on the first frame (and after a resize): no previous density yet
uniform int u_group_starts[8];   // origin colouring: the first body index of groups 1..7 (scene order)
uniform int u_group_count;       // 1: one palette for everyone
layout(binding = 0) uniform sampler1DArray u_color_maps;  // one layer per palette
layout(binding = 1) uniform sampler2D u_density;          // previous frame: .a = bodies per pixel

out vec3 v_light;        // light at the sprite's centre (its total light over 2 pi sigma^2)
out float v_weight;      // bodies per pixel at the centre (1 / (2 pi sigma^2) for one body)
out float v_radius_px;   // half the drawn size
out float v_inv_two_sigma2;

void main() {
  vec4 clip = u_view_projection * vec4(a_position_mass.xyz, 1.0);
  gl_Position = clip;
  // Heavier bodies are bigger (radius ~ mass^1/3) and brighter; nearer ones a little bigger (softer
  // than true perspective, so zooming in keeps stars star-like).
  float mass_ratio = max(a_position_mass.w, 0.0) / u_mean_mass;
  float mass_scale = clamp(pow(mass_ratio, 1.0 / 3.0), 0.7, 4.0);
  float depth_scale = clamp(sqrt(u_target_depth / max(clip.w, 1e-6)), 0.3, 5.0);
  float sigma = u_star_sigma_px * mass_scale * depth_scale;
  if (u_density_valid && clip.w > 0.0) {
    vec2 uv = clip.xy / clip.w * 0.5 + 0.5;
    float bodies_per_px = textureLod(u_density, uv, 0.0).a;
    // pi sigma^2 * density = overlap: the sprite's core holds about u_overlap bodies.
    float crowded = sqrt(u_overlap / (3.14159265 * max(bodies_per_px, 1e-6)));
    sigma = min(sigma, max(crowded, u_min_sigma_px));
  }
  sigma = max(sigma, u_min_sigma_px);
  // Drawn out to 3 sigma (98.9% of a Gaussian's light), so the light and the count a body adds do not
  // depend on its size.
  v_radius_px = 3.0 * sigma;
  gl_PointSize = 2.0 * v_radius_px;
  v_inv_two_sigma2 = 1.0 / (2.0 * sigma * sigma);
  float peak = 1.0 / (2.0 * 3.14159265 * sigma * sigma * 0.98889);
  int layer = 0;
  for (int g = 0; g < u_group_count - 1; ++g) layer += gl_VertexID >= u_group_starts[g] ? 1 : 0;
  v_light = texture(u_color_maps, vec2(a_color_key, float(layer))).rgb * (min(mass_ratio, 64.0) * peak);
  v_weight = peak;
  if (clip.w <= 0.0 || any(isnan(a_position_mass))) gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // cull
}
