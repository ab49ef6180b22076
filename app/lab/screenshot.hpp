// Screenshots of the lab: the frame as the user sees it (scene and panel), saved as PNG.
#pragma once
#include <filesystem>

#include "render/camera.hpp"

namespace nbl {

// A new file name in `folder`: nbodylab-YYYYmmdd-HHMMSS.png (with -2, -3 ... when taken), as an absolute path.
std::filesystem::path next_screenshot_path(const std::filesystem::path& folder);

// Reads the frame the lab drew (call after the panel is drawn, before swapping) and writes it:
// `framebuffer` 0 is the window's back buffer, otherwise the offscreen surface's framebuffer object.
void save_screenshot(const std::filesystem::path& file, const Viewport& size, unsigned framebuffer);

}  // namespace nbl
