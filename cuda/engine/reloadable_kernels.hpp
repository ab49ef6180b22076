// The kernels a GPU backend runs, as one set: each kernel source followed on disk (hot reload), the
// module it compiled to, and its generated-code report. Both backends get their kernels from here, so
// hot reload and variant switches follow one rule (sim/accuracy.hpp):
//   - a set is adopted only after `evaluate` ran it on the fixed check problem and judge_build()
//     accepted its forces against the last good set's;
//   - an edited file that does not compile, or whose forces are refused, leaves the running modules in
//     place; the reason (compiler log or verdict) is kept for the panel's generated-code view.
// The backend supplies `evaluate`: it runs the candidate modules on the check problem and returns the
// ForceError (it alone knows how to launch its kernels). No CUDA types here.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/engine/kernel_engine.hpp"
#include "sim/accuracy.hpp"

namespace nbl {

class ReloadableKernels {
 public:
  using Modules = std::vector<std::shared_ptr<KernelModule>>;  // one per source, in the order given
  using Evaluate = std::function<ForceError(const Modules&)>;

  // Compiles and loads every source (throws CompileError / Error). Empty sources leave an empty slot
  // (a kernel this variant does not use). Nothing is judged yet: see adopt().
  ReloadableKernels(KernelEngine& engine, const std::vector<KernelSource>& sources,
                    std::chrono::milliseconds poll_interval = std::chrono::milliseconds(500));

  // Checks the compiled set on the check problem and judges it against `last_good` (the error of the
  // set it replaces, if any). Accepted: the set's error becomes its last good error. Returns the verdict.
  BuildVerdict adopt(const Evaluate& evaluate, const ForceErrorBound& bound,
                     const std::optional<ForceError>& last_good);

  // Measures the running set again and takes that as its last good error, unjudged: the check problem
  // changed (a new softening or opening angle), so the old figure is no yardstick.
  void remeasure(const Evaluate& evaluate) { last_good_ = evaluate(modules_); }

  std::size_t size() const { return slots_.size(); }
  bool has(std::size_t slot) const { return slots_[slot].module != nullptr; }
  const KernelModule& module(std::size_t slot) const;
  const Modules& modules() const { return modules_; }
  const std::optional<ForceError>& last_good() const { return last_good_; }
  // How many kernels of the set's modules are not loaded into the CUDA context (a swapped-in set must
  // have none before its first launch: kernel_loading.hpp); nothing when the driver cannot say.
  std::optional<int> unloaded_kernels() const;

  struct Outcome {
    bool swapped = false;              // a new module runs from now on
    std::vector<std::string> notices;  // what happened, for the user
  };
  // Looks for edited files (each slot at most every poll interval, unless `force`). A slot whose file
  // changed and compiled is tried with the other slots' running modules, judged, swapped in or refused.
  Outcome poll(const Evaluate& evaluate, const ForceErrorBound& bound, bool force = false);

  // The asynchronous path (the lab): whether any file changed (see WatchedProgram::files_changed); the
  // backend then builds the same variant from the edited files on a worker. When that build is
  // refused, mark_failed() shows why on the changed slots until their files change again.
  bool files_changed(bool force = false);
  void mark_failed(const std::string& why);

  // The generated-code report of one entry point of a slot, with the reload failure (compiler log or
  // refusal) when the file on disk is not what runs.
  KernelInfo info(std::size_t slot, std::string_view entry) const;
  bool reload_failed(std::size_t slot) const;

 private:
  struct Slot {
    std::unique_ptr<WatchedProgram> watched;
    std::shared_ptr<KernelModule> module;
    bool reported_failure = false;
    bool changed = false;  // files_changed() saw an edit that no build has settled yet
  };
  std::vector<Slot> slots_;
  Modules modules_;
  std::optional<ForceError> last_good_;
};

}  // namespace nbl
