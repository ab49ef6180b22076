// Auto exposure, step 2 (one workgroup of 256, a thread per bin): the white point is the
// u_percentile-th percentile of the histogram, never less than u_min_white, approached in log space by
// u_adapt of the way per frame (1: at once); a jump of more than u_snap_stops (a new scene, another
// colour mode) is taken at once. Without auto exposure the white point is u_fixed_white. Then the tone
// curve's shape for this white point: the knee k of y = asinh(x / k) / asinh(R / k), x in lone-star
// peaks, R = white / reference, so that a lone star lands at u_star_display and white at 1 (bisection on
// k). Clears the histogram for the next frame. Everything stays on the GPU: the tone map reads this
// buffer (as a uniform block), no frame waits for a readback.
//
// The bins are summed by a prefix sum in shared memory (8 rounds) rather than by one thread walking all
// 256 twice: the same integer counts, so the same percentile bin.
#version 450 core

layout(local_size_x = 256) in;
layout(std430, binding = 1) buffer Histogram {
  uint bins[256];
};
layout(std430, binding = 2) buffer Exposure {
  float white;     // the adapted white point, in light units
  float target;    // this frame's percentile
  uint frames;     // frames measured (0: none yet)
  uint covered;    // texels that showed bodies this frame
  float knee;      // k above, in lone-star peaks
};
uniform bool u_auto;
uniform float u_fixed_white;
uniform float u_reference;
uniform float u_percentile;
uniform float u_min_white;
uniform float u_adapt;
uniform float u_snap_stops;
uniform float u_star_display;

shared uint running[256];  // inclusive prefix sums of the bins
shared int percentile_bin;

float star_display(float k, float range) { return asinh(1.0 / k) / asinh(range / k); }

void main() {
  uint t = gl_LocalInvocationIndex;
  if (u_auto) {
    running[t] = bins[t];
    bins[t] = 0u;  // each thread clears its own bin, after reading it
    if (t == 0u) percentile_bin = 255;
    barrier();
    for (uint step = 1u; step < 256u; step <<= 1) {
      uint add = t >= step ? running[t - step] : 0u;
      barrier();
      running[t] += add;
      barrier();
    }
    uint total = running[255];
    uint want = uint(ceil(float(total) * u_percentile));
    // The first bin whose running count reaches `want`: exactly one thread sees the crossing.
    if (total > 0u && running[t] >= want && (t == 0u || running[t - 1u] < want)) percentile_bin = int(t);
    barrier();
    if (t != 0u) return;
    covered = total;
    if (total > 0u) {
      float stops = (float(percentile_bin) + 1.0) / 8.0 - 8.0;  // the bin's upper edge
      target = max(u_reference * exp2(stops), u_min_white);
      float from = log2(max(white, 1e-30)), to = log2(target);
      if (frames == 0u || abs(to - from) > u_snap_stops) white = target;
      else white = exp2(mix(from, to, u_adapt));
      frames += 1u;
    } else if (frames == 0u) {
      white = u_min_white;
    }
  } else {
    if (t != 0u) return;
    white = u_fixed_white;
    frames = 0u;
  }
  // star_display(k) rises from 1/R (k large: linear) to 1 (k small: logarithmic); bisect in log k.
  float range = max(white / u_reference, 2.0);
  float lo = -20.0, hi = 20.0;
  for (int i = 0; i < 48; ++i) {
    float mid = 0.5 * (lo + hi);
    if (star_display(exp2(mid), range) > u_star_display) lo = mid;
    else hi = mid;
  }
  knee = exp2(0.5 * (lo + hi));
}
