// Times the stages of one step with CUDA events: mark(name) after each kernel's launch records an
// event on the stream; finish() waits once and turns the event gaps into StepStats stages. Events are
// reused across steps, so timing costs no allocations in the frame loop.
#pragma once
#include <string>
#include <vector>

#include "cuda/buffer.hpp"
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
  // Call after enqueuing a stage's work.
  void mark(std::string name) {
    event(used_).record(stream_);
    names_.push_back(std::move(name));
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
  std::vector<std::string> names_;
  std::size_t used_ = 0;
};

}  // namespace nbl
