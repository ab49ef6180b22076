// A 4x4 box filter in four bilinear taps: the float framebuffer at a quarter of its size, the start
// of the glow (bloom) chain.
#version 450 core

in vec2 v_uv;
layout(binding = 0) uniform sampler2D u_source;
uniform vec2 u_source_texel;  // 1 / source size

out vec4 frag_color;

void main() {
  vec2 d = u_source_texel;
  vec3 sum = texture(u_source, v_uv + vec2(-d.x, -d.y)).rgb + texture(u_source, v_uv + vec2(d.x, -d.y)).rgb +
             texture(u_source, v_uv + vec2(-d.x, d.y)).rgb + texture(u_source, v_uv + vec2(d.x, d.y)).rgb;
  frag_color = vec4(sum * 0.25, 1.0);
}
