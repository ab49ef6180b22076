#include "render/gl_timer.hpp"

namespace nbl {

GlTimer::GlTimer() = default;

void GlTimer::collect(Span& span, bool wait) {
  if (!span.pending) return;
  if (!wait) {
    GLint available = 0;
    glGetQueryObjectiv(span.stop.id(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available) return;
  }
  GLuint64 t0 = 0, t1 = 0;
  glGetQueryObjectui64v(span.start.id(), GL_QUERY_RESULT, &t0);
  glGetQueryObjectui64v(span.stop.id(), GL_QUERY_RESULT, &t1);
  ms_ = t1 > t0 ? static_cast<double>(t1 - t0) * 1e-6 : 0.0;
  span.pending = false;
}

void GlTimer::begin() {
  // Collect whatever has finished, oldest first, without waiting.
  for (int k = 1; k <= kInFlight; ++k) collect(spans_[static_cast<std::size_t>((next_ + k) % kInFlight)], false);
  collect(spans_[static_cast<std::size_t>(next_)], true);  // all in flight: wait for the oldest rather than reuse it
  glQueryCounter(spans_[static_cast<std::size_t>(next_)].start.id(), GL_TIMESTAMP);
}

void GlTimer::end() {
  Span& span = spans_[static_cast<std::size_t>(next_)];
  glQueryCounter(span.stop.id(), GL_TIMESTAMP);
  span.pending = true;
  next_ = (next_ + 1) % kInFlight;
}

}  // namespace nbl
