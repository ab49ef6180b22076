// Reading back the PNGs the program wrote (stb_image from libstb), and simple pixel statistics.
#pragma once
#include <stb/stb_image.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "render/image.hpp"

namespace nbl::testing {

inline Image load_png(const std::filesystem::path& file) {
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(file.c_str(), &w, &h, &channels, 4);
  if (!data) throw std::runtime_error("cannot read " + file.string());
  Image image;
  image.width = w;
  image.height = h;
  image.rgba.assign(data, data + static_cast<std::size_t>(w) * h * 4);
  stbi_image_free(data);
  return image;
}

inline double luma(const std::uint8_t* p) { return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]; }

// Fraction of the pixels in [x0, x1) x [y0, y1) (top-left origin) that satisfy `test`.
template <typename Test>
double fraction(const Image& image, int x0, int y0, int x1, int y1, Test test) {
  long hits = 0, all = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x, ++all) hits += test(image.pixel(x, y)) ? 1 : 0;
  return all ? static_cast<double>(hits) / static_cast<double>(all) : 0.0;
}

}  // namespace nbl::testing
