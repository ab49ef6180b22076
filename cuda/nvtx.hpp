// Named ranges for profilers (Nsight Systems, ncu's --nvtx / --nvtx-include), through NVTX v3: header
// only, in the CUDA Toolkit; it finds a profiler's injection library at the first call (dlopen, hence
// libdl) and otherwise every call returns at once. The lab's ranges carry the names the panel shows:
// the step stages (sim/stage_names.hpp, cuda/stage_timer.hpp) and the phases of kernel builds
// (build_phase_name in sim/build_progress.hpp, cuda/engine/build_queue.cpp). Ranges use NVTX's default domain,
// so ncu filters them by name alone: `ncu --nvtx --nvtx-include "force/" ...`.
#pragma once
#include <nvtx3/nvToolsExt.h>

#include <string>

namespace nbl {

// A range on this thread, from the constructor to the destructor (push / pop: strictly nested).
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  explicit NvtxRange(const std::string& name) : NvtxRange(name.c_str()) {}
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace nbl
