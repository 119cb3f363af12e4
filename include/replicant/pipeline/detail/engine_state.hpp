// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_ENGINE_STATE_HPP
#define REPLICANT_PIPELINE_DETAIL_ENGINE_STATE_HPP

// The engine's state for a pipeline's whole life, apart from its policies and its sink: the
// options, the signals that stop and wake the session thread, what has been acknowledged, and why
// the pipeline halted. The pipeline owns one; a session and its delivery reach the engine through
// it, never through the pipeline, so what they may touch is what this object holds.

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pipeline/detail/session_clock.hpp>
#include <replicant/pipeline/options.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <system_error>
#include <utility>
#include <variant>

namespace replicant::detail {

class engine_state {
 public:
  engine_state(pipeline_options opts, telemetry::dispatcher* dispatcher)
      : options(std::move(opts)),
        events(dispatcher),
        stop_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
        wake_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  engine_state(const engine_state&) = delete;
  auto operator=(const engine_state&) -> engine_state& = delete;
  ~engine_state() {
    if (stop_fd >= 0) ::close(stop_fd);
    if (wake_fd >= 0) ::close(wake_fd);
  }

  // Asks the session thread to end: sets `stopping` and makes both descriptors readable. Only
  // async-signal-safe calls (an atomic store, write(2) on an eventfd; a full counter is readable
  // anyway).
  auto signal_stop() noexcept -> void {
    stopping.store(true);
    const std::uint64_t one = 1;
    if (stop_fd >= 0) static_cast<void>(::write(stop_fd, &one, sizeof one));
    if (wake_fd >= 0) static_cast<void>(::write(wake_fd, &one, sizeof one));
  }

  // Wakes the session thread from its wait (a snapshot reader has a chunk ready).
  auto wake() noexcept -> void {
    const std::uint64_t one = 1;
    static_cast<void>(::write(wake_fd, &one, sizeof one));
  }

  // Waits @p d, or less once stop was signalled.
  auto sleep(std::chrono::milliseconds d) const noexcept -> void { static_cast<void>(readable(stop_fd, d)); }

  // Waits up to @p timeout for a wake-up (or a stop), and takes it.
  auto wait_for_wake(std::chrono::milliseconds timeout) const noexcept -> void {
    if (readable(wake_fd, timeout)) take_wake();
  }

  // Takes any wake-up pending, so that the next wait waits.
  auto take_wake() const noexcept -> void {
    std::uint64_t n = 0;
    while (::read(wake_fd, &n, sizeof n) > 0) {
    }
  }

  // Marks a checkpoint write in progress (or its end): a stop lets such a write finish, for a grace.
  auto writing(bool on) noexcept -> void { store_write_since.store(on ? ticks_now() : 0); }

  // Whether a checkpoint write is in progress.
  [[nodiscard]] auto writing() const noexcept -> bool { return store_write_since.load() != 0; }

  // Whether the checkpoint write in progress began more than @p grace ago.
  [[nodiscard]] auto writing_longer_than(std::chrono::steady_clock::duration grace) const noexcept -> bool {
    const auto since = store_write_since.load();
    return since != 0 && std::chrono::steady_clock::duration{ticks_now() - since} > grace;
  }

  // Calls user code outside a sink call (a hook, a checkpoint or spill policy's operation): an
  // exception it throws becomes the error `errc::sink_failed`, kept for run() to rethrow, so that
  // the caller halts with its own reason and the process never aborts.
  template <class Call>
  auto call_user(Call&& call) -> decltype(std::forward<Call>(call)()) {
    try {
      return std::forward<Call>(call)();
    } catch (...) {
      if (!sink_exception) sink_exception = std::current_exception();
      return fail(errc::sink_failed);
    }
  }

  // The position known durable: the last one acknowledged, or until a later one is, the checkpoint
  // the run resumed from.
  [[nodiscard]] auto durable_lsn() const noexcept -> lsn { return lsn{std::max(durable.load(), resumed_from.load())}; }

  // Stops for good: halts with @p h, and returns the error that says so.
  auto stop_for(halt h) -> unexpected<std::error_code> {
    halted = std::move(h);
    return fail(errc::halted);
  }

  // Stops for good for @p why, caused by @p cause.
  auto stop_for(halt_reason why, std::error_code cause = {}) -> unexpected<std::error_code> {
    return stop_for(to_halt(why, cause));
  }

  // How the engine opens a connection of its own: within the options' connect timeout, and
  // cancelled by a stop, while it connects and during its commands.
  [[nodiscard]] auto stoppable_connect() const noexcept -> pq::connect_options {
    pq::connect_options o;
    o.timeout = options.connect_timeout;
    o.cancel_fd = stop_fd;
    o.command_cancel_fd = stop_fd;
    return o;
  }

  // The start mode's settings when it is @p Mode, else null.
  template <class Mode>
  [[nodiscard]] auto start_as() const noexcept -> const Mode* {
    return std::get_if<Mode>(&options.start);
  }

  // Reports @p Event with @p fields, if a dispatcher was given.
  template <class Event, class... Fields>
  auto emit(const Fields&... fields) const noexcept -> void {
    if (events != nullptr) telemetry::emit<Event>(*events, fields...);
  }

  pipeline_options options;
  telemetry::dispatcher* events;
  std::optional<slot_name> slot;  // the options' slot, checked once run() begins
  int stop_fd = -1;               // readable once a stop was signalled; never drained
  int wake_fd = -1;               // wakes the session thread from its wait
  std::atomic<bool> stopping{false};
  std::atomic<bool> end_reached{false};        // stopping was set on reaching options.end_lsn
  std::atomic<std::uint64_t> durable{0};       // acknowledged; what the status updates report
  std::atomic<std::uint64_t> resumed_from{0};  // the checkpoint of the last connect or snapshot
  std::optional<lsn> checkpoint;               // the highest commit known durable
  std::optional<halt> halted;                  // why the pipeline halted, once it did
  bool never_connected = false;                // the last run() was stopped while no connect had ever succeeded
  std::exception_ptr sink_exception;           // what a sink (or a hook) threw, rethrown by run()
  session_clock clock;  // the sessions' timers and their policy's time (simulated under the simulator)

 private:
  // When the checkpoint write in progress began (steady_clock ticks), 0 when none.
  std::atomic<std::chrono::steady_clock::rep> store_write_since{0};

  static auto readable(int fd, std::chrono::milliseconds timeout) noexcept -> bool {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, timeout.count()))) > 0;
  }
  static auto ticks_now() noexcept -> std::chrono::steady_clock::rep {
    return std::chrono::steady_clock::now().time_since_epoch().count();
  }
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_ENGINE_STATE_HPP
