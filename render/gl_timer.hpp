// GPU time of each pass of a frame, from GL_TIMESTAMP queries (glQueryCounter) placed between the
// passes: pass k's time is its closing timestamp minus the one before it, so the passes of a frame add
// up to the frame and nothing is counted twice. Results arrive a few frames late, so reading them never
// stalls the pipeline; last() is the latest finished frame. A timestamp is taken when the GPU has
// finished every command before it, so a pass also holds whatever the GPU waited for within it (in the
// CUDA splat path, the bodies pass waits for the splat's stream).
#pragma once
#include <array>
#include <cstddef>

#include "render/gl_objects.hpp"

namespace nbl {

// The passes of SceneRenderer::draw, in the order they run (docs/window.md, "The picture").
enum class RenderPass { bodies, quarter, histogram, exposure, glow, tone_map, lines };
inline constexpr std::size_t kRenderPassCount = 7;
const char* pass_name(RenderPass pass);  // "bodies", "quarter", "histogram", ...
// Post-processing: every pass after the bodies are drawn or splatted up to the displayed picture (the
// overlay lines are drawn after it and are not counted).
inline constexpr std::array kPostProcessingPasses = {RenderPass::quarter, RenderPass::histogram, RenderPass::exposure,
                                                     RenderPass::glow, RenderPass::tone_map};

struct PassTimes {
  std::array<double, kRenderPassCount> ms{};  // by RenderPass; 0 for a pass the frame did not run
  double frame_ms = 0;                        // from the frame's first timestamp to its last
  double pass_ms(RenderPass pass) const { return ms[static_cast<std::size_t>(pass)]; }
  double post_processing_ms() const;
};

class GlPassTimer {
 public:
  void begin_frame();              // collects finished frames, then the frame's first timestamp
  void end_pass(RenderPass pass);  // the GPU time since the previous timestamp counts to `pass`
  void end_frame();
  const PassTimes& last() const { return last_; }

 private:
  static constexpr int kInFlight = 4;
  static constexpr int kMaxMarks = 24;  // a first frame draws its bodies twice; lines are optional
  struct Frame {
    std::array<GlQuery, kMaxMarks> queries = make_queries();
    std::array<int, kMaxMarks> pass{};  // the pass each timestamp after the first closes
    int marks = 0;
    bool pending = false;
  };
  static std::array<GlQuery, kMaxMarks> make_queries();
  void mark(int pass);
  void collect(Frame& frame, bool wait);
  std::array<Frame, kInFlight> frames_;
  int next_ = 0;
  bool open_ = false;
  PassTimes last_;
};

}  // namespace nbl
