// What both GPU backends do for the lab's stepping thread (StepControl, sim/backend.hpp): a force pass
// that took longer than the control's slice is split into launches of about that long, each waited for
// before the next starts, so that the display's GL work gets the GPU in between and a request to
// abandon the step is seen; a step that may be abandoned first copies aside the state it changes, and
// puts it back when it stops early. bench, A/B and render set no control: one launch, no copies.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda/buffer.hpp"
#include "sim/backend.hpp"

namespace nbl {

// Launches for a force pass over `items` work items (blocks, warps or groups) that took `last_force_ms`
// last time: 1 unless the control asks for slices and the pass is slower than one.
int force_slice_count(const StepControl& control, double last_force_ms, int items);

// Between two slices (on the stepping thread): waits for the slice, then whether to go on.
bool next_slice(const StepControl& control, cudaStream_t stream);

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
