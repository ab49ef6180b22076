// From the float framebuffer to the screen: add the glow, tone-map with exposure (1 - exp(-x): dense
// cores approach white instead of clipping), composite over a dark background, encode gamma.
#version 450 core

in vec2 v_uv;
layout(binding = 0) uniform sampler2D u_hdr;
layout(binding = 1) uniform sampler2D u_glow;
uniform float u_exposure;
uniform float u_glow_strength;

out vec4 frag_color;

vec3 background(vec2 uv) {
  // Linear light: after gamma these are a near-black blue, lighter towards the bottom.
  vec3 top = vec3(0.0006, 0.0008, 0.0020);
  vec3 bottom = vec3(0.0022, 0.0020, 0.0050);
  float vignette = 1.0 - 0.35 * dot(uv - 0.5, uv - 0.5);
  return mix(bottom, top, uv.y) * vignette;
}

void main() {
  vec3 light = texture(u_hdr, v_uv).rgb + u_glow_strength * texture(u_glow, v_uv).rgb;
  vec3 mapped = 1.0 - exp(-light * u_exposure);
  vec3 color = 1.0 - (1.0 - background(v_uv)) * (1.0 - mapped);  // screen blend over the background
  color = pow(color, vec3(1.0 / 2.2));
  frag_color = vec4(color, 1.0);
}
