#include "render/gl_timer.hpp"

namespace nbl {

GlTimer::GlTimer() = default;

void GlTimer::begin() {
  // Collect whatever has finished, oldest first, without waiting.
  for (int k = 1; k <= kInFlight; ++k) {
    const int i = (next_ + k) % kInFlight;
    if (!pending_[i]) continue;
    GLint available = 0;
    glGetQueryObjectiv(queries_[i].id(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available) continue;
    GLuint64 ns = 0;
    glGetQueryObjectui64v(queries_[i].id(), GL_QUERY_RESULT, &ns);
    ms_ = static_cast<double>(ns) * 1e-6;
    pending_[i] = false;
  }
  if (pending_[next_]) {  // all in flight: wait for the oldest rather than reuse a busy query
    GLuint64 ns = 0;
    glGetQueryObjectui64v(queries_[next_].id(), GL_QUERY_RESULT, &ns);
    ms_ = static_cast<double>(ns) * 1e-6;
    pending_[next_] = false;
  }
  glBeginQuery(GL_TIME_ELAPSED, queries_[next_].id());
}

void GlTimer::end() {
  glEndQuery(GL_TIME_ELAPSED);
  pending_[next_] = true;
  next_ = (next_ + 1) % kInFlight;
}

}  // namespace nbl
