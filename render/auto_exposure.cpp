#include "render/auto_exposure.hpp"

#include "render/exposure_math.hpp"

#include <cstdint>
#include <cstring>

namespace nbl {

namespace {
constexpr GLuint kBinsBinding = 1, kStateBinding = 2;
}  // namespace

AutoExposure::AutoExposure() {
  bins_.allocate(sizeof(exposure::Histogram));  // shaders/histogram.comp: uint bins[256]
  const std::uint32_t zero = 0;
  glClearNamedBufferData(bins_.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  restart();
}

void AutoExposure::restart() {
  const std::uint32_t zero = 0;
  glClearNamedBufferData(state_.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
}

void AutoExposure::measure(GLuint quarter_texture, int width, int height, const ExposureParameters& p) {
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kBinsBinding, bins_.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kStateBinding, state_.id());
  if (p.automatic) {
    glBindTextureUnit(0, quarter_texture);
    histogram_.set("u_reference", p.reference);
    histogram_.set("u_density_mode", p.density_mode ? 1 : 0);
    histogram_.use();
    glDispatchCompute(static_cast<GLuint>((width + 15) / 16), static_cast<GLuint>((height + 15) / 16), 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  }
  exposure_.set("u_auto", p.automatic ? 1 : 0);
  exposure_.set("u_fixed_white", p.fixed_white * p.reference);
  exposure_.set("u_star_display", p.star_display);
  exposure_.set("u_reference", p.reference);
  exposure_.set("u_percentile", p.percentile);
  exposure_.set("u_min_white", p.min_white * p.reference);
  exposure_.set("u_adapt", p.adapt);
  exposure_.set("u_snap_stops", p.snap_stops);
  exposure_.use();
  glDispatchCompute(1, 1, 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
}

void AutoExposure::bind(GLuint storage_binding) const { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, storage_binding, state_.id()); }

float AutoExposure::white() const { return state().white; }

AutoExposure::State AutoExposure::state() const {
  static_assert(sizeof(State) == 5 * sizeof(float), "State mirrors the Exposure buffer of shaders/exposure.comp");
  State s;
  std::memcpy(&s, state_.data(), sizeof s);  // coherent mapping: a recent frame's values
  return s;
}

}  // namespace nbl
