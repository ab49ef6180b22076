// GPU time of a span of GL commands, from two GL_TIMESTAMP queries (glQueryCounter), so spans may nest
// (the exposure passes inside the whole frame; GL_TIME_ELAPSED queries cannot). Results arrive a few
// frames late, so reading them never stalls the pipeline; ms() is the latest finished measurement.
#pragma once
#include <array>

#include "render/gl_objects.hpp"

namespace nbl {

class GlTimer {
 public:
  GlTimer();
  void begin();
  void end();
  double ms() const { return ms_; }

 private:
  static constexpr int kInFlight = 4;
  struct Span {
    GlQuery start{GL_TIMESTAMP}, stop{GL_TIMESTAMP};
    bool pending = false;
  };
  void collect(Span& span, bool wait);
  std::array<Span, kInFlight> spans_;
  int next_ = 0;
  double ms_ = 0;
};

}  // namespace nbl
