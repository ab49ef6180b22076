// Pixels read back from a framebuffer, and PNG files (stb_image_write from libstb, linked, not copied).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "render/camera.hpp"
#include "render/gl.hpp"

namespace nbl {

// 8-bit RGBA, top row first (as image files store it).
struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
  const std::uint8_t* pixel(int x, int y) const { return &rgba[(static_cast<std::size_t>(y) * width + x) * 4]; }
};

// Reads `region` of framebuffer `framebuffer` (0: the window's back buffer) into an Image.
Image read_pixels(GLuint framebuffer, const Viewport& region);

std::string encode_png(const Image& image);
// Reads a PNG (any channel count, converted to RGBA). Throws Error naming the file.
Image read_png(const std::filesystem::path& file);
// Writes all or nothing (file_util.hpp). Throws Error naming the file.
void write_png(const std::filesystem::path& file, const Image& image);

}  // namespace nbl
