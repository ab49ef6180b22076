// A 4x4 box filter in four bilinear taps, one thread per texel of the float framebuffer's quarter-size
// copy. Its rgb starts the glow (bloom) chain and feeds the exposure histogram; its alpha, the bodies per
// pixel, is the density the next frame sizes its sprites by.
#version 450 core

layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D u_source;
layout(binding = 0, rgba16f) uniform writeonly image2D u_quarter;
uniform vec2 u_source_texel;  // 1 / source size

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(u_quarter);
  if (any(greaterThanEqual(p, size))) return;
  vec2 uv = (vec2(p) + 0.5) / vec2(size);
  vec2 d = u_source_texel;
  vec4 sum = textureLod(u_source, uv + vec2(-d.x, -d.y), 0.0) + textureLod(u_source, uv + vec2(d.x, -d.y), 0.0) +
             textureLod(u_source, uv + vec2(-d.x, d.y), 0.0) + textureLod(u_source, uv + vec2(d.x, d.y), 0.0);
  imageStore(u_quarter, p, sum * 0.25);
}
