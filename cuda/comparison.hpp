// A/B in the GPU backends (sim/comparison.hpp), what both do alike. ComparisonSlot holds B: the builds
// of B's kernels, requested on the shared build queue as a switch of A's variant is (compiled, loaded and
// checked on a worker thread), the B that is ready, and its retirement. ForceDifference turns B's
// accelerations against A's into the sample the panel and `bench --compare` read. What B is (B's kernels
// with their own copy of the state: AllPairsComparison, BarnesHutComparison) is each backend's own.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/buffer.hpp"
#include "cuda/comparison_kernels.hpp"
#include "cuda/engine/async_builds.hpp"
#include "cuda/retire.hpp"
#include "sim/bodies.hpp"
#include "sim/comparison.hpp"
#include "sim/error.hpp"

namespace nbl {

// B's accelerations against A's over every body (comparison_kernels.cu) as a ComparisonSample, and the
// per-body difference, kept for the colour mode.
class ForceDifference {
 public:
  // `a_stages` and `b_stages` are A's and B's force computation by stage, timed on the same state.
  ComparisonSample measure(comparison::AccelerationView a, comparison::AccelerationView b, std::size_t n,
                           std::vector<StageTime> a_stages, std::vector<StageTime> b_stages, cudaStream_t stream);
  bool measured() const { return measured_; }
  // The last measurement's per-body difference as colour keys (ColorMode::ab_difference).
  void write_keys(float* keys, std::size_t n, cudaStream_t stream) const;

 private:
  comparison::DifferencePass pass_;
  DeviceBuffer<float> per_body_;
  float scale_ = 1;  // RMS |aA| of the last measurement
  bool measured_ = false;
};

// B of a backend's A/B. `Build` is what the build queue makes (a variant compiled, loaded and checked),
// `B` what a finished build becomes between two steps; B provides run(A's state..., stream) returning a
// ComparisonSample, accelerations(out, stream) and write_keys(keys, n, stream). Nothing is destroyed on
// the caller's thread: a B replaced or cleared goes to the build queue's teardown worker (cuda/retire.hpp),
// after the stream's work so far.
template <class Build, class B>
class ComparisonSlot {
 public:
  using Adopt = std::function<std::unique_ptr<B>(Build build)>;

  ComparisonSlot(BuildQueue& queue, cudaStream_t stream) : queue_(queue), stream_(stream), requests_(queue) {}

  // A new B: `make` builds it on a worker (the panel shows "B: label" meanwhile), `adopt` turns the build
  // into B once it is done. The B before it is retired now; a build still in flight is dropped.
  void request(const std::string& label, typename AsyncBuilds<Build>::Make make, Adopt adopt) {
    retire_after(queue_, stream_, b_);
    adopt_ = std::move(adopt);
    requests_.request("B: " + label, std::move(make));
  }
  // No B: the ready one retired, a build in flight dropped.
  void clear() {
    retire_after(queue_, stream_, b_);
    requests_.cancel();
  }

  // B's forces from A's state (`a`, as B::run takes it) compared with A's: once B is ready (a finished
  // build replaces the B before it) and A's last step left forces to compare with (`a_ready`). A refused
  // build throws Error with the reason (the lab then clears B), rather than stay "building" forever.
  template <class... A>
  std::optional<ComparisonSample> compare(bool a_ready, A&&... a) {
    if (auto finished = requests_.take_finished()) {
      if (!finished->build) throw Error("B (" + finished->label + ") is refused: " + finished->refusal);
      retire_after(queue_, stream_, b_);
      b_ = adopt_(std::move(*finished->build));
    }
    if (!b_ || !a_ready) return std::nullopt;
    return b_->run(std::forward<A>(a)..., stream_);
  }

  bool ready() const { return b_ != nullptr; }
  std::vector<BuildProgress> builds() const { return requests_.progress(); }
  // B's accelerations of the last compare(); false before the first.
  bool accelerations(Accelerations& out) const { return b_ && b_->accelerations(out, stream_); }
  // The per-body difference of the last compare() as colour keys, when there is a B.
  void write_keys(float* keys, std::size_t n) const {
    if (b_) b_->write_keys(keys, n, stream_);
  }

 private:
  BuildQueue& queue_;
  cudaStream_t stream_;
  AsyncBuilds<Build> requests_;
  Adopt adopt_;
  std::unique_ptr<B> b_;
};

}  // namespace nbl
