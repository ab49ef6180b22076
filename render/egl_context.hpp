// An OpenGL 4.5 core context without a display, for `nbodylab render` and the tests (EGL). Tries, in
// order: the EGL device platform (headless NVIDIA: the GPU that CUDA device `cuda_device` is, so
// interop works), Mesa's surfaceless platform (software rendering, CI), and the default display.
// The context is current on the constructing thread for the object's life; render into an FBO.
#pragma once
#include <string>

namespace nbl {

class EglContext {
 public:
  explicit EglContext(int cuda_device = 0);  // throws Error listing what every attempt said
  ~EglContext();
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  // e.g. "EGL device platform (NVIDIA): OpenGL 4.6.0 NVIDIA 550.54.15 on NVIDIA H100 80GB HBM3"
  const std::string& description() const { return description_; }

 private:
  void release();

  void* display_ = nullptr;
  void* context_ = nullptr;
  void* surface_ = nullptr;
  std::string description_;
};

}  // namespace nbl
