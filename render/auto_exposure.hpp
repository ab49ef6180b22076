// Auto exposure on the GPU side of GL: a histogram of the frame's light from its quarter-
// size copy (shaders/histogram.comp), the white point as a percentile of it, adapted smoothly over
// frames (shaders/exposure.comp), left in a small buffer in device memory that the tone map reads as a
// uniform block. No frame waits for a readback; the host may peek at the adapted value (white()) for
// the panel, a frame or two old, from a copy in a mapped buffer (the tone map's two million pixels
// must not read a buffer mapped for the host: a driver may keep it in host memory, across the bus).
#pragma once
#include <cstdint>

#include "render/gl_objects.hpp"
#include "render/shader_program.hpp"

namespace nbl {

struct ExposureParameters {
  float reference = 1;         // a lone star's peak: the histogram's bins are stops relative to it
  float percentile = 0.995f;   // of the texels that show bodies
  float min_white = 16;        // in units of reference: a frame of lone stars is not stretched to white
  float adapt = 1;             // the fraction of the way (in stops) to this frame's value; 1: at once
  float snap_stops = 3;        // a larger jump is taken at once (a new scene, another colour mode)
  bool density_mode = false;   // measure bodies per pixel (alpha) instead of light (rgb)
  bool automatic = true;       // false: white = fixed_white, nothing measured
  float fixed_white = 2000;    // in units of reference
  float star_display = 0.35f;  // the display value a lone star's peak maps to
};

class AutoExposure {
 public:
  AutoExposure();
  // Histograms `quarter` (rgb light, alpha bodies per pixel) and updates the white point and the tone
  // curve's knee (without p.automatic: only the knee for the fixed white point). The two dispatches can
  // be issued apart (histogram(), then update()), so a timer can tell them apart.
  void measure(GLuint quarter_texture, int width, int height, const ExposureParameters& p) {
    histogram(quarter_texture, width, height, p);
    update(p);
  }
  void histogram(GLuint quarter_texture, int width, int height, const ExposureParameters& p);
  void update(const ExposureParameters& p);
  void bind_uniform(GLuint uniform_binding) const;  // for the tone map: the state as a uniform block
  void restart();                                   // the next measure() takes its value at once
  // The adapted white point as of a recent frame (0 before the first); never waits for the GPU.
  float white() const;
  // The state buffer as a recent frame left it (shaders/exposure.comp); never waits for the GPU.
  struct State {
    float white = 0, target = 0;
    std::uint32_t frames = 0, covered = 0;
    float knee = 0;
  };
  State state() const;

 private:
  GlProgram histogram_{"shaders/histogram.comp"};
  GlProgram exposure_{"shaders/exposure.comp"};
  GlBuffer bins_;
  GlBuffer state_;                              // white, target, frames, covered, knee (shaders/exposure.comp)
  GlMappedBuffer readback_{5 * sizeof(float)};  // the same, copied after each update for the host
};

}  // namespace nbl
