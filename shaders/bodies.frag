// A soft round sprite: a bright Gaussian core and a faint wide halo, added into the float
// framebuffer (dense cores glow; the tone-map pass keeps them from saturating).
#version 450 core

in vec3 v_light;
out vec4 frag_color;

void main() {
  vec2 p = gl_PointCoord * 2.0 - 1.0;
  float r2 = dot(p, p);
  if (r2 > 1.0) discard;
  float core = exp(-r2 * 7.0);
  float halo = 0.12 * exp(-r2 * 2.0) * (1.0 - r2);
  frag_color = vec4(v_light * (core + halo), 1.0);
}
