// Kernel builds beside the frame loop: NVRTC compiles, module loads and the check of a new build run on
// worker threads, so switching a toggle never stalls a frame (the running kernels keep stepping until
// the new build is ready, and the backend swaps it in between two steps).
//
// Two kinds of work: a user's request (a toggle switched, a file edited), and prefetching (compiling
// the variants one click away, so that most clicks find their build in the cache). Requests always go
// first: one worker only ever takes prefetch work, and a prefetch never blocks a request. A request
// made while an older one of the same owner waits replaces it (a slider dragged through several values
// builds only the last); one already running cannot be stopped (NVRTC has no cancel) and finishes into
// the cache, and its result is ignored. No CUDA types here.
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

  // `workers` threads serve requests; one more serves prefetching only.
  explicit BuildQueue(int workers = 1);
  ~BuildQueue();
  BuildQueue(const BuildQueue&) = delete;
  BuildQueue& operator=(const BuildQueue&) = delete;

  // Queues a request of `owner` (a backend); an older request of the same owner still waiting is
  // dropped, its ticket marked superseded.
  void request(const void* owner, std::shared_ptr<BuildTicket> ticket, Work work);
  // Queues background work (compiling a neighbour variant). Dropped when the queue is long.
  void prefetch(Work work);
  // Drops every waiting prefetch (the settings moved on: the neighbours changed).
  void clear_prefetch();

  std::size_t waiting_requests() const;
  std::size_t waiting_prefetch() const;
  // Waits until no request is waiting or running (tests, the synchronous configure path).
  void wait_idle();

 private:
  struct Request {
    const void* owner;
    std::shared_ptr<BuildTicket> ticket;
    Work work;
  };
  void serve_requests();
  void serve_prefetch();

  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<Request> requests_;
  std::deque<Work> prefetch_;
  int running_requests_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// The queue the GPU backends share (one per process, started on first use).
BuildQueue& shared_build_queue();

}  // namespace nbl
