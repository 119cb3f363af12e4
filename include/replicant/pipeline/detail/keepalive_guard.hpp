// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_KEEPALIVE_GUARD_HPP
#define REPLICANT_PIPELINE_DETAIL_KEEPALIVE_GUARD_HPP

// The keepalive guard of a replication session. One thread reads the socket, decodes and calls the
// sink; while it is in a call (a sink's, a store's, a catalog query) it sends nothing, and a call
// that outlasts wal_sender_timeout would make the server end the session. The guard sends status
// updates at the durable position in its place, but only once no update has gone out for a status
// interval: while calls are quick it wakes twice a status interval and does nothing else.
//
// Every use of the stream (receive, send, finish) is under stream_mutex, so libpq never sees two
// threads at once; the session thread holds it only for the call itself, never while it waits or
// delivers.

#include <replicant/core/lsn.hpp>
#include <replicant/pq/replication_stream.hpp>
#include <replicant/wire/framing.hpp>

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace replicant::detail {

// A status update reporting @p flush as written, flushed and applied (never below what it says was
// @p received), asking for a reply when @p ping: what both the session thread and the guard send.
inline auto status_update(lsn received, lsn flush, bool ping) noexcept -> standby_status_update {
  return {std::max(received, flush), flush, flush,
          std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()), ping};
}

// What the session thread and the guard share.
struct stream_guard_state {
  using clock = std::chrono::steady_clock;

  std::mutex stream_mutex;                  // held for every call into the stream
  std::atomic<std::uint64_t> received{0};   // the highest position received (the update's write field)
  std::atomic<clock::rep> last_status{0};   // when the last status update went out
  std::atomic<bool> consumed_input{false};  // a guard's send read input into libpq: look before waiting

  auto status_sent() noexcept -> void { last_status.store(clock::now().time_since_epoch().count()); }
  [[nodiscard]] auto since_status() const noexcept -> clock::duration {
    return clock::now() - clock::time_point{clock::duration{last_status.load()}};
  }
};

template <class Stream>
class keepalive_guard {
 public:
  using clock = std::chrono::steady_clock;

  // Guards @p stream, reporting @p durable every @p interval the session thread leaves without an
  // update. @p stop_fd becomes readable at stop(); from then on @p while_stopping runs every
  // 100 ms (it ends a store write that outlasts its grace).
  keepalive_guard(Stream& stream, stream_guard_state& state, const std::atomic<std::uint64_t>& durable,
                  std::chrono::milliseconds interval, int stop_fd, std::function<void()> while_stopping)
      : stream_(stream),
        state_(state),
        durable_(durable),
        interval_(interval),
        stop_fd_(stop_fd),
        while_stopping_(std::move(while_stopping)),
        thread_([this] { run(); }) {}
  keepalive_guard(const keepalive_guard&) = delete;
  auto operator=(const keepalive_guard&) -> keepalive_guard& = delete;
  ~keepalive_guard() {
    {
      const std::scoped_lock lock{mutex_};
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  auto run() -> void {
    std::unique_lock lock{mutex_};
    bool stopping = false;
    while (!done_) {
      wake_.wait_for(lock, stopping ? std::chrono::milliseconds(100) : interval_ / 2, [&] { return done_; });
      if (done_) break;
      lock.unlock();
      pollfd p{stop_fd_, POLLIN, 0};
      stopping = stopping || (stop_fd_ >= 0 && ::poll(&p, 1, 0) > 0);
      if (stopping && while_stopping_) while_stopping_();
      if (state_.since_status() >= interval_) keep_alive();
      lock.lock();
    }
  }

  // One status update at the durable position. A failure is left to the session thread, which
  // meets the broken connection at its next receive.
  auto keep_alive() -> void {
    const auto u = status_update(lsn{state_.received.load()}, lsn{durable_.load()}, false);
    const std::scoped_lock lock{state_.stream_mutex};
    static_cast<void>(stream_.send(encode_status_update(u)));
    state_.status_sent();
    state_.consumed_input.store(true);
  }

  Stream& stream_;
  stream_guard_state& state_;
  const std::atomic<std::uint64_t>& durable_;
  std::chrono::milliseconds interval_;
  int stop_fd_;
  std::function<void()> while_stopping_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;  // last: starts once everything above is ready
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_KEEPALIVE_GUARD_HPP
