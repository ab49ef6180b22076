// One owner's builds on the shared BuildQueue, newest request wins: request() hands the queue a
// function that makes a Build on a worker thread (compile, load, check), and take_finished() gives the
// frame loop the newest request's outcome once: the Build to swap in between two steps, or the reason
// it was refused. An older request still waiting is dropped; one already running finishes into the
// kernel cache and its result is discarded on its worker (a finished one nobody took goes to the
// queue's teardown worker): no Build is ever destroyed on the thread that requested it. Header-only
// and CUDA-free: the tests drive it with fake builds (tests/cuda/build_queue_test.cpp).
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/engine/build_queue.hpp"
#include "sim/error.hpp"

namespace nbl {

// Thrown by a make function when its build compiled but must not run (the check refused it).
class BuildRefused : public Error {
 public:
  using Error::Error;
};

template <class Build>
class AsyncBuilds {
 public:
  using Make = std::function<std::unique_ptr<Build>(BuildTicket& ticket)>;

  explicit AsyncBuilds(BuildQueue& queue) : queue_(queue) {}
  ~AsyncBuilds() { supersede(); }
  AsyncBuilds(const AsyncBuilds&) = delete;
  AsyncBuilds& operator=(const AsyncBuilds&) = delete;

  void request(std::string label, Make make) {
    supersede();
    auto slot = std::make_shared<Slot>();
    slot->ticket = std::make_shared<BuildTicket>(std::move(label));
    {
      std::lock_guard lock(mutex_);
      current_ = slot;
    }
    queue_.request(this, slot->ticket, [slot, make = std::move(make)] {
      slot->ticket->set(BuildState::compiling);
      std::unique_ptr<Build> build;
      std::string refusal;
      try {
        build = make(*slot->ticket);
      } catch (const std::exception& e) {
        refusal = e.what();
      }
      std::lock_guard lock(slot->mutex);
      if (slot->ticket->superseded()) return;  // a newer request replaced it while it ran
      slot->build = std::move(build);
      slot->refusal = std::move(refusal);
      slot->ticket->set(slot->build ? BuildState::ready : BuildState::refused, slot->refusal);
    });
  }

  // Drops the pending request (the settings went back to what runs).
  void cancel() { supersede(); }

  struct Finished {
    std::unique_ptr<Build> build;  // null when refused
    std::string refusal;
    std::string label;
    double latency_s = 0;  // request to now
  };
  // The newest request's outcome, once, when it is there.
  std::optional<Finished> take_finished() {
    std::shared_ptr<Slot> slot;
    {
      std::lock_guard lock(mutex_);
      slot = current_;
    }
    if (!slot) return std::nullopt;
    std::lock_guard lock(slot->mutex);
    const BuildState state = slot->ticket->state();
    if (state != BuildState::ready && state != BuildState::refused) return std::nullopt;
    if (slot->taken) return std::nullopt;
    slot->taken = true;
    last_ = slot->ticket;
    {
      std::lock_guard own(mutex_);
      if (current_ == slot) current_.reset();
    }
    return Finished{std::move(slot->build), slot->refusal, slot->ticket->progress().label,
                    slot->ticket->seconds_since_request()};
  }

  bool busy() const {
    std::lock_guard lock(mutex_);
    return current_ != nullptr;
  }
  // The request in flight, and the last one finished (for a few seconds), for the panel.
  std::vector<BuildProgress> progress() const {
    std::vector<BuildProgress> out;
    std::lock_guard lock(mutex_);
    if (last_) {  // a refusal stays in view for a while, a swap only briefly
      const BuildProgress p = last_->progress();
      if (p.age_s < (p.state == BuildState::refused ? 30.0 : 3.0)) out.push_back(p);
    }
    if (current_) out.push_back(current_->ticket->progress());
    return out;
  }

 private:
  struct Slot {
    std::mutex mutex;
    std::shared_ptr<BuildTicket> ticket;
    std::unique_ptr<Build> build;
    std::string refusal;
    bool taken = false;
  };
  // A build that finished but was never taken (the settings moved on first) is handed to the queue's
  // teardown worker: its modules must not be unloaded on the caller's thread (the frame loop).
  void supersede() {
    std::shared_ptr<Slot> slot;
    {
      std::lock_guard lock(mutex_);
      slot = std::move(current_);
      current_.reset();
    }
    if (!slot) return;
    slot->ticket->supersede();
    std::shared_ptr<Build> unused;
    {
      std::lock_guard lock(slot->mutex);
      unused = std::move(slot->build);
    }
    if (unused) queue_.retire([unused = std::move(unused)] {});
  }

  BuildQueue& queue_;
  mutable std::mutex mutex_;
  std::shared_ptr<Slot> current_;
  std::shared_ptr<BuildTicket> last_;
};

}  // namespace nbl
