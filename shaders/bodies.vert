// Bodies as point sprites. Reads the vertex buffer the simulation wrote (sim/render_vertices.hpp):
// attribute 0 = (x, y, z, mass), attribute 1 = colour key in [0, 1] for the current colour mode.
#version 450 core

layout(location = 0) in vec4 a_position_mass;
layout(location = 1) in float a_color_key;

uniform mat4 u_view_projection;
uniform float u_point_px;      // sprite diameter of a body of mean mass at the camera target's depth
uniform float u_target_depth;  // clip-space w of the camera target
uniform float u_mean_mass;
uniform float u_intensity;     // light per body, scaled with n so the picture's brightness is stable
layout(binding = 0) uniform sampler1D u_color_map;

out vec3 v_light;

void main() {
  vec4 clip = u_view_projection * vec4(a_position_mass.xyz, 1.0);
  gl_Position = clip;
  // Heavier bodies are bigger (radius ~ mass^1/3); nearer ones a little bigger (softer than true
  // perspective, so zooming in keeps stars star-like).
  float mass_scale = clamp(pow(max(a_position_mass.w, 0.0) / u_mean_mass, 1.0 / 3.0), 0.7, 4.0);
  float depth_scale = clamp(sqrt(u_target_depth / max(clip.w, 1e-6)), 0.3, 5.0);
  float size = u_point_px * mass_scale * depth_scale;
  // Sprites below 2 px flicker as they cross pixel centres: draw them at 2 px and dim them by the
  // area they gained, so a body's total light does not depend on its size.
  float drawn = max(size, 2.0);
  gl_PointSize = drawn;
  float light = u_intensity * mass_scale * (size * size) / (drawn * drawn);
  v_light = texture(u_color_map, a_color_key).rgb * light;
  if (clip.w <= 0.0 || any(isnan(a_position_mass))) gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // cull
}
