// The arithmetic of auto exposure, for the host: the same binning, percentile, adaptation and tone
// curve knee that shaders/histogram.comp and shaders/exposure.comp compute on the GPU. The shaders are
// the ones that run; this copy lets tests state what they must produce (tests/render: the CPU cases
// here, and an EGL case that runs the shaders on a known texture and compares with these).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>

namespace nbl::exposure {

inline constexpr int kBins = 256;
inline constexpr float kBinsPerStop = 8;
inline constexpr float kLowestStop = -8;  // bin 0 starts 8 stops below a lone star's peak

using Histogram = std::array<std::uint32_t, kBins>;

// The bin of a value (light or bodies per pixel) relative to a lone star's peak; nullopt below
// kLowestStop: the sky, left out of the percentile.
inline std::optional<int> bin_of(float value, float reference) {
  const float stops = std::log2(std::fmax(value, 1e-30f) / reference);
  if (!(stops > kLowestStop)) return std::nullopt;
  const int bin = static_cast<int>((stops - kLowestStop) * kBinsPerStop);
  return bin < 0 ? 0 : (bin > kBins - 1 ? kBins - 1 : bin);
}

// The value at a bin's upper edge.
inline float bin_upper_value(int bin, float reference) {
  return reference * std::exp2((static_cast<float>(bin) + 1.0f) / kBinsPerStop + kLowestStop);
}

// The first bin at which the running count reaches ceil(total * percentile); nullopt for an empty
// histogram.
inline std::optional<int> percentile_bin(const Histogram& bins, float percentile) {
  std::uint64_t total = 0;
  for (std::uint32_t b : bins) total += b;
  if (total == 0) return std::nullopt;
  const auto want = static_cast<std::uint64_t>(std::ceil(static_cast<double>(total) * percentile));
  std::uint64_t seen = 0;
  for (int i = 0; i < kBins; ++i) {
    seen += bins[static_cast<std::size_t>(i)];
    if (seen >= want) return i;
  }
  return kBins - 1;
}

// One frame of adaptation in log space: `adapt` of the way from `white` to `target` (1: at once); a
// jump of more than `snap_stops` is taken at once, and so is the first frame (no white yet).
inline float adapt_white(std::optional<float> white, float target, float adapt, float snap_stops) {
  if (!white) return target;
  const float from = std::log2(std::fmax(*white, 1e-30f)), to = std::log2(target);
  if (std::fabs(to - from) > snap_stops) return target;
  return std::exp2(from + (to - from) * adapt);
}

// The display value of a lone star (x = 1) under y = asinh(x / k) / asinh(range / k).
inline float star_display(float knee, float range) { return std::asinh(1.0f / knee) / std::asinh(range / knee); }

// The knee k that puts a lone star at `display` when white is `range` lone stars (bisection in log k,
// as the shader does). The curve is linear for large k (a star at 1 / range) and logarithmic for small.
inline float knee_for(float display, float range) {
  range = std::fmax(range, 2.0f);
  float lo = -20, hi = 20;
  for (int i = 0; i < 48; ++i) {
    const float mid = 0.5f * (lo + hi);
    if (star_display(std::exp2(mid), range) > display) lo = mid;
    else hi = mid;
  }
  return std::exp2(0.5f * (lo + hi));
}

}  // namespace nbl::exposure
