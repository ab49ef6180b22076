// From the float framebuffer to the picture, one thread per pixel, written straight into the target's
// texture. The tone curve is an asinh stretch (Lupton et al. 2004, PASP 116, 133: the curve astronomers
// use for galaxy images), straight to display values: linear for faint light, logarithmic for bright, so
// a lone star and a core ten thousand times brighter are both on screen with their gradation. Its
// anchors (shaders/exposure.comp): a lone star's peak lands at a fixed display value, whatever N, and
// the white point, a percentile of this frame's light measured on the GPU (or a fixed level), at 1. The
// stretch sets a pixel's intensity and keeps its colour; light beyond white burns to white, as a bright
// core does in a photograph. In density mode the same curve maps bodies per pixel through a perceptual
// colour map. Then a screen blend over a dark background, and dithering: interleaved gradient noise
// (Jimenez, "Next Generation Post Processing in Call of Duty: Advanced Warfare", SIGGRAPH 2014) of
// +-0.5 of an 8-bit level added before the store rounds to 8 bits, so the sky's smooth gradient does not
// fall into bands of equal levels.
#version 450 core

layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D u_hdr;   // rgb light, a bodies per pixel; the viewport's size
layout(binding = 1) uniform sampler2D u_glow;  // a quarter of that
layout(binding = 2) uniform sampler1DArray u_density_map;  // layer 0: the density mode's map
layout(std140, binding = 2) uniform Exposure {  // shaders/exposure.comp's buffer, in device memory
  float white;
  float target_white;
  uint frames;
  uint covered;
  float knee;  // in lone-star peaks
};
layout(binding = 0, rgba8) uniform writeonly image2D u_target;
uniform ivec2 u_origin;         // where the picture's first pixel goes in u_target
uniform ivec2 u_size;           // the picture's size (the viewport)
uniform float u_reference;      // a lone star's peak, in the units of the measured quantity
uniform float u_exposure;       // the user's multiplier
uniform float u_glow_strength;
uniform bool u_density_mode;
uniform float u_dither;         // 1: +-0.5 of an 8-bit level; 0: none

const float kGamma = 2.2;

vec3 background(vec2 uv) {
  // Display values: a near-black blue, lighter towards the bottom.
  vec3 top = vec3(0.034, 0.039, 0.059);
  vec3 bottom = vec3(0.062, 0.059, 0.090);
  float vignette = 1.0 - 0.35 * dot(uv - 0.5, uv - 0.5);
  return mix(bottom, top, uv.y) * vignette;
}

float stretch(float value) {
  float range = max(white / u_reference, 2.0);
  return asinh(value * u_exposure / u_reference / knee) / asinh(range / knee);
}

// In [0, 1), evenly spread over any small block of pixels, with no low-frequency pattern.
float interleaved_gradient_noise(vec2 pixel) {
  return fract(52.9829189 * fract(dot(pixel, vec2(0.06711056, 0.00583715))));
}

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(p, u_size))) return;
  vec2 uv = (vec2(p) + 0.5) / vec2(u_size);
  vec4 hdr = texelFetch(u_hdr, p, 0);
  vec4 glow = textureLod(u_glow, uv, 0.0);
  vec3 mapped;
  if (u_density_mode) {
    float y = clamp(stretch(hdr.a + u_glow_strength * glow.a), 0.0, 1.0);
    mapped = pow(textureLod(u_density_map, vec2(y, 0.0), 0.0).rgb, vec3(1.0 / kGamma));
  } else {
    vec3 light = hdr.rgb + u_glow_strength * glow.rgb;
    float intensity = (light.r + light.g + light.b) / 3.0;
    float y = stretch(intensity);
    // The colour at this intensity, gamma-encoded (its mean stays near 1).
    vec3 hue = pow(light / max(intensity, 1e-30), vec3(1.0 / kGamma));
    mapped = y * hue;
    float peak = max(mapped.r, max(mapped.g, mapped.b));
    if (peak > 1.0) mapped /= peak;  // keep the hue rather than clip a channel
    mapped = mix(mapped, vec3(max(mapped.r, max(mapped.g, mapped.b))), 0.7 * smoothstep(0.75, 1.1, y));
  }
  vec3 color = 1.0 - (1.0 - background(uv)) * (1.0 - clamp(mapped, 0.0, 1.0));  // screen blend
  color += u_dither * (interleaved_gradient_noise(vec2(p)) - 0.5) / 255.0;
  imageStore(u_target, u_origin + p, vec4(clamp(color, 0.0, 1.0), 1.0));
}
