#include "render/gl_timer.hpp"

#include <utility>

namespace nbl {

namespace {

template <std::size_t... I>
std::array<GlQuery, sizeof...(I)> timestamp_queries(std::index_sequence<I...>) {
  return {((void)I, GlQuery(GL_TIMESTAMP))...};
}

}  // namespace

const char* pass_name(RenderPass pass) {
  switch (pass) {
    case RenderPass::bodies: return "bodies";
    case RenderPass::quarter: return "quarter";
    case RenderPass::histogram: return "histogram";
    case RenderPass::exposure: return "exposure";
    case RenderPass::glow: return "glow";
    case RenderPass::tone_map: return "tone map";
    case RenderPass::lines: return "lines";
  }
  return "?";
}

double PassTimes::post_processing_ms() const {
  double sum = 0;
  for (RenderPass pass : kPostProcessingPasses) sum += pass_ms(pass);
  return sum;
}

std::array<GlQuery, GlPassTimer::kMaxMarks> GlPassTimer::make_queries() {
  return timestamp_queries(std::make_index_sequence<kMaxMarks>{});
}

void GlPassTimer::collect(Frame& frame, bool wait) {
  if (!frame.pending) return;
  const GLuint newest = frame.queries[static_cast<std::size_t>(frame.marks - 1)].id();
  if (!wait) {
    GLint available = 0;
    glGetQueryObjectiv(newest, GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available) return;
  }
  PassTimes times;
  GLuint64 first = 0, previous = 0;
  for (int k = 0; k < frame.marks; ++k) {
    GLuint64 t = 0;
    glGetQueryObjectui64v(frame.queries[static_cast<std::size_t>(k)].id(), GL_QUERY_RESULT, &t);
    if (k == 0) first = t;
    else if (t > previous)
      times.ms[static_cast<std::size_t>(frame.pass[static_cast<std::size_t>(k)])] +=
          static_cast<double>(t - previous) * 1e-6;
    previous = t;
  }
  times.frame_ms = previous > first ? static_cast<double>(previous - first) * 1e-6 : 0.0;
  last_ = times;
  frame.pending = false;
}

void GlPassTimer::begin_frame() {
  // Collect whatever has finished, oldest first, without waiting.
  for (int k = 1; k <= kInFlight; ++k) collect(frames_[static_cast<std::size_t>((next_ + k) % kInFlight)], false);
  Frame& frame = frames_[static_cast<std::size_t>(next_)];
  collect(frame, true);  // all in flight: wait for the oldest rather than reuse it
  frame.marks = 0;
  open_ = true;
  mark(-1);
}

void GlPassTimer::mark(int pass) {
  Frame& frame = frames_[static_cast<std::size_t>(next_)];
  if (!open_ || frame.marks >= kMaxMarks) return;
  frame.pass[static_cast<std::size_t>(frame.marks)] = pass;
  glQueryCounter(frame.queries[static_cast<std::size_t>(frame.marks)].id(), GL_TIMESTAMP);
  ++frame.marks;
}

void GlPassTimer::end_pass(RenderPass pass) { mark(static_cast<int>(pass)); }

void GlPassTimer::end_frame() {
  if (!open_) return;
  Frame& frame = frames_[static_cast<std::size_t>(next_)];
  frame.pending = frame.marks > 1;
  open_ = false;
  next_ = (next_ + 1) % kInFlight;
}

}  // namespace nbl
