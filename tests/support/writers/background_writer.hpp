// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_WRITERS_BACKGROUND_WRITER_HPP
#define REPLICANT_TESTS_SUPPORT_WRITERS_BACKGROUND_WRITER_HPP

/// @file
/// The writer of the storm cases: commits transactions on a thread of its own while the test kills
/// and restarts what consumes them.

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <utility>

namespace replicant::test {

/**
 * Calls `commit(i)` for i = 0, 1, ... up to @p transactions times on a thread of its own, and stops
 * early at the first call that returns false (a failed commit).
 *
 * @par Thread safety
 * `writing()` may be called from any thread; `join()` from the owner only.
 */
class background_writer {
 public:
  /// Starts writing at once. @p commit commits the i-th transaction and says whether it succeeded.
  background_writer(std::uint64_t transactions, std::function<bool(std::uint64_t)> commit)
      : commit_{std::move(commit)}, thread_{[this, transactions] {
          for (std::uint64_t i = 0; i < transactions && ok_; ++i) {
            if (!commit_(i)) ok_ = false;
          }
          writing_ = false;
        }} {}
  background_writer(const background_writer&) = delete;
  auto operator=(const background_writer&) -> background_writer& = delete;
  ~background_writer() {
    if (thread_.joinable()) thread_.join();
  }

  /// Whether the writer has transactions left to commit.
  [[nodiscard]] auto writing() const -> bool { return writing_.load(); }
  /// Waits for the last transaction. @return whether every commit succeeded.
  auto join() -> bool {
    thread_.join();
    return ok_.load();
  }

 private:
  std::function<bool(std::uint64_t)> commit_;
  std::atomic<bool> writing_{true};
  std::atomic<bool> ok_{true};
  std::thread thread_;  // last: starts once the flags and the callable exist
};

}  // namespace replicant::test

#endif
