// Auto exposure, step 1: a histogram of the frame's light in 1/8-stop bins, counted from the quarter-
// size copy (one texel per 4x4 pixels: 130k texels at 1920x1080, so the cost does not grow with N).
// Texels darker than 1/256 of a lone star show no body and are left out: the percentile is of the
// picture, not of the sky. Bins are relative to the lone star's peak (u_reference): bin 0 is 8 stops
// below it, bin 255 is 24 stops above.
#version 450 core

layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D u_source;  // rgb light, a bodies per pixel
layout(std430, binding = 1) buffer Histogram {
  uint bins[256];
};
uniform float u_reference;
uniform bool u_density_mode;  // measure bodies per pixel instead of light

shared uint local_bins[256];

void main() {
  uint t = gl_LocalInvocationIndex;
  local_bins[t] = 0u;
  barrier();
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (all(lessThan(p, textureSize(u_source, 0)))) {
    vec4 v = texelFetch(u_source, p, 0);
    float value = u_density_mode ? v.a : (v.r + v.g + v.b) / 3.0;
    float stops = log2(max(value, 1e-30) / u_reference);
    if (stops > -8.0) atomicAdd(local_bins[clamp(int((stops + 8.0) * 8.0), 0, 255)], 1u);
  }
  barrier();
  if (local_bins[t] != 0u) atomicAdd(bins[t], local_bins[t]);
}
