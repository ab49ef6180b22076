// One direction of a separable Gaussian (9 taps folded into 5 bilinear fetches), on light and density
// alike, one thread per texel of the quarter-size copy.
#version 450 core

layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D u_source;
layout(binding = 0, rgba16f) uniform writeonly image2D u_target;  // the source's size
uniform vec2 u_step;  // one texel along the blur direction

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(u_target);
  if (any(greaterThanEqual(p, size))) return;
  vec2 uv = (vec2(p) + 0.5) / vec2(size);
  const float offsets[3] = float[](0.0, 1.3846153846, 3.2307692308);
  const float weights[3] = float[](0.2270270270, 0.3162162162, 0.0702702703);
  vec4 sum = textureLod(u_source, uv, 0.0) * weights[0];
  for (int i = 1; i < 3; ++i) {
    sum += textureLod(u_source, uv + u_step * offsets[i], 0.0) * weights[i];
    sum += textureLod(u_source, uv - u_step * offsets[i], 0.0) * weights[i];
  }
  imageStore(u_target, p, sum);
}
