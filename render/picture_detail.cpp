#include "render/picture_detail.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace nbl {

namespace {

constexpr int kScaleRadii[3] = {1, 3, 7};  // boxes of 3, 7 and 15 pixels
constexpr int kContentRadius = 15;         // the 31x31 mean that decides what shows the scene

// Summed-area table of one channel, (w + 1) x (h + 1), so any box mean costs four reads.
class BoxMeans {
 public:
  BoxMeans(const std::vector<float>& values, int width, int height)
      : width_(width), height_(height), sums_(static_cast<std::size_t>(width + 1) * (height + 1), 0.0) {
    for (int y = 0; y < height; ++y) {
      double row = 0;
      for (int x = 0; x < width; ++x) {
        row += values[static_cast<std::size_t>(y) * width + x];
        at(x + 1, y + 1) = at(x + 1, y) + row;
      }
    }
  }
  // Mean over the box of radius r around (x, y), clipped to the image.
  double mean(int x, int y, int r) const {
    const int x0 = std::max(0, x - r), x1 = std::min(width_, x + r + 1);
    const int y0 = std::max(0, y - r), y1 = std::min(height_, y + r + 1);
    const double sum = get(x1, y1) - get(x0, y1) - get(x1, y0) + get(x0, y0);
    return sum / static_cast<double>((x1 - x0) * (y1 - y0));
  }

 private:
  double& at(int x, int y) { return sums_[static_cast<std::size_t>(y) * (width_ + 1) + x]; }
  double get(int x, int y) const { return sums_[static_cast<std::size_t>(y) * (width_ + 1) + x]; }
  int width_, height_;
  std::vector<double> sums_;
};

}  // namespace

PictureDetail picture_detail(const Image& image) {
  PictureDetail d;
  const int w = image.width, h = image.height;
  if (w <= 0 || h <= 0) return d;
  const std::size_t pixels = static_cast<std::size_t>(w) * h;
  // Luma of the encoded (gamma) values: differences of it are roughly what the eye sees as contrast.
  std::vector<float> luma(pixels);
  for (std::size_t i = 0; i < pixels; ++i) {
    const std::uint8_t* p = &image.rgba[4 * i];
    luma[i] = static_cast<float>((0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255.0);
  }
  std::vector<float> sorted = luma;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(pixels / 2), sorted.end());
  d.background = sorted[pixels / 2];

  const BoxMeans means(luma, w, h);
  double sum[3] = {0, 0, 0};
  std::size_t content = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (means.mean(x, y, kContentRadius) < d.background + kContentMargin) continue;
      ++content;
      const double v = luma[static_cast<std::size_t>(y) * w + x];
      for (int s = 0; s < 3; ++s) {
        const double diff = v - means.mean(x, y, kScaleRadii[s]);
        sum[s] += diff * diff;
      }
    }
  }
  d.content_share = static_cast<double>(content) / static_cast<double>(pixels);
  if (content == 0) return d;
  double all = 0;
  for (int s = 0; s < 3; ++s) {
    d.contrast_by_scale[s] = std::sqrt(sum[s] / static_cast<double>(content));
    all += sum[s];
  }
  d.local_contrast = std::sqrt(all / (3.0 * static_cast<double>(content)));
  return d;
}

bool passes(const PictureDetail& d) {
  return d.local_contrast >= kMinLocalContrast && d.contrast_by_scale[2] >= kMinStructureContrast &&
         d.content_share >= kMinContentShare;
}

std::string describe(const PictureDetail& d) {
  char text[320];
  std::snprintf(text, sizeof text,
                "local contrast %.4f (needs >= %.3f; boxes 3/7/15: %.4f %.4f %.4f), structure (box 15) %.4f (needs >= "
                "%.3f), content %.1f%% of the frame (needs >= %.0f%%): %s",
                d.local_contrast, kMinLocalContrast, d.contrast_by_scale[0], d.contrast_by_scale[1],
                d.contrast_by_scale[2], d.contrast_by_scale[2], kMinStructureContrast, 100 * d.content_share,
                100 * kMinContentShare, passes(d) ? "PASS" : "FAIL");
  return text;
}

}  // namespace nbl
