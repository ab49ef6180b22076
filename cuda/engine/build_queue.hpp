// Kernel builds beside the frame loop: NVRTC compiles, module loads and the check of a new build run on
// worker threads, so switching a toggle never stalls a frame (the running kernels keep stepping until
// the new build is ready, and the backend swaps it in between two steps).
//
// Two kinds of work: a user's request (a toggle switched, a file edited), and prefetching (compiling
// the variants one click away, so that most clicks find their build in the cache). Requests always go
// first: one worker only ever takes prefetch work, and a prefetch never blocks a request. A request
// made while an older one of the same owner waits replaces it (a slider dragged through several values
// builds only the last); one already running cannot be stopped (NVRTC has no cancel) and finishes into
// the cache, and its result is ignored.
//
// A third kind: teardown. What a swap replaced (the old build's modules, scratch the new variant does not
// use) is handed back with retire() and destroyed on a worker of its own: unloading a module or freeing
// device memory waits for the whole device, which the frame loop must never do.
//
// Shutdown is explicit and deterministic (shutdown(), stop_background_work()): the work running is
// finished, every retirement is run, waiting requests and prefetches are dropped, and every worker is
// joined, before main returns and the statics, the CUDA context and the GL context the work uses go.
// No CUDA types here.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sim/build_progress.hpp"

namespace nbl {

// One request's shared state: the worker writes, the frame loop reads. Thread-safe. On the worker that
// runs the request, set() also opens an NVTX range per phase (compiling, checking) named as the panel
// names it (build_phase_name), and the queue closes the last one when the work returns.
class BuildTicket {
 public:
  using Clock = std::chrono::steady_clock;
  explicit BuildTicket(std::string label) : label_(std::move(label)), requested_(Clock::now()) {}

  void set(BuildState state, std::string detail = {});
  const std::string& label() const { return label_; }  // set once, in the constructor
  BuildProgress progress() const;
  BuildState state() const;
  bool finished() const;  // ready, refused or superseded
  void supersede();       // a newer request replaced this one
  bool superseded() const { return superseded_.load(); }
  double seconds_since_request() const;

 private:
  mutable std::mutex mutex_;
  std::string label_;
  BuildState state_ = BuildState::queued;
  std::string detail_;
  std::atomic<bool> superseded_{false};
  Clock::time_point requested_;
};

class BuildQueue {
 public:
  using Work = std::function<void()>;

  // `workers` threads serve requests; one more serves prefetching only, and one teardown only.
  explicit BuildQueue(int workers = 1);
  ~BuildQueue();  // shutdown()
  BuildQueue(const BuildQueue&) = delete;
  BuildQueue& operator=(const BuildQueue&) = delete;

  // Queues a request of `owner` (a backend); an older request of the same owner still waiting is
  // dropped, its ticket marked superseded.
  void request(const void* owner, std::shared_ptr<BuildTicket> ticket, Work work);
  // Queues background work (compiling a neighbour variant). Dropped when the queue is long.
  void prefetch(Work work);
  // Drops every waiting prefetch (the settings moved on: the neighbours changed).
  void clear_prefetch();
  // Runs `work` on the teardown worker and destroys it there (with everything it captured): an old
  // build's modules and buffers, released off the frame loop's thread. In order, never dropped; after
  // shutdown() it runs at once on the caller's thread.
  void retire(Work work);

  std::size_t waiting_requests() const;
  std::size_t waiting_prefetch() const;
  std::size_t waiting_retirements() const;
  // Waits until no request is waiting or running (tests, the synchronous configure path).
  void wait_idle();
  // Waits until every retirement handed over so far has run and been destroyed.
  void wait_retired();

  // Stops the queue: waiting requests are superseded and prefetches dropped, the work running finishes,
  // every waiting retirement runs, and all workers are joined. Later requests are superseded at once and
  // later prefetches dropped. Idempotent; call it from any thread but a worker's.
  void shutdown();
  bool stopped() const;

 private:
  struct Request {
    const void* owner;
    std::shared_ptr<BuildTicket> ticket;
    Work work;
  };
  void serve_requests();
  void serve_prefetch();
  void serve_retirements();

  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_, retired_;
  std::deque<Request> requests_;
  std::deque<Work> prefetch_;
  std::deque<Work> retirements_;
  int running_requests_ = 0;
  int running_retirements_ = 0;
  bool stopping_ = false;
  std::mutex join_mutex_;  // one shutdown() joins; a concurrent one waits for it
  std::vector<std::thread> threads_;
};

// The queue the GPU backends share (one per process, started on first use).
BuildQueue& shared_build_queue();
// shutdown() of the shared queue, when it was ever started.
void shutdown_shared_build_queue();

}  // namespace nbl
