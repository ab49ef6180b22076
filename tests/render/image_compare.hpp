// How far two renders of the same frame differ, for the tests that hold two renderers to one picture
// (sprites against splat, on Mesa here and through CUDA on a GPU).
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "render/image.hpp"

namespace nbl::testing {

struct ImageDifference {
  double mean_abs = 0;      // over every channel of every pixel, in 8-bit levels
  double p999_abs = 0;      // the 99.9th percentile of the per-pixel largest channel difference
  double mean_level_a = 0;  // mean level of each image (so "both black" cannot pass as "the same")
  double mean_level_b = 0;
  double lit_share_a = 0;  // pixels of `a` more than 16 levels above its median (the sky) in any channel
};

inline ImageDifference compare_images(const Image& a, const Image& b) {
  ImageDifference d;
  if (a.width != b.width || a.height != b.height || a.rgba.empty()) {
    d.mean_abs = d.p999_abs = 255;
    return d;
  }
  std::vector<int> largest;
  const std::size_t pixels = a.rgba.size() / 4;
  std::array<int, 3> sky{};
  for (int c = 0; c < 3; ++c) {
    std::vector<int> channel(pixels);
    for (std::size_t p = 0; p < pixels; ++p) channel[p] = a.rgba[4 * p + c];
    std::nth_element(channel.begin(), channel.begin() + pixels / 2, channel.end());
    sky[c] = channel[pixels / 2];
  }
  largest.reserve(pixels);
  std::size_t lit = 0;
  for (std::size_t p = 0; p < pixels; ++p) {
    int worst = 0;
    bool is_lit = false;
    for (int c = 0; c < 3; ++c) {
      const int va = a.rgba[4 * p + c], vb = b.rgba[4 * p + c];
      const int diff = std::abs(va - vb);
      d.mean_abs += diff;
      d.mean_level_a += va;
      d.mean_level_b += vb;
      worst = std::max(worst, diff);
      is_lit = is_lit || va > sky[c] + 16;
    }
    lit += is_lit;
    largest.push_back(worst);
  }
  d.mean_abs /= 3.0 * static_cast<double>(pixels);
  d.mean_level_a /= 3.0 * static_cast<double>(pixels);
  d.mean_level_b /= 3.0 * static_cast<double>(pixels);
  d.lit_share_a = static_cast<double>(lit) / static_cast<double>(pixels);
  std::sort(largest.begin(), largest.end());
  d.p999_abs = largest[std::min(largest.size() - 1, largest.size() * 999 / 1000)];
  return d;
}

}  // namespace nbl::testing
