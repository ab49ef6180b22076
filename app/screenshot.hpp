// Screenshots of the window: the back buffer as the user sees it (scene and panel), saved as PNG.
#pragma once
#include <filesystem>

#include "render/camera.hpp"

namespace nbl {

// A new file name in `folder`: nbodylab-YYYYmmdd-HHMMSS.png (with -2, -3 ... when taken).
std::filesystem::path next_screenshot_path(const std::filesystem::path& folder);

// Reads the window's back buffer (call after the panel is drawn, before swapping) and writes it.
void save_screenshot(const std::filesystem::path& file, const Viewport& framebuffer);

}  // namespace nbl
