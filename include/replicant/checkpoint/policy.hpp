// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_POLICY_HPP
#define REPLICANT_CHECKPOINT_POLICY_HPP

/// @file
/// The checkpoint-policy family: what a model provides (`replicant::checkpoint_policy_for`), and
/// what the pipeline gives it to work with (`replicant::checkpoint_context`).
///
/// A checkpoint policy decides who owns the checkpoint and when a delivered transaction becomes
/// acknowledgeable. It is a settings type `P` with a nested class template `P::delivery<Sink>`
/// that carries the behaviour: the pipeline makes one delivery per connection and calls its
/// operations, and never asks which policy it holds. docs/checkpoint/writing_a_policy.md is the
/// requirements page, with an exemplar.

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace replicant {

namespace detail {

/**
 * The pipeline's side of a delivery: what a checkpoint policy may ask of the engine. Implemented
 * by the engine once per connection; a policy reaches it only through @ref checkpoint_context.
 * (Virtual, so that a policy is not a template of the engine's own types, and the per-call cost
 * is one indirect call.)
 */
class delivery_services {
 public:
  delivery_services() = default;
  delivery_services(const delivery_services&) = delete;
  auto operator=(const delivery_services&) -> delivery_services& = delete;
  virtual ~delivery_services() = default;

  /// The transactions up to @p commit, ending at @p end, are durable: acknowledgeable.
  virtual auto persisted(lsn commit, lsn end) -> void = 0;
  /// Hands a delivered transaction's buffers back for reuse.
  virtual auto release(transaction&& t) noexcept -> void = 0;
  /// Halts the pipeline with @p h (the first halt wins).
  virtual auto halt_with(halt h) -> void = 0;
  /// Whether a halt was decided in this session.
  [[nodiscard]] virtual auto halted() const noexcept -> bool = 0;
  /// Keeps a sink's exception for run() to rethrow.
  virtual auto keep_exception(std::exception_ptr e) noexcept -> void = 0;
  /// The first failed read-back of a spilled transaction in this session, if any (our fault, not
  /// the sink's): recorded by the transaction itself as the sink iterates it.
  [[nodiscard]] virtual auto spill_failure() const noexcept -> std::error_code = 0;
  /// Sleeps for @p d, or until stop().
  virtual auto sleep(std::chrono::milliseconds d) noexcept -> void = 0;
  /// Whether stop() was called.
  [[nodiscard]] virtual auto stopping() const noexcept -> bool = 0;
  /// A durable write (a store's) begins (@p on) or ends: stop() lets one in progress finish.
  virtual auto writing(bool on) noexcept -> void = 0;
  /// The replication slot's name.
  [[nodiscard]] virtual auto slot() const noexcept -> const slot_name& = 0;
  /// The resident budget, `pipeline_options::max_inflight_bytes`.
  [[nodiscard]] virtual auto budget() const noexcept -> std::size_t = 0;
  /// Where telemetry goes; null when nobody listens.
  [[nodiscard]] virtual auto events() const noexcept -> telemetry::dispatcher* = 0;
  /// The session's clock: the steady clock, or the simulator's.
  [[nodiscard]] virtual auto now() const noexcept -> std::chrono::steady_clock::time_point = 0;
};

}  // namespace detail

/**
 * What the pipeline gives a checkpoint policy's delivery: the sink, the slot, telemetry, halting,
 * and the one way to report that a position is durable.
 *
 * A context lives for one connection and is used on the pipeline's delivering thread only.
 *
 * @tparam Sink the user's sink.
 *
 * @par Thread safety
 * Not thread-safe: every member is called on the thread that calls the delivery's operations.
 */
template <class Sink>
class checkpoint_context {
 public:
  /// A context over the engine's @p services and the user's @p sink.
  checkpoint_context(detail::delivery_services& services, Sink& sink) noexcept : services_(services), sink_(sink) {}

  /// The user's sink.
  [[nodiscard]] auto sink() const noexcept -> Sink& { return sink_; }
  /// The replication slot's name (for a store's key).
  [[nodiscard]] auto slot() const noexcept -> const slot_name& { return services_.slot(); }
  /// The resident budget in bytes (`pipeline_options::max_inflight_bytes`): what a policy that
  /// holds transactions must stay well under.
  [[nodiscard]] auto budget() const noexcept -> std::size_t { return services_.budget(); }
  /// Whether stop() was called: a policy that waits or retries gives up soon after.
  [[nodiscard]] auto stopping() const noexcept -> bool { return services_.stopping(); }
  /**
   * The session's time, which `due()` and `tick()` are measured against: the steady clock in a
   * pipeline, the simulated time under replicant::testing::explore, where a deadline computed
   * from it fires when the schedule lets time pass (and the same way on every replay).
   */
  [[nodiscard]] auto now() const noexcept -> std::chrono::steady_clock::time_point { return services_.now(); }

  /**
   * Calls the sink through @p call: an exception it throws becomes the error `errc::sink_failed`
   * (and is kept, for run() to rethrow after the pipeline stopped). A spilled transaction that
   * could not be read back while the sink iterated it makes the call fail too, even when the sink
   * returned success (it may have stored part of a transaction), so that nothing from it on is
   * acknowledged; @ref sink_failed then reports `spill_io_failed` instead of blaming the sink.
   */
  template <class Call>
  auto call_sink(Call&& call) -> decltype(std::forward<Call>(call)()) {
    try {
      auto r = std::forward<Call>(call)();
      if (r && services_.spill_failure()) return fail(errc::sink_failed);
      return r;
    } catch (...) {
      services_.keep_exception(std::current_exception());
      return fail(errc::sink_failed);
    }
  }

  /**
   * Reports that every transaction up to @p commit (whose commit record ends at @p end) is durable.
   * The pipeline may then acknowledge @p end to the server (never past a PREPARE still outstanding),
   * and skips anything the server sends again at or below @p commit.
   *
   * *Pre:* @p commit was delivered, and nothing up to it is lost in a crash from now on.
   * Positions only move forward: a lower one than before is ignored.
   */
  auto persisted(lsn commit, lsn end) -> void { services_.persisted(commit, end); }

  /// Gives a transaction the policy no longer needs back to the pipeline, which reuses its buffers.
  auto release(transaction&& t) noexcept -> void { services_.release(std::move(t)); }

  /**
   * Halts with `sink_failed` at @p at after a sink call that took @p took failed with @p cause
   * (or with `spill_io_failed`, when the failure was reading a spilled transaction back). The
   * pipeline emits `sink.failed`, with @p took, when the run ends. Returns the error the policy's
   * operation returns, whatever its result type: `return ctx.sink_failed(...);` from `deliver` and
   * from `resume` alike.
   */
  auto sink_failed(lsn at, std::chrono::steady_clock::duration took, std::error_code cause)
      -> unexpected<std::error_code> {
    if (const auto spill = services_.spill_failure()) {
      halt h = detail::to_halt(halt_reason::spill_io_failed, spill);
      h.at = at;
      return halt_with(std::move(h));
    }
    halt h = detail::to_halt(halt_reason::sink_failed, cause);
    h.at = at;
    h.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(took);
    return halt_with(std::move(h));
  }

  /// Halts with @p h (value-free by construction), returning the error the policy's operation
  /// returns, whatever its result type: `return ctx.halt_with(h);` from `resume` (a
  /// `result<std::optional<lsn>>`) as from `deliver` (a `result<void>`). Nothing past the last
  /// position reported to persisted() is ever acknowledged.
  auto halt_with(halt h) -> unexpected<std::error_code> {
    services_.halt_with(std::move(h));
    return fail(errc::halted);
  }

  /// Whether this connection has halted (by the policy or otherwise).
  [[nodiscard]] auto halted() const noexcept -> bool { return services_.halted(); }

  /// Sleeps for @p d, or until stop(): for a policy's retry backoff.
  auto sleep(std::chrono::milliseconds d) noexcept -> void { services_.sleep(d); }

  /**
   * Marks a durable write in progress (a checkpoint store's) for as long as the guard lives:
   * stop() lets such a write finish for a short grace, so that a clean stop repeats nothing,
   * then interrupts it through the policy's `interrupt()`, if it has one.
   */
  class write_guard {
   public:
    /// Marks the write as begun.
    explicit write_guard(detail::delivery_services& s) noexcept : s_(s) { s_.writing(true); }
    write_guard(const write_guard&) = delete;
    auto operator=(const write_guard&) -> write_guard& = delete;
    /// Marks it as ended.
    ~write_guard() { s_.writing(false); }

   private:
    detail::delivery_services& s_;
  };
  /// A @ref write_guard for the write about to begin.
  [[nodiscard]] auto durable_write() noexcept -> write_guard { return write_guard{services_}; }

  /// Emits the telemetry event @p Event with @p fields (the catalog decides which are allowed).
  template <class Event, class... Fields>
  auto emit(const Fields&... fields) noexcept -> void {
    if (auto* d = services_.events()) telemetry::emit<Event>(*d, fields...);
  }

 private:
  detail::delivery_services& services_;
  Sink& sink_;
};

namespace detail {

/// The delivery of checkpoint policy @p P for sink @p Sink.
template <class P, class Sink>
using delivery_of = typename P::template delivery<Sink>;

/// Atom: `P::delivery<Sink>` exists and is made from an lvalue of `P`.
template <class P, class Sink>
concept has_delivery =
    requires { typename P::template delivery<Sink>; } && std::constructible_from<delivery_of<P, Sink>, P&>;

/// Atom: `d.resume(ctx)` returns `result<std::optional<lsn>>`: where streaming resumes.
template <class D, class Sink>
concept delivery_resumes = requires(D& d, checkpoint_context<Sink>& ctx) {
  { d.resume(ctx) } -> std::same_as<result<std::optional<lsn>>>;
};

/// Atom: `d.deliver(ctx, std::move(t))` returns `result<void>`: one committed transaction.
template <class D, class Sink>
concept delivery_delivers = requires(D& d, checkpoint_context<Sink>& ctx, transaction&& t) {
  { d.deliver(ctx, std::move(t)) } -> std::same_as<result<void>>;
};

/// Atom: `d.tick(ctx, now)` returns `result<void>`: time passed (a timer's flush).
template <class D, class Sink>
concept delivery_ticks = requires(D& d, checkpoint_context<Sink>& ctx, std::chrono::steady_clock::time_point now) {
  { d.tick(ctx, now) } -> std::same_as<result<void>>;
};

/// Atom: `d.flush(ctx)` returns `result<void>`: hand over everything held.
template <class D, class Sink>
concept delivery_flushes = requires(D& d, checkpoint_context<Sink>& ctx) {
  { d.flush(ctx) } -> std::same_as<result<void>>;
};

/// Atom: `d.snapshot_taken(ctx, at)` returns `result<void>`: a snapshot's consistent point is
/// where the run starts.
template <class D, class Sink>
concept delivery_takes_snapshots = requires(D& d, checkpoint_context<Sink>& ctx, lsn at) {
  { d.snapshot_taken(ctx, at) } -> std::same_as<result<void>>;
};

/// Atom: `d.holding()`, `d.due()` and `d.resident_bytes()`: what the delivery holds, and until when.
template <class D>
concept delivery_reports = requires(const D& d) {
  { d.holding() } noexcept -> std::same_as<bool>;
  { d.due() } noexcept -> std::same_as<std::optional<std::chrono::steady_clock::time_point>>;
  { d.resident_bytes() } noexcept -> std::same_as<std::size_t>;
};

/// Atom: `P::check_sink<Sink>()` is a constant expression: the policy's checklist for a sink.
template <class P, class Sink>
concept has_sink_checklist = requires {
  { P::template check_sink<Sink>() } -> std::same_as<bool>;
};

/// Atom: `P::accepts<Sink>` is a `bool` constant: whether the sink fits the policy.
template <class P, class Sink>
concept has_acceptance = requires {
  { P::template accepts<Sink> } -> std::convertible_to<bool>;
};

/// Optional: `p.valid()`: whether the policy's settings are usable (checked before connecting).
template <class P>
concept checks_settings = requires(const P& p) {
  { p.valid() } -> std::same_as<bool>;
};

/// Optional: `p.interrupt()`: ends a durable write in progress on another thread (stop()).
template <class P>
concept interruptible_policy = requires(P& p) {
  { p.interrupt() } noexcept;
};

/// Optional: the delivery keeps an incremental snapshot's progress (`read_progress`, `write_progress`).
template <class D, class Sink>
concept keeps_snapshot_progress = requires(D& d, checkpoint_context<Sink>& ctx, std::string_view token) {
  { d.read_progress(ctx) } -> std::same_as<result<std::optional<std::string>>>;
  { d.write_progress(ctx, token) } -> std::same_as<result<void>>;
};

/// Whether policy @p P declares `static constexpr bool checklist_covers_acceptance = true`: its
/// `check_sink<Sink>()` fails a `static_assert` for every sink its `accepts<Sink>` rejects (the
/// library's policies do, each case tested). Then a sink it rejects has been told why in the
/// policy's own sentence, and the pipeline does not say it again.
template <class P>
inline constexpr bool checklist_covers_acceptance = requires { requires P::checklist_covers_acceptance; };

/// Whether @p P's delivery for @p Sink provides every operation (for the concept).
template <class P, class Sink>
constexpr auto delivery_complete() noexcept -> bool {
  if constexpr (has_delivery<P, Sink>) {
    using D = delivery_of<P, Sink>;
    return delivery_resumes<D, Sink> && delivery_delivers<D, Sink> && delivery_ticks<D, Sink> &&
           delivery_flushes<D, Sink> && delivery_takes_snapshots<D, Sink> && delivery_reports<D>;
  } else {
    return false;
  }
}

}  // namespace detail

/**
 * A checkpoint policy for sink @p Sink: a type whose nested `delivery<Sink>` carries the whole
 * behaviour (where a run resumes, what delivering a transaction does, which position becomes
 * durable and when, what a timer tick and a stop flush), and which states what it requires of a
 * sink (`accepts<Sink>`, with one sentence per member in `check_sink<Sink>()`).
 *
 * The library's models are @ref replicant::sink_owned_checkpoint "sink_owned_checkpoint",
 * @ref replicant::sink_owned_batches "sink_owned_batches",
 * @ref replicant::lib_owned_checkpoint "lib_owned_checkpoint" and
 * @ref replicant::deferred_checkpoint "deferred_checkpoint"; a user's own model is written against
 * this concept and docs/checkpoint/writing_a_policy.md, and works like them.
 *
 * @tparam P the policy (its settings).
 * @tparam Sink the sink it delivers to.
 */
template <class P, class Sink>
concept checkpoint_policy_for = std::move_constructible<P> && detail::has_sink_checklist<P, Sink> &&
                                detail::has_acceptance<P, Sink> && detail::delivery_complete<P, Sink>();

namespace detail {

/**
 * The checklist for a checkpoint policy: one `static_assert` per operation, each naming what is
 * missing in a plain sentence, then, once the policy itself is complete, the policy's own checklist
 * for the sink (a sink cannot be judged by a policy that lacks part of its behaviour).
 *
 * @return true: what does not fit does not compile, each time with its own sentence. (Returning
 * whether the sink fits would make the caller's `static_assert` fail a second time, bare, after
 * the sentence that says why.)
 */
template <class P, class Sink>
constexpr auto check_checkpoint_policy() -> bool {
  static_assert(std::move_constructible<P>,
                "replicant: CheckpointPolicy must be move-constructible (the pipeline "
                "keeps its own copy of the settings)");
  static_assert(has_delivery<P, Sink>,
                "replicant: CheckpointPolicy must provide `template <class Sink> class delivery`, constructible "
                "from `CheckpointPolicy&` (carries the policy's behaviour for one connection)");
  static_assert(has_sink_checklist<P, Sink>,
                "replicant: CheckpointPolicy must provide `template <class Sink> static constexpr bool check_sink()` "
                "(one static_assert per sink member it requires)");
  static_assert(has_acceptance<P, Sink>,
                "replicant: CheckpointPolicy must provide `template <class Sink> static constexpr bool accepts` "
                "(whether a sink fits the policy)");
  if constexpr (has_delivery<P, Sink>) {
    using D = delivery_of<P, Sink>;
    static_assert(delivery_resumes<D, Sink>,
                  "replicant: CheckpointPolicy::delivery must provide `result<std::optional<lsn>> "
                  "resume(checkpoint_context<Sink>&)` (where a run resumes: the sink's checkpoint, or a store's)");
    static_assert(delivery_delivers<D, Sink>,
                  "replicant: CheckpointPolicy::delivery must provide `result<void> "
                  "deliver(checkpoint_context<Sink>&, transaction&&)` (what delivering a committed transaction does)");
    static_assert(delivery_ticks<D, Sink>,
                  "replicant: CheckpointPolicy::delivery must provide `result<void> tick(checkpoint_context<Sink>&, "
                  "std::chrono::steady_clock::time_point)` (what time passing does, e.g. a timer's flush)");
    static_assert(delivery_flushes<D, Sink>,
                  "replicant: CheckpointPolicy::delivery must provide `result<void> flush(checkpoint_context<Sink>&)` "
                  "(hands over everything held: before a message, a schema change, and at a stop)");
    static_assert(delivery_takes_snapshots<D, Sink>,
                  "replicant: CheckpointPolicy::delivery must provide `result<void> "
                  "snapshot_taken(checkpoint_context<Sink>&, lsn)` (a snapshot's consistent point becomes the "
                  "checkpoint)");
    static_assert(delivery_reports<D>,
                  "replicant: CheckpointPolicy::delivery must provide `bool holding() const noexcept`, "
                  "`std::optional<std::chrono::steady_clock::time_point> due() const noexcept` and `std::size_t "
                  "resident_bytes() const noexcept` (what it holds, and until when)");
  }
  if constexpr (checkpoint_policy_for<P, Sink>) {
    static_cast<void>(P::template check_sink<Sink>());
    // A policy that declares its checklist complete says every reason in check_sink; one that does
    // not (or whose checklist misses a requirement of its acceptance) still does not compile.
    static_assert(checklist_covers_acceptance<P> || P::template accepts<Sink>,
                  "replicant: CheckpointPolicy::accepts<Sink> rejects this Sink: the policy's check_sink<Sink>() "
                  "says why, or misses a requirement of accepts");
  }
  return true;
}

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_POLICY_HPP
