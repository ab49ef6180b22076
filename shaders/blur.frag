// One direction of a separable Gaussian (9 taps folded into 5 bilinear fetches), on light and density
// alike.
#version 450 core

in vec2 v_uv;
layout(binding = 0) uniform sampler2D u_source;
uniform vec2 u_step;  // one texel along the blur direction

out vec4 frag_color;

void main() {
  const float offsets[3] = float[](0.0, 1.3846153846, 3.2307692308);
  const float weights[3] = float[](0.2270270270, 0.3162162162, 0.0702702703);
  vec4 sum = texture(u_source, v_uv) * weights[0];
  for (int i = 1; i < 3; ++i) {
    sum += texture(u_source, v_uv + u_step * offsets[i]) * weights[i];
    sum += texture(u_source, v_uv - u_step * offsets[i]) * weights[i];
  }
  frag_color = sum;
}
