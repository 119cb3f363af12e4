// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DETAIL_FRAME_QUEUE_HPP
#define REPLICANT_DETAIL_FRAME_QUEUE_HPP

// The hand-off between the connection thread (producer) and the applier thread (consumer): received
// XLogData frames in arrival order, each with a sequence number, and the bytes they hold, which
// count against the resident budget.

#include <replicant/pq/replication_stream.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace replicant::detail {

class frame_queue {
 public:
  struct item {
    std::uint64_t seq = 0;
    pq::frame frame;
  };

  // Appends the frames of one read, waking the consumer once for all of them (a wakeup per frame
  // costs more than decoding it).
  auto push(std::vector<item>& batch) -> void {
    if (batch.empty()) return;
    std::size_t n = 0;
    {
      const std::lock_guard lock{mutex_};
      for (auto& i : batch) {
        n += i.frame.size();
        items_.push_back(std::move(i));
      }
    }
    bytes_.fetch_add(n);
    batch.clear();
    ready_.notify_one();
  }

  // Moves everything queued into `out` (which must be empty), waiting up to `timeout` for
  // something to arrive; false after the timeout or once closed and drained. The frames' bytes stay
  // counted until release(): the consumer holds them until it has applied them.
  auto pop_all(std::chrono::milliseconds timeout, std::deque<item>& out) -> bool {
    std::unique_lock lock{mutex_};
    ready_.wait_for(lock, timeout, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return false;
    out.swap(items_);
    return true;
  }

  // The consumer is done with `n` bytes of popped frames.
  auto release(std::size_t n) noexcept -> void { bytes_.fetch_sub(n); }

  // No more frames will come; wakes the consumer.
  auto close() -> void {
    {
      const std::lock_guard lock{mutex_};
      closed_ = true;
    }
    ready_.notify_all();
  }

  [[nodiscard]] auto closed() const -> bool {
    const std::lock_guard lock{mutex_};
    return closed_;
  }

  // Bytes queued or popped and not yet released.
  [[nodiscard]] auto bytes() const noexcept -> std::size_t { return bytes_.load(); }

  auto clear() -> void {
    const std::lock_guard lock{mutex_};
    items_.clear();
    bytes_.store(0);
    closed_ = false;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<item> items_;
  std::atomic<std::size_t> bytes_{0};
  bool closed_ = false;
};

}  // namespace replicant::detail

#endif  // REPLICANT_DETAIL_FRAME_QUEUE_HPP
