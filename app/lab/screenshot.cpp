#include "app/lab/screenshot.hpp"

#include <ctime>

#include "render/image.hpp"

namespace nbl {

std::filesystem::path next_screenshot_path(const std::filesystem::path& folder) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  const std::filesystem::path where = std::filesystem::absolute(folder);  // the status line names it whole
  std::filesystem::path file = where / (std::string("nbodylab-") + stamp + ".png");
  for (int k = 2; std::filesystem::exists(file); ++k)
    file = where / (std::string("nbodylab-") + stamp + "-" + std::to_string(k) + ".png");
  return file;
}

void save_screenshot(const std::filesystem::path& file, const Viewport& size, unsigned framebuffer) {
  write_png(file, read_pixels(framebuffer, size));
}

}  // namespace nbl
