#include "cuda/engine/build_queue.hpp"

#include <atomic>
#include <cstdio>
#include <exception>

#include "cuda/nvtx.hpp"

namespace nbl {

namespace {

constexpr std::size_t kMaxPrefetch = 64;  // neighbours of one setting; more means the settings moved on

// The request this worker thread runs, and whether a phase range of it is open on this thread: NVTX
// push and pop must pair on one thread, and only the worker running a request opens its ranges.
thread_local const BuildTicket* t_running = nullptr;
thread_local bool t_phase_open = false;

std::atomic<bool> g_shared_queue_started{false};  // whether shutdown_shared_build_queue() has one to stop

void close_phase_range() {
  if (t_phase_open) nvtxRangePop();
  t_phase_open = false;
}

}  // namespace

void BuildTicket::set(BuildState state, std::string detail) {
  if (t_running == this) {
    close_phase_range();
    if (state == BuildState::compiling || state == BuildState::checking) {
      nvtxRangePushA(build_phase_name(label_, state).c_str());
      t_phase_open = true;
    }
  }
  std::lock_guard lock(mutex_);
  state_ = state;
  if (!detail.empty()) detail_ = std::move(detail);
}

BuildProgress BuildTicket::progress() const {
  std::lock_guard lock(mutex_);
  return {label_, superseded_ ? BuildState::superseded : state_, detail_, seconds_since_request()};
}

BuildState BuildTicket::state() const {
  std::lock_guard lock(mutex_);
  return superseded_ ? BuildState::superseded : state_;
}

bool BuildTicket::finished() const {
  const BuildState s = state();
  return s == BuildState::ready || s == BuildState::refused || s == BuildState::superseded;
}

void BuildTicket::supersede() { superseded_ = true; }

double BuildTicket::seconds_since_request() const {
  return std::chrono::duration<double>(Clock::now() - requested_).count();
}

// -------------------------------------------------------------------------------------------------

BuildQueue::BuildQueue(int workers) {
  for (int i = 0; i < std::max(workers, 1); ++i) threads_.emplace_back([this] { serve_requests(); });
  threads_.emplace_back([this] { serve_prefetch(); });
  threads_.emplace_back([this] { serve_retirements(); });
}

BuildQueue::~BuildQueue() { shutdown(); }

void BuildQueue::shutdown() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& r : requests_) r.ticket->supersede();
    requests_.clear();
    prefetch_.clear();  // destroyed here: a prefetch only holds a source and the engine
  }
  wake_.notify_all();
  std::lock_guard join(join_mutex_);
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

bool BuildQueue::stopped() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void BuildQueue::request(const void* owner, std::shared_ptr<BuildTicket> ticket, Work work) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {  // the process is ending: nothing more is built
      ticket->supersede();
      return;
    }
    for (auto it = requests_.begin(); it != requests_.end();) {
      if (it->owner == owner) {
        it->ticket->supersede();
        it = requests_.erase(it);
      } else {
        ++it;
      }
    }
    requests_.push_back({owner, std::move(ticket), std::move(work)});
  }
  wake_.notify_all();
}

void BuildQueue::prefetch(Work work) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || prefetch_.size() >= kMaxPrefetch) return;
    prefetch_.push_back(std::move(work));
  }
  wake_.notify_all();
}

void BuildQueue::clear_prefetch() {
  std::lock_guard lock(mutex_);
  prefetch_.clear();
}

void BuildQueue::retire(Work work) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      retirements_.push_back(std::move(work));
      wake_.notify_all();
      return;
    }
  }
  // Stopped (the process is ending, the teardown worker is gone or going): here and now.
  try {
    work();
  } catch (...) {
  }
}

std::size_t BuildQueue::waiting_retirements() const {
  std::lock_guard lock(mutex_);
  return retirements_.size();
}

void BuildQueue::wait_retired() {
  std::unique_lock lock(mutex_);
  retired_.wait(lock, [this] { return retirements_.empty() && running_retirements_ == 0; });
}

std::size_t BuildQueue::waiting_requests() const {
  std::lock_guard lock(mutex_);
  return requests_.size();
}

std::size_t BuildQueue::waiting_prefetch() const {
  std::lock_guard lock(mutex_);
  return prefetch_.size();
}

void BuildQueue::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return requests_.empty() && running_requests_ == 0; });
}

void BuildQueue::serve_requests() {
  for (;;) {
    Request job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !requests_.empty(); });
      if (stopping_) return;
      job = std::move(requests_.front());
      requests_.pop_front();
      ++running_requests_;
      // The last waiting request taken: prefetching may go on (it only runs while none waits).
      if (requests_.empty() && !prefetch_.empty()) wake_.notify_all();
    }
    if (!job.ticket->superseded()) {
      t_running = job.ticket.get();
      try {
        job.work();
      } catch (const std::exception& e) {
        job.ticket->set(BuildState::refused, e.what());
      }
      close_phase_range();  // a superseded build returns without a final state
      t_running = nullptr;
    }
    {
      std::lock_guard lock(mutex_);
      --running_requests_;
    }
    idle_.notify_all();
  }
}

void BuildQueue::serve_prefetch() {
  for (;;) {
    Work work;
    {
      std::unique_lock lock(mutex_);
      // Prefetching only runs while no request waits: a user's click always finds a free worker.
      wake_.wait(lock, [this] { return stopping_ || (!prefetch_.empty() && requests_.empty()); });
      if (stopping_) return;
      work = std::move(prefetch_.front());
      prefetch_.pop_front();
    }
    try {
      const NvtxRange range(build_phase_name(kPrefetchLabel, BuildState::compiling));
      work();
    } catch (const std::exception&) {
      // A neighbour that does not compile is only a missed cache entry: the request will say why.
    }
  }
}

void BuildQueue::serve_retirements() {
  for (;;) {
    Work work;
    {
      std::unique_lock lock(mutex_);
      // Unlike requests and prefetches, retirements are never dropped: shutdown waits for the last one.
      wake_.wait(lock, [this] { return stopping_ || !retirements_.empty(); });
      if (retirements_.empty()) return;       // stopping, and nothing left to release
      std::swap(work, retirements_.front());  // swap: the deque's element is left empty for sure
      retirements_.pop_front();
      ++running_retirements_;
    }
    try {
      const NvtxRange range("retire");
      work();
    } catch (...) {
      // Releasing never throws in practice (RAII destructors do not); nothing to tell anyone.
    }
    work = nullptr;  // what it captured is destroyed here, on this worker
    {
      std::lock_guard lock(mutex_);
      --running_retirements_;
    }
    retired_.notify_all();
  }
}

BuildQueue& shared_build_queue() {
  static BuildQueue queue(1);
  g_shared_queue_started = true;
  return queue;
}

void shutdown_shared_build_queue() {
  if (g_shared_queue_started) shared_build_queue().shutdown();
}

}  // namespace nbl
