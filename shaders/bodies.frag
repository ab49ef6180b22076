// One body's Gaussian, added into the float framebuffer: rgb = light, alpha = bodies (each body adds
// 1 in total), so the framebuffer holds surface brightness and projected density at once.
#version 450 core

in vec3 v_light;
in float v_weight;
in float v_radius_px;
in float v_inv_two_sigma2;
out vec4 frag_color;

void main() {
  vec2 offset_px = (gl_PointCoord * 2.0 - 1.0) * v_radius_px;
  float r2 = dot(offset_px, offset_px);
  if (r2 > v_radius_px * v_radius_px) discard;
  float g = exp(-r2 * v_inv_two_sigma2);
  frag_color = vec4(v_light * g, v_weight * g);
}
