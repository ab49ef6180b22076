// Times the stages of one step with CUDA events: stage(name, work) enqueues a stage's launches inside an
// NVTX range of the stage's name (what the panel shows, sim/stage_names.hpp), then records an event on
// the stream; finish() waits once and turns the event gaps into StepStats stages. Events are reused
// across steps, so timing costs no allocations in the frame loop.
#pragma once
#include <utility>
#include <vector>

#include "cuda/buffer.hpp"
#include "cuda/nvtx.hpp"
#include "sim/stage_names.hpp"
#include "sim/step_stats.hpp"

namespace nbl {

class StageTimer {
 public:
  void begin(cudaStream_t stream) {
    stream_ = stream;
    used_ = 0;
    names_.clear();
    event(0).record(stream_);
    used_ = 1;
  }
  // Enqueues one stage's work (`work()` launches its kernels) inside its NVTX range, then marks its end.
  template <class Work>
  void stage(Stage stage, Work&& work) {
    {
      const NvtxRange range(stage_name(stage));
      std::forward<Work>(work)();
    }
    mark(stage);
  }
  // The end of a stage whose work was enqueued already (prefer stage(), which names its range too).
  void mark(Stage stage) {
    event(used_).record(stream_);
    names_.push_back(stage_name(stage));
    ++used_;
  }
  // Waits for the last event; appends one StageTime per mark (stages of the same name add up).
  void finish(StepStats& stats) {
    double total = 0;
    for (std::size_t i = 1; i < used_; ++i) {
      const double ms = events_[i].ms_since(events_[i - 1]);
      total += ms;
      bool merged = false;
      for (auto& s : stats.stages)
        if (s.name == names_[i - 1]) {
          s.ms += ms;
          merged = true;
        }
      if (!merged) stats.stages.push_back({names_[i - 1], ms});
    }
    stats.total_ms += total;
  }

 private:
  CudaEvent& event(std::size_t i) {
    while (events_.size() <= i) events_.emplace_back();
    return events_[i];
  }
  cudaStream_t stream_ = nullptr;
  std::vector<CudaEvent> events_;
  std::vector<const char*> names_;
  std::size_t used_ = 0;
};

// A stage where timing is optional: with a timer as StageTimer::stage, without one the NVTX range only
// (the forces of the first kick, force-error measurements).
template <class Work>
void run_stage(StageTimer* timer, Stage stage, Work&& work) {
  if (timer) {
    timer->stage(stage, std::forward<Work>(work));
  } else {
    const NvtxRange range(stage_name(stage));
    std::forward<Work>(work)();
  }
}

}  // namespace nbl
