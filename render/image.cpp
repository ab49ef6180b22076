#include "render/image.hpp"

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <cstring>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

Image read_pixels(GLuint framebuffer, const Viewport& region) {
  Image image;
  image.width = region.width;
  image.height = region.height;
  image.rgba.resize(static_cast<std::size_t>(region.width) * region.height * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
  if (framebuffer == 0) glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(region.x, region.y, region.width, region.height, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  // GL's rows run bottom-up; files run top-down.
  const std::size_t row = static_cast<std::size_t>(region.width) * 4;
  std::vector<std::uint8_t> swap(row);
  for (int y = 0; y < region.height / 2; ++y) {
    std::uint8_t* a = &image.rgba[static_cast<std::size_t>(y) * row];
    std::uint8_t* b = &image.rgba[static_cast<std::size_t>(region.height - 1 - y) * row];
    std::memcpy(swap.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, swap.data(), row);
  }
  return image;
}

std::string encode_png(const Image& image) {
  std::string bytes;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &bytes, image.width, image.height, 4, image.rgba.data(), image.width * 4))
    throw Error("cannot encode a " + std::to_string(image.width) + "x" + std::to_string(image.height) + " PNG");
  return bytes;
}

Image read_png(const std::filesystem::path& file) {
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(file.c_str(), &w, &h, &channels, 4);
  if (!data)
    throw Error("cannot read " + file.string() +
                " as a PNG: " + (stbi_failure_reason() ? stbi_failure_reason() : "unknown"));
  Image image;
  image.width = w;
  image.height = h;
  image.rgba.assign(data, data + static_cast<std::size_t>(w) * h * 4);
  stbi_image_free(data);
  return image;
}

void write_png(const std::filesystem::path& file, const Image& image) {
  write_file_atomically(file, encode_png(image));
}

}  // namespace nbl
