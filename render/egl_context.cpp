#include "render/egl_context.hpp"

#include <glad/egl.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "render/gl.hpp"
#include "render/gl_errors.hpp"
#include "render/gl_version.hpp"
#include "sim/error.hpp"

namespace nbl {

namespace {

#ifndef EGL_CUDA_DEVICE_NV
#define EGL_CUDA_DEVICE_NV 0x323A  // EGL_NV_device_cuda
#endif

std::string egl_error_name(EGLint code) {
  switch (code) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "EGL error " + std::to_string(code);
  }
}

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t len = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)); p += len)
    if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return true;
  return false;
}

struct Candidate {
  std::string label;
  EGLDisplay display;
};

// The EGL devices, the one CUDA runs on first (EGL_NV_device_cuda), software devices last.
std::vector<Candidate> device_displays(int cuda_device, std::string& log) {
  std::vector<Candidate> out;
  if (!GLAD_EGL_EXT_platform_device || !GLAD_EGL_EXT_device_enumeration) {
    log += "\n  device platform: not offered by this EGL (EGL_EXT_platform_device)";
    return out;
  }
  EGLint count = 0;
  if (!eglQueryDevicesEXT(0, nullptr, &count) || count <= 0) {
    log += "\n  device platform: no EGL devices";
    return out;
  }
  std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
  eglQueryDevicesEXT(count, devices.data(), &count);
  std::vector<std::pair<int, Candidate>> ranked;
  for (EGLint i = 0; i < count; ++i) {
    const char* extensions = GLAD_EGL_EXT_device_query ? eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS) : nullptr;
    int rank = 1;
    std::string label = "EGL device " + std::to_string(i);
    if (has_extension(extensions, "EGL_NV_device_cuda")) {
      EGLAttrib cuda = -1;
      if (eglQueryDeviceAttribEXT(devices[i], EGL_CUDA_DEVICE_NV, &cuda) && cuda == cuda_device) rank = 0;
      label += " (CUDA device " + std::to_string(cuda) + ")";
    }
    if (has_extension(extensions, "EGL_MESA_device_software")) {
      rank = 2;
      label += " (software)";
    }
    EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
    if (display != EGL_NO_DISPLAY) ranked.push_back({rank, {"EGL device platform, " + label, display}});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& r : ranked) out.push_back(r.second);
  return out;
}

}  // namespace

EglContext::EglContext(int cuda_device) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    throw Error("cannot load libEGL.so.1: install libegl1 (and the GPU driver's EGL vendor library)");

  std::string log;
  std::vector<Candidate> candidates = device_displays(cuda_device, log);
  if (GLAD_EGL_MESA_platform_surfaceless && GLAD_EGL_EXT_platform_base) {
    EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (d != EGL_NO_DISPLAY) candidates.push_back({"EGL surfaceless platform", d});
  } else {
    log += "\n  surfaceless platform: not offered by this EGL (EGL_MESA_platform_surfaceless)";
  }
  if (EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY); d != EGL_NO_DISPLAY)
    candidates.push_back({"default EGL display", d});

  for (const auto& candidate : candidates) {
    EGLDisplay display = candidate.display;
    auto fail = [&](const std::string& what) {
      log += "\n  " + candidate.label + ": " + what + " (" + egl_error_name(eglGetError()) + ")";
    };
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor)) {
      fail("eglInitialize failed");
      continue;
    }
    gladLoaderLoadEGL(display);  // the display's extensions (surfaceless context, create_context)
    if (!eglBindAPI(EGL_OPENGL_API)) {
      fail("no desktop OpenGL");
      eglTerminate(display);
      continue;
    }

    const bool surfaceless = GLAD_EGL_KHR_surfaceless_context != 0;
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                     surfaceless ? 0 : EGL_PBUFFER_BIT,
                                     EGL_RENDERABLE_TYPE,
                                     EGL_OPENGL_BIT,
                                     EGL_RED_SIZE,
                                     8,
                                     EGL_GREEN_SIZE,
                                     8,
                                     EGL_BLUE_SIZE,
                                     8,
                                     EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs < 1) {
      fail("no OpenGL framebuffer configuration");
      eglTerminate(display);
      continue;
    }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                      kGlMajorNeeded,
                                      EGL_CONTEXT_MINOR_VERSION,
                                      kGlMinorNeeded,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    if (context == EGL_NO_CONTEXT) {
      fail("no OpenGL " + std::to_string(kGlMajorNeeded) + "." + std::to_string(kGlMinorNeeded) + " core context");
      eglTerminate(display);
      continue;
    }
    EGLSurface surface = EGL_NO_SURFACE;
    if (!surfaceless) {
      const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
      surface = eglCreatePbufferSurface(display, config, pbuffer_attribs);
    }
    if (!eglMakeCurrent(display, surface, surface, context)) {
      fail("cannot make the context current");
      if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
      eglDestroyContext(display, context);
      eglTerminate(display);
      continue;
    }
    display_ = display;
    context_ = context;
    surface_ = surface;
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
      release();
      throw Error("the EGL context was created but its OpenGL functions could not be loaded (" + candidate.label + ")");
    }
    install_gl_error_checks(default_gl_error_mode());
    const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const std::string problem = gl_version_problem(version ? version : "", renderer ? renderer : "");
    if (!problem.empty()) {
      release();
      throw Error(problem);
    }
    description_ = candidate.label + ": OpenGL " + version + " on " + renderer;
    return;
  }
  gladLoaderUnloadEGL();
  throw Error("cannot create a headless OpenGL " + std::to_string(kGlMajorNeeded) + "." +
              std::to_string(kGlMinorNeeded) + " core context through EGL. Tried:" + log +
              "\nOn an NVIDIA machine without a display, check that the driver's EGL library is installed "
              "(__EGL_VENDOR_LIBRARY_FILENAMES=/usr/share/glvnd/egl_vendor.d/10_nvidia.json); without a GPU, "
              "install Mesa (libegl-mesa0, libgl1-mesa-dri) and try EGL_PLATFORM=surfaceless.");
}

EglContext::~EglContext() { release(); }

void EglContext::release() {
  if (!display_) return;
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (surface_) eglDestroySurface(display_, surface_);
  if (context_) eglDestroyContext(display_, context_);
  eglTerminate(display_);
  display_ = context_ = surface_ = nullptr;
  gladLoaderUnloadEGL();
}

}  // namespace nbl
