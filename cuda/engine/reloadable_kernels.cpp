#include "cuda/engine/reloadable_kernels.hpp"

#include <utility>

#include "cuda/engine/sass_analysis.hpp"

#include "sim/error.hpp"

namespace nbl {

ReloadableKernels::ReloadableKernels(KernelEngine& engine, const std::vector<KernelSource>& sources,
                                     std::chrono::milliseconds poll_interval) {
  slots_.resize(sources.size());
  modules_.resize(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].file.empty()) continue;
    slots_[i].watched = std::make_unique<WatchedProgram>(engine, sources[i], poll_interval);
    slots_[i].module = own_module(slots_[i].watched->current());
    modules_[i] = slots_[i].module;
  }
}

const KernelModule& ReloadableKernels::module(std::size_t slot) const {
  if (!slots_.at(slot).module)
    throw Error("internal: kernel slot " + std::to_string(slot) + " is empty in this variant");
  return *slots_[slot].module;
}

std::optional<int> ReloadableKernels::unloaded_kernels() const {
  int unloaded = 0;
  for (const auto& module : modules_) {
    if (!module) continue;
    const std::optional<int> m = module->unloaded_kernels();
    if (!m) return std::nullopt;
    unloaded += *m;
  }
  return unloaded;
}

BuildVerdict ReloadableKernels::adopt(const Evaluate& evaluate, const ForceErrorBound& bound,
                                      const std::optional<ForceError>& last_good) {
  const ForceError error = evaluate(modules_);
  BuildVerdict verdict = judge_build(error, last_good, bound);
  if (verdict.accepted) last_good_ = error;
  return verdict;
}

ReloadableKernels::Outcome ReloadableKernels::poll(const Evaluate& evaluate, const ForceErrorBound& bound, bool force) {
  Outcome out;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    if (!slot.watched) continue;
    const std::string& file = slot.watched->source().file;
    const auto change = slot.watched->poll(force);
    if (change == WatchedProgram::Change::failed) {
      if (!slot.reported_failure)
        out.notices.push_back(
            file + " was edited but does not compile; the previous build keeps running (see its compiler log)");
      slot.reported_failure = true;
      continue;
    }
    if (change != WatchedProgram::Change::compiled) continue;
    Modules candidate = modules_;
    BuildVerdict verdict;
    ForceError error;
    try {
      candidate[i] = own_module(slot.watched->candidate());
      error = evaluate(candidate);
      verdict = judge_build(error, last_good_, bound);
    } catch (const std::exception& e) {
      verdict.accepted = false;
      verdict.report = std::string("the edited kernel compiled but cannot run: ") + e.what();
    }
    if (verdict.accepted) {
      slot.watched->accept();
      slot.module = candidate[i];
      modules_ = std::move(candidate);
      slot.reported_failure = false;
      out.swapped = true;
      out.notices.push_back(file + " reloaded: " + verdict.report);
      last_good_ = error;  // the new yardstick (it may be better, or up to twice worse)
    } else {
      slot.watched->reject(verdict.report);
      slot.reported_failure = true;
      out.notices.push_back(file + " was edited but its build is refused (" + verdict.report +
                            "); the previous build keeps running");
    }
  }
  return out;
}

bool ReloadableKernels::files_changed(bool force) {
  bool any = false;
  for (Slot& slot : slots_)
    if (slot.watched && slot.watched->files_changed(force)) any = slot.changed = true;
  return any;
}

void ReloadableKernels::mark_failed(const std::string& why) {
  for (Slot& slot : slots_)
    if (slot.watched && slot.changed) {
      slot.watched->mark_failed(why);
      slot.changed = false;
    }
}

KernelInfo ReloadableKernels::info(std::size_t slot, std::string_view entry) const {
  const Slot& s = slots_.at(slot);
  if (!s.watched) return {};
  KernelInfo info = s.watched->current()->kernel_info(entry);
  if (const PtxEntryStats* e = s.watched->current()->entry(entry); e && e->has_loop && e->loop_bodies > 0) {
    std::string why;
    if (auto loop = hot_loop_if_ready(s.watched->current(), entry, &why)) {
      info.instructions_per_interaction = loop->per_interaction();
      info.instruction_source = loop->source + (why.empty() ? "" : ": " + why);
    }
  }
  if (s.watched->reload_failed()) {
    info.reload_failed = true;
    info.compile_log = s.watched->failure_log();
  }
  return info;
}

bool ReloadableKernels::reload_failed(std::size_t slot) const {
  const Slot& s = slots_.at(slot);
  return s.watched && s.watched->reload_failed();
}

}  // namespace nbl
