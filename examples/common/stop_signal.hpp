// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_STOP_SIGNAL_HPP
#define REPLICANT_EXAMPLES_COMMON_STOP_SIGNAL_HPP

/// @file
/// SIGINT/SIGTERM as a stop request that wakes a poll(): a flag plus an eventfd, shared by the
/// example programs.

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>

namespace replicant::examples {

/**
 * Turns SIGINT and SIGTERM into a stop request: the handler sets a flag, makes an eventfd readable
 * (so a thread blocked in poll(), connecting or waiting for a server, wakes at once) and then calls
 * the optional hook given to install(), e.g. to stop a running replication pipeline. Further
 * signals change nothing: a Ctrl-C in a terminal reaches every process of the foreground group, so
 * a wrapper script that forwards it would otherwise cut the clean stop short. SIGPIPE is ignored,
 * so a closed output shows up as an `EPIPE` write error.
 *
 * The handlers are installed even when the signals were ignored on entry: a shell starts
 * background jobs (`replicant-tail ... &`) with SIGINT ignored, and `kill -INT` must still stop
 * the program cleanly.
 *
 * One instance per process.
 *
 * @par Thread safety
 * requested() and fd() are safe from any thread and from the signal handler.
 */
class stop_signal {
 public:
  /// Called from the signal handler after the flag and the eventfd: only async-signal-safe work.
  using hook = void (*)() noexcept;

  /**
   * Creates the eventfd and installs the handlers.
   * @param on_stop called by the handler on every stop signal, or nothing.
   * @return false when either failed. Never throws.
   */
  [[nodiscard]] static auto install(hook on_stop = nullptr) noexcept -> bool {
    hook_.store(on_stop);
    fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd_ < 0) return false;
    struct sigaction sa{};
    sa.sa_handler = &stop_signal::on_signal;
    sigemptyset(&sa.sa_mask);
    struct sigaction ignore{};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    return ::sigaction(SIGINT, &sa, nullptr) == 0 && ::sigaction(SIGTERM, &sa, nullptr) == 0 &&
           ::sigaction(SIGPIPE, &ignore, nullptr) == 0;
  }

  /// The descriptor that becomes readable on a stop request (for poll()). Never throws.
  [[nodiscard]] static auto fd() noexcept -> int { return fd_; }

  /// Whether a stop was requested. Never throws.
  [[nodiscard]] static auto requested() noexcept -> bool { return requested_ != 0; }

  /// Sleeps @p d, or less when a stop is requested: the pause between two attempts at something
  /// that may pass by itself (a broker coming back, a target database restarting), which Ctrl-C
  /// must not have to wait out. It polls fd(), so the eventfd wakes it. Never throws.
  static auto sleep_for(std::chrono::milliseconds d) noexcept -> void {
    pollfd p{fd_, POLLIN, 0};
    static_cast<void>(::poll(&p, 1, static_cast<int>(d.count())));
  }

  /// Blocks SIGINT and SIGTERM in the calling thread. Once it returns, no handler runs there any
  /// more, so whatever the hook touches may be destroyed. Never throws.
  static auto block() noexcept -> void {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
  }

 private:
  // Only async-signal-safe calls here: write(2) on an eventfd, a lock-free atomic load and the hook.
  static void on_signal(int) noexcept {
    requested_ = 1;
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(fd_, &one, sizeof one);
    if (const auto h = hook_.load()) h();
  }

  static inline volatile std::sig_atomic_t requested_ = 0;
  static inline int fd_ = -1;
  static inline std::atomic<hook> hook_{nullptr};
  static_assert(std::atomic<hook>::is_always_lock_free, "the signal handler loads the hook");
};

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_STOP_SIGNAL_HPP
