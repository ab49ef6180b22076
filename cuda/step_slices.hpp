// What both GPU backends do for the lab's stepping thread (StepControl, sim/backend.hpp): a force pass
// that took longer than the control's slice is split into launches of about that long, so that the
// display's GL work gets the GPU in between and a request to abandon the step is seen (Barnes-Hut waits
// for each before the next; all-pairs keeps two in flight on two streams, cuda/allpairs/force_pass.hpp); a launch that stays long (a Barnes-Hut walk runs whole up to a million
// bodies) is told to stop through a word in device memory its warps read as they start
// (StopWord); a step that may be abandoned first copies aside the state it changes, and puts it back
// when it stops early. bench, A/B and render set no control: one launch, no copies.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cuda/buffer.hpp"
#include "sim/backend.hpp"

namespace nbl {

// Launches for a force pass over `items` work items (blocks or warps) whose whole pass takes `whole_ms`:
// 1 unless the control asks for slices and the pass is slower than one; each slice keeps at least
// `fill_items` of them when the control asks for full launches (StepControl::fill_each_slice).
int force_slice_count(const StepControl& control, double whole_ms, int items, int fill_items);

// For `wanted` slices of `items` that all take equally long (all-pairs blocks), where `wave_items` of
// them fill every SM once: slices of at most one wave each, or of whole waves when fewer, longer slices
// are wanted. A slice lasts as long as its busiest SM, so one block more than a wave on a few SMs makes
// it a block's time longer, and fewer blocks than fit leave the SMs short of warps (docs/scripts.md,
// "Measuring the never-freeze targets", says what each cost at a million all-pairs bodies). 1 when
// `wanted` is.
int whole_wave_slice_count(int wanted, int items, int wave_items);

// A Barnes-Hut slice keeps this many warps of bodies per SM, so a million bodies run in one launch.
// Measured on the H100 (docs/scripts.md): the walk's blocks end one by one and the display's splat runs
// in their place, so a whole launch kept the display at 60 Hz and 0.89 of the step rate, while 15 slices
// kept 0.38 of it (SMs waiting on the walks' loads) and 3 full slices held the splat back.
inline constexpr int kBarnesHutSliceWarpsPerSm = 256;

// A variant's whole force pass in milliseconds, for its next step's slice count. Another variant starts
// from nothing (its first step runs whole and is timed), and a sliced step, which also pays a wait per
// slice and may keep fewer items in flight, raises the figure by at most a quarter: slicing must not
// feed on its own cost.
class ForcePassClock {
 public:
  double whole_ms(const std::string& variant) {
    if (variant != variant_) variant_ = variant, whole_ms_ = 0;
    return whole_ms_;
  }
  void record(int slices, double force_ms) {
    whole_ms_ = slices <= 1 || whole_ms_ <= 0 ? force_ms : std::min(force_ms, 1.25 * whole_ms_);
  }

 private:
  std::string variant_;
  double whole_ms_ = 0;
};

// Between two slices (on the stepping thread): waits for the slice, then whether to go on.
bool next_slice(const StepControl& control, cudaStream_t stream);

// One int in device memory that a walk's kernels read (bh::Tree::stop): the stepping thread raises it,
// when the user has left the variant of a running launch, with a copy on a stream of its own (a copy
// engine writes it while the launch holds the SMs), and the walk's warps, which look at it as they
// start, end at once, so the launch ends within one wave of warps instead of at its end. (A word in
// mapped host memory instead cost a PCIe read per warp: 35 ms a pass at a million bodies.) Used on the
// stepping thread only; the memory is taken at the first arm().
class StopWord {
 public:
  StopWord() = default;
  ~StopWord();
  StopWord(const StopWord&) = delete;
  StopWord& operator=(const StopWord&) = delete;
  // Lowers the word in `stream`'s order, before the launch that reads it, and returns its address.
  const int* arm(cudaStream_t stream);
  // Raises it now, beside whatever runs, and waits for the copy.
  void raise();

 private:
  int* word_ = nullptr;  // device
  int* one_ = nullptr;   // pinned host: the value the copy writes
  cudaStream_t copies_ = nullptr;
};

// Whether a force pass may be stopped inside its launches: under the control, when it is long (over a
// slice) or not timed yet (a variant's first step, which may be the slow one the user leaves at once).
inline bool stoppable_pass(const StepControl& control, double whole_ms) {
  return control.abandon && control.slice_ms > 0 && (whole_ms <= 0 || whole_ms > control.slice_ms);
}

// Waits for what `stream` runs (a launch reading `stop`), looking at the control every 0.1 ms: when
// the step is to be abandoned, raises the word and waits for the launch to end early. False when it
// raised the word (the pass is incomplete), true when the work ended on its own.
bool wait_or_stop(const StepControl& control, cudaStream_t stream, StopWord& stop);

// The device bytes a step changes, copied aside before it (device to device, in stream order) and put
// back if it is abandoned. The copy's memory stays for the next step.
class StateSnapshot {
 public:
  void take(std::vector<std::pair<void*, std::size_t>> regions, cudaStream_t stream);
  void restore(cudaStream_t stream);
  bool taken() const { return !regions_.empty(); }
  void clear() { regions_.clear(); }

 private:
  DeviceBuffer<unsigned char> copy_;
  std::vector<std::pair<void*, std::size_t>> regions_;
};

// What a step stopped on request reports, once `snapshot` is put back (waits for the copies).
StepStats abandoned_step(StateSnapshot& snapshot, cudaStream_t stream);

}  // namespace nbl
