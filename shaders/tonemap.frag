// From the float framebuffer to the screen. The tone curve is an asinh stretch (Lupton et al. 2004,
// PASP 116, 133: the curve astronomers use for galaxy images), straight to display values: linear for
// faint light, logarithmic for bright, so a lone star and a core ten thousand times brighter are both
// on screen with their gradation. Its anchors (shaders/exposure.comp): a lone star's peak lands at a
// fixed display value, whatever N, and the white point, a percentile of this frame's light measured on
// the GPU (or a fixed level), at 1. The stretch sets a pixel's intensity and keeps its colour; light
// beyond white burns to white, as a bright core does in a photograph. In density mode the same curve
// maps bodies per pixel through a perceptual colour map. Then a screen blend over a dark background.
#version 450 core

in vec2 v_uv;
layout(binding = 0) uniform sampler2D u_hdr;   // rgb light, a bodies per pixel
layout(binding = 1) uniform sampler2D u_glow;
layout(binding = 2) uniform sampler1DArray u_density_map;  // layer 0: the density mode's map
layout(std430, binding = 2) readonly buffer Exposure {
  float white;
  float target_white;
  uint frames;
  uint covered;
  float knee;  // in lone-star peaks
};
uniform float u_reference;      // a lone star's peak, in the units of the measured quantity
uniform float u_exposure;       // the user's multiplier
uniform float u_glow_strength;
uniform bool u_density_mode;

out vec4 frag_color;

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

void main() {
  vec4 hdr = texture(u_hdr, v_uv);
  vec4 glow = texture(u_glow, v_uv);
  vec3 mapped;
  if (u_density_mode) {
    float y = clamp(stretch(hdr.a + u_glow_strength * glow.a), 0.0, 1.0);
    mapped = pow(texture(u_density_map, vec2(y, 0.0)).rgb, vec3(1.0 / kGamma));
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
  vec3 color = 1.0 - (1.0 - background(v_uv)) * (1.0 - clamp(mapped, 0.0, 1.0));  // screen blend
  frag_color = vec4(color, 1.0);
}
