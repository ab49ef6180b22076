// A 4x4 box filter in four bilinear taps: the float framebuffer at a quarter of its size. Its rgb
// starts the glow (bloom) chain and feeds the exposure histogram; its alpha, the bodies per pixel, is
// the density the next frame sizes its sprites by.
#version 450 core

in vec2 v_uv;
layout(binding = 0) uniform sampler2D u_source;
uniform vec2 u_source_texel;  // 1 / source size

out vec4 frag_color;

void main() {
  vec2 d = u_source_texel;
  vec4 sum = texture(u_source, v_uv + vec2(-d.x, -d.y)) + texture(u_source, v_uv + vec2(d.x, -d.y)) +
             texture(u_source, v_uv + vec2(-d.x, d.y)) + texture(u_source, v_uv + vec2(d.x, d.y));
  frag_color = sum * 0.25;
}
