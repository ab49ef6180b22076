// The worker threads the GPU side runs beside the objects that use it: the build queue the backends
// share (builds, prefetched neighbours, teardown of old builds) and the SASS analyses (cuobjdump). They
// are not members of any object the frame loop owns, so nothing stopped them before main returned: a
// prefetch compile or an analysis still running at exit used statics already destroyed, and crashed the
// scripted tour after its last step (signal 11). main() holds a BackgroundWork: when the command is done
// and its objects are gone, every worker finishes what it runs (GPU work included) and is joined, before
// any static, the CUDA context or the process goes.
#pragma once

namespace nbl {

// Stops the shared build queue (waiting work dropped, running work finished, every old build released)
// and waits for every code analysis. Idempotent; no later work starts.
void stop_background_work();

class BackgroundWork {
 public:
  BackgroundWork() = default;
  ~BackgroundWork() { stop_background_work(); }
  BackgroundWork(const BackgroundWork&) = delete;
  BackgroundWork& operator=(const BackgroundWork&) = delete;
};

}  // namespace nbl
