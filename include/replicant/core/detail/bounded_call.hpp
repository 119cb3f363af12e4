// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_BOUNDED_CALL_HPP
#define REPLICANT_CORE_DETAIL_BOUNDED_CALL_HPP

/// @file
/// Bounded waits for the checkpoint stores: an interrupter that a pipeline's stop() fires (from any
/// thread, or a signal handler) to end the store call in progress, and a worker thread that runs
/// blocking file operations so that their caller can stop waiting for a file system that does not
/// answer.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

namespace replicant::detail {

// stop() is async-signal-safe, and so must be what it calls: an atomic load and a write(2).
static_assert(std::atomic<bool>::is_always_lock_free);

// Lets another thread end the call a store is making. A call arms it while it runs; interrupt()
// makes its descriptor readable only then, so an interrupt between two calls is not held against
// the next one (a pipeline that stops between two writes still makes its final write).
class call_interrupter {
 public:
  call_interrupter() noexcept : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  call_interrupter(const call_interrupter&) = delete;
  auto operator=(const call_interrupter&) -> call_interrupter& = delete;
  ~call_interrupter() {
    if (fd_ >= 0) ::close(fd_);
  }

  // Readable while an interrupt is pending; -1 if no eventfd could be made (interrupts are then
  // lost, and calls end by their deadlines alone).
  [[nodiscard]] auto fd() const noexcept -> int { return fd_; }

  // A call begins: earlier interrupts are forgotten, and interrupt() reaches this one.
  auto arm() noexcept -> void {
    drain();
    armed_.store(true);
  }
  auto disarm() noexcept -> void { armed_.store(false); }

  // Ends the armed call, if any. Async-signal-safe.
  auto interrupt() noexcept -> void {
    if (!armed_.load() || fd_ < 0) return;
    const std::uint64_t one = 1;
    static_cast<void>(::write(fd_, &one, sizeof one));  // a full counter (EAGAIN) is readable anyway
  }

 private:
  auto drain() noexcept -> void {
    std::uint64_t n = 0;
    while (fd_ >= 0 && ::read(fd_, &n, sizeof n) > 0) {
    }
  }

  int fd_;
  std::atomic<bool> armed_{false};
};

// Arms an interrupter for the lifetime of one store call. Tolerates a null interrupter (a store
// that was moved from).
class armed_call {
 public:
  explicit armed_call(call_interrupter* i) noexcept : i_(i) {
    if (i_ != nullptr) i_->arm();
  }
  armed_call(const armed_call&) = delete;
  auto operator=(const armed_call&) -> armed_call& = delete;
  ~armed_call() {
    if (i_ != nullptr) i_->disarm();
  }

 private:
  call_interrupter* i_;
};

// How a bounded wait ended.
enum class wait_end { done, timed_out, interrupted };

// Waits until @p done_fd is readable, @p interrupt_fd is (-1: never), or @p timeout passed.
inline auto wait_readable(int done_fd, int interrupt_fd, std::chrono::milliseconds timeout) noexcept -> wait_end {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd fds[2] = {{done_fd, POLLIN, 0}, {interrupt_fd, POLLIN, 0}};  // poll skips a negative fd
    const int n = ::poll(fds, 2, static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 1'000'000'000)));
    if (n < 0 && errno == EINTR) continue;
    if (n > 0 && (fds[1].revents & POLLIN) != 0) return wait_end::interrupted;
    if (n > 0 && (fds[0].revents & POLLIN) != 0) return wait_end::done;
    if (n < 0 || left.count() <= 0) return wait_end::timed_out;
  }
}

/*
 * Runs blocking calls (file operations) on a thread of its own, one at a time, so that the caller
 * can stop waiting: after a timeout or an interrupt it returns, and the call goes on in the
 * background, because a thread blocked in the kernel (a hung NFS mount, a FIFO without a reader, a
 * disk whose fsync never returns) cannot be stopped. The next call first waits, within its own
 * timeout, for that one to end, so two calls never overlap: a late write can never land after a
 * later one.
 *
 * The thread starts with the first call and is joined by the destructor when it is idle. A thread
 * still blocked then is detached; it owns what it uses, ends when its call returns, and touches
 * nothing of the destroyed object.
 */
class blocking_worker {
 public:
  blocking_worker() : state_(std::make_shared<state>()) {}
  blocking_worker(const blocking_worker&) = delete;
  auto operator=(const blocking_worker&) -> blocking_worker& = delete;
  ~blocking_worker() {
    if (!thread_.joinable()) return;
    bool stuck = false;
    {
      const std::lock_guard lock{state_->mutex};
      state_->quit = true;
      stuck = state_->busy;
    }
    state_->wake.notify_all();
    if (stuck) {
      thread_.detach();
    } else {
      thread_.join();
    }
  }

  // Whether a call that timed out or was interrupted is still running. Never throws.
  [[nodiscard]] auto busy() const -> bool {
    const std::lock_guard lock{state_->mutex};
    return state_->busy;
  }

  /*
   * Runs @p job on the worker thread and waits for its result, at most @p timeout, and only until
   * @p interrupt_fd (-1: none) becomes readable. Ends in @p on_timeout or `errc::cancelled` when it
   * stops waiting, or when the previous call has still not returned within @p timeout (the job
   * was then not started); in `errc::io_failed` when no thread or eventfd could be had. An
   * exception the job throws is rethrown here.
   * @throws std::bad_alloc, or what the job throws.
   */
  template <class R>
  auto run(std::function<result<R>()> job, std::chrono::milliseconds timeout, int interrupt_fd, errc on_timeout)
      -> result<R> {
    if (state_->done_fd < 0) return fail(errc::io_failed);
    const auto started = std::chrono::steady_clock::now();
    const auto left = [&] {
      const auto spent = std::chrono::steady_clock::now() - started;
      return std::max(std::chrono::milliseconds(0),
                      std::chrono::duration_cast<std::chrono::milliseconds>(timeout - spent));
    };
    // The previous call, given up on, may still run: it goes first, or this one does not start.
    while (busy()) {
      const auto end = wait_readable(state_->done_fd, interrupt_fd, left());
      if (end == wait_end::interrupted) return fail(errc::cancelled);
      if (end == wait_end::timed_out) return fail(on_timeout);
      drain(state_->done_fd);
    }
    drain(state_->done_fd);
    auto out = std::make_shared<outcome<R>>();
    std::function<void()> task = [job = std::move(job), out] {
      try {
        out->value = job();
      } catch (...) {
        out->error = std::current_exception();
      }
    };
    {
      const std::lock_guard lock{state_->mutex};
      state_->job = std::move(task);
      state_->busy = true;
    }
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread{[s = state_] { work(*s); }};
      } catch (const std::system_error&) {
        const std::lock_guard lock{state_->mutex};
        state_->job = nullptr;
        state_->busy = false;
        return fail(errc::io_failed);  // no thread to be had (EAGAIN): a transient fault like any other
      }
    }
    state_->wake.notify_one();
    for (;;) {
      const auto end = wait_readable(state_->done_fd, interrupt_fd, left());
      if (end == wait_end::interrupted) return fail(errc::cancelled);
      if (end == wait_end::timed_out) return fail(on_timeout);
      drain(state_->done_fd);
      if (busy()) continue;  // cannot happen: only this call's job signals now
      // The job's writes happened before the worker cleared `busy` under the mutex, which
      // busy() took after it: they are visible here.
      if (out->error) std::rethrow_exception(out->error);
      return std::move(*out->value);
    }
  }

 private:
  template <class R>
  struct outcome {
    std::optional<result<R>> value;
    std::exception_ptr error;
  };

  struct state {
    std::mutex mutex;
    std::condition_variable wake;
    std::function<void()> job;                               // the call to run next; empty when none is waiting
    bool busy = false;                                       // a call is waiting or running
    bool quit = false;                                       // the owner is gone: end when idle
    int done_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);  // readable after a call returned; -1: none

    state() = default;
    state(const state&) = delete;
    auto operator=(const state&) -> state& = delete;
    ~state() {
      if (done_fd >= 0) ::close(done_fd);
    }
  };

  static auto drain(int fd) noexcept -> void {
    std::uint64_t n = 0;
    while (::read(fd, &n, sizeof n) > 0) {
    }
  }

  static auto work(state& s) -> void {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock{s.mutex};
        s.wake.wait(lock, [&] { return static_cast<bool>(s.job) || s.quit; });
        if (!s.job) return;  // quit, and nothing left to run
        job = std::exchange(s.job, nullptr);
      }
      job();  // never throws: the task catches
      {
        const std::lock_guard lock{s.mutex};
        s.busy = false;
      }
      const std::uint64_t one = 1;
      static_cast<void>(::write(s.done_fd, &one, sizeof one));
    }
  }

  std::shared_ptr<state> state_;  // shared with the thread, which may outlive this object
  std::thread thread_;
};

}  // namespace replicant::detail

#endif  // REPLICANT_CORE_DETAIL_BOUNDED_CALL_HPP
