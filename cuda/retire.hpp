// What a swap replaces, released off the frame loop's thread. The old build's modules, its pipeline and
// scratch, and buffers the new variant lays out differently may still be in use by work already on the
// stream (the last frame's vertex writer), and releasing them waits for the whole device: cudaFree and
// unloading a module synchronize it. So the swap collects them in a RetiredObjects and hands that to
// the build queue's teardown worker, which waits for the stream's work enqueued so far (an event) and
// destroys them there. The frame loop's cost of a swap is then a few moves and one event record.
#pragma once
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/buffer.hpp"
#include "cuda/engine/async_builds.hpp"
#include "cuda/engine/build_queue.hpp"

namespace nbl {

// What a make function (cuda/engine/async_builds.hpp) throws for a build its check refused, once the build is
// gone: the check's stream has finished, so the build's modules go back to the idle pool instead of
// being unloaded (unloading a module waits for every kernel on the GPU, the running lab's frames with
// them), and its memory is freed without waiting for the device.
template <class Build>
BuildRefused refuse(std::unique_ptr<Build> build, const CudaStream& check_stream, std::string report) {
  check_stream.synchronize();
  const IdleRelease idle;
  build.reset();
  return BuildRefused(std::move(report));
}

class RetiredObjects {
 public:
  // Takes `object` (a unique_ptr, a DeviceBuffer, a struct of them...) to be destroyed later.
  template <class T>
  void add(T&& object) {
    objects_.push_back(std::make_shared<std::decay_t<T>>(std::forward<T>(object)));
  }
  bool empty() const { return objects_.empty(); }
  std::size_t size() const { return objects_.size(); }
  void clear() { objects_.clear(); }  // destroys them now, on this thread

 private:
  std::vector<std::shared_ptr<void>> objects_;  // shared_ptr<void> keeps each one's own deleter
};

// Like buffer.resize(size) (contents not kept), but a reallocation hands the old allocation to `old`
// instead of freeing it here.
template <class T>
void resize_retiring(DeviceBuffer<T>& buffer, std::size_t size, RetiredObjects* old) {
  if (size == buffer.size()) return;
  if (old && buffer.size() > 0) old->add(std::move(buffer));  // leaves `buffer` empty
  buffer.resize(size);
}

// Hands `objects` to `queue`'s teardown worker, which destroys them once the work enqueued on `stream`
// until now has finished. Nothing is released on the caller's thread (unless the queue has stopped:
// then here, after waiting for the stream).
void retire_after(BuildQueue& queue, cudaStream_t stream, RetiredObjects objects);

// The same for one object held by a unique_ptr, which is left empty (nothing to do when it is).
template <class T>
void retire_after(BuildQueue& queue, cudaStream_t stream, std::unique_ptr<T>& object) {
  if (!object) return;
  RetiredObjects old;
  old.add(std::move(object));
  retire_after(queue, stream, std::move(old));
}

}  // namespace nbl
