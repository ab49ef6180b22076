// GPU time of a span of GL commands (GL_TIME_ELAPSED queries). Results arrive a few frames late, so
// reading them never stalls the pipeline; ms() is the latest finished measurement.
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
  std::array<GlQuery, kInFlight> queries_{GlQuery(GL_TIME_ELAPSED), GlQuery(GL_TIME_ELAPSED), GlQuery(GL_TIME_ELAPSED),
                                          GlQuery(GL_TIME_ELAPSED)};
  std::array<bool, kInFlight> pending_{};
  int next_ = 0;
  double ms_ = 0;
};

}  // namespace nbl
