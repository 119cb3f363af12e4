// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DETAIL_FRAME_QUEUE_HPP
#define REPLICANT_DETAIL_FRAME_QUEUE_HPP

// The hand-off between the connection thread (producer) and the applier thread (consumer): received
// XLogData frames in arrival order, each with a sequence number, and the bytes they hold, which
// count against the resident budget.

#include <replicant/pq/replication_stream.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace replicant::detail {

class frame_queue {
 public:
  struct item {
    std::uint64_t seq = 0;
    pq::frame frame;
  };

  auto push(item&& i) -> void {
    {
      const std::lock_guard lock{mutex_};
      bytes_ += i.frame.size();
      items_.push_back(std::move(i));
    }
    ready_.notify_one();
  }

  // The next frame, or nothing after the timeout or once closed and drained.
  auto pop(std::chrono::milliseconds timeout) -> std::optional<item> {
    std::unique_lock lock{mutex_};
    ready_.wait_for(lock, timeout, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    item i = std::move(items_.front());
    items_.pop_front();
    bytes_ -= i.frame.size();
    return i;
  }

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

  [[nodiscard]] auto bytes() const -> std::size_t {
    const std::lock_guard lock{mutex_};
    return bytes_;
  }

  auto clear() -> void {
    const std::lock_guard lock{mutex_};
    items_.clear();
    bytes_ = 0;
    closed_ = false;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<item> items_;
  std::size_t bytes_ = 0;
  bool closed_ = false;
};

}  // namespace replicant::detail

#endif  // REPLICANT_DETAIL_FRAME_QUEUE_HPP
