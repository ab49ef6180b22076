// A GPU backend's builds of its own running variant, one in flight, newest request wins (async_builds.hpp):
// a switch to new settings (Backend::configure_async), or the running variant rebuilt from its edited
// kernel files (hot reload). It keeps what each build was requested with, so that the backend adopts the
// settings together with the build, and what runs now. Both GPU backends hold one; how a build is swapped
// in is theirs.
#pragma once
#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/engine/async_builds.hpp"
#include "cuda/retire.hpp"
#include "sim/build_progress.hpp"
#include "sim/settings.hpp"

namespace nbl {

template <class Build>
class VariantBuilds {
 public:
  using Make = typename AsyncBuilds<Build>::Make;

  explicit VariantBuilds(BuildQueue& queue) : queue_(queue), builds_(queue) {}

  // A switch to `settings`, built by `make` (labelled with the variant's description).
  void request(const Settings& settings, std::string label, Make make) {
    pending_ = settings;
    reload_ = false;
    builds_.request(std::move(label), std::move(make));
  }
  // The running variant again, from its edited files (with the settings that run).
  void request_reload(const std::string& label, Make make) {
    pending_ = running_;
    reload_ = true;
    builds_.request(label + " (edited on disk)", std::move(make));
  }
  void cancel() { builds_.cancel(); }  // back to what runs: a build in flight no longer matters
  bool busy() const { return builds_.busy(); }
  std::vector<BuildProgress> progress() const { return builds_.progress(); }

  struct Finished {
    ConfigureOutcome outcome;      // accepted (the build is there) or refused, with the request's label and latency
    std::unique_ptr<Build> build;  // null when refused
    bool reload = false;           // the running variant rebuilt from its edited files
    Settings settings;             // what it was requested with
  };
  // The newest request's outcome, once, when it is there.
  std::optional<Finished> take_finished() {
    auto finished = builds_.take_finished();
    if (!finished) return std::nullopt;
    Finished out;
    out.outcome.accepted = finished->build != nullptr;
    out.outcome.label = std::move(finished->label);
    out.outcome.message = std::move(finished->refusal);
    out.outcome.latency_s = finished->latency_s;
    out.build = std::move(finished->build);
    out.reload = std::exchange(reload_, false);
    out.settings = pending_;
    return out;
  }

  // A finished build was swapped in: `settings` run from now on, and what the swap replaced goes to the
  // build queue's teardown worker after `stream`'s work so far. Returns the milliseconds that took here
  // (ConfigureOutcome::teardown_ms).
  double swapped(const Settings& settings, RetiredObjects old, cudaStream_t stream) {
    running_ = settings;
    const auto start = std::chrono::steady_clock::now();
    retire_after(queue_, stream, std::move(old));
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  // What runs now (configure() sets it; a swap does, through swapped()).
  const Settings& running() const { return running_; }
  void set_running(const Settings& settings) { running_ = settings; }

 private:
  BuildQueue& queue_;
  AsyncBuilds<Build> builds_;
  Settings pending_;  // what the build in flight was requested with
  Settings running_;
  bool reload_ = false;  // the build in flight is a hot reload
};

}  // namespace nbl
