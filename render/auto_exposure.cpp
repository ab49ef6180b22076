#include "render/auto_exposure.hpp"

#include "render/exposure_math.hpp"

#include <cstdint>
#include <cstring>

namespace nbl {

namespace {
constexpr GLuint kBinsBinding = 1, kStateBinding = 2;
constexpr std::size_t kStateBytes = 5 * sizeof(float);
}  // namespace

AutoExposure::AutoExposure() {
  bins_.allocate(sizeof(exposure::Histogram), GL_DYNAMIC_COPY);  // shaders/histogram.comp: uint bins[256]
  state_.allocate(kStateBytes, GL_DYNAMIC_COPY);                 // written and read by the GPU alone: device memory
  const std::uint32_t zero = 0;
  glClearNamedBufferData(bins_.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  glClearNamedBufferData(readback_.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  restart();
}

void AutoExposure::restart() {
  const std::uint32_t zero = 0;
  glClearNamedBufferData(state_.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
}

void AutoExposure::histogram(GLuint quarter_texture, int width, int height, const ExposureParameters& p) {
  if (!p.automatic) return;
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kBinsBinding, bins_.id());
  glBindTextureUnit(0, quarter_texture);
  histogram_.set("u_reference", p.reference);
  histogram_.set("u_density_mode", p.density_mode ? 1 : 0);
  histogram_.use();
  glDispatchCompute(static_cast<GLuint>((width + 15) / 16), static_cast<GLuint>((height + 15) / 16), 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
}

void AutoExposure::update(const ExposureParameters& p) {
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kBinsBinding, bins_.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kStateBinding, state_.id());
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
  // The tone map reads the state as a uniform block, the copy below as a buffer, the next histogram
  // counts into the cleared bins.
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_UNIFORM_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  glCopyNamedBufferSubData(state_.id(), readback_.id(), 0, 0, static_cast<GLsizeiptr>(kStateBytes));
}

void AutoExposure::bind_uniform(GLuint uniform_binding) const {
  glBindBufferBase(GL_UNIFORM_BUFFER, uniform_binding, state_.id());
}

float AutoExposure::white() const { return state().white; }

AutoExposure::State AutoExposure::state() const {
  static_assert(sizeof(State) == kStateBytes, "State mirrors the Exposure buffer of shaders/exposure.comp");
  State s;
  std::memcpy(&s, readback_.data(), sizeof s);  // coherent mapping: a recent frame's values
  return s;
}

}  // namespace nbl
