// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_SINK_OWNED_HPP
#define REPLICANT_CHECKPOINT_SINK_OWNED_HPP

/// @file
/// replicant::sink_owned_checkpoint: the sink stores its checkpoint atomically with its data.

#include <replicant/checkpoint/policy.hpp>
#include <replicant/core/detail/fault_point.hpp>
#include <replicant/sink/concepts.hpp>

#include <chrono>
#include <optional>
#include <utility>

namespace replicant {

namespace detail {

// What every sink-owned policy requires for the incremental snapshot, when the sink opts in. A
// member of either name that does not fit is the hooks' checklist's to report (check_hooks), so
// these sentences are for absent members only.
template <class S>
constexpr auto check_sink_owned_progress() -> bool {
  if constexpr (enable_incremental_snapshot<S>) {
    static_assert(names_handle_snapshot<S>,
                  "replicant: enable_incremental_snapshot: Sink must provide `result<void> handle_snapshot(const "
                  "snapshot_batch&, const snapshot_context&)` (receives each chunk of the snapshot)");
    static_assert(names_snapshot_progress<S>,
                  "replicant: enable_incremental_snapshot: Sink must provide `result<std::optional<std::string>> "
                  "snapshot_progress()` (returns the progress token it stored atomically with its last chunk)");
  }
  return true;
}

// The operations every sink-owned delivery shares: the checkpoint is the sink's, read at connect;
// a snapshot's consistent point was stored by the sink itself (handle_snapshot_complete); the
// incremental snapshot's progress is the sink's too, stored with each chunk.
template <class Sink>
struct sink_owned_base {
  auto resume(checkpoint_context<Sink>& ctx) -> result<std::optional<lsn>> {
    return read_from_sink(ctx, [&] { return ctx.sink().checkpoint(); });
  }
  auto snapshot_taken(checkpoint_context<Sink>&, lsn) -> result<void> { return {}; }
  auto read_progress(checkpoint_context<Sink>& ctx) -> result<std::optional<std::string>>
    requires has_snapshot_progress<Sink>
  {
    return read_from_sink(ctx, [&] { return ctx.sink().snapshot_progress(); });
  }
  auto write_progress(checkpoint_context<Sink>&, std::string_view) -> result<void>
    requires has_snapshot_progress<Sink>
  {
    return {};
  }

 private:
  // What the sink reads back (its checkpoint, its progress); a failure halts sink_failed.
  template <class Read>
  static auto read_from_sink(checkpoint_context<Sink>& ctx, Read read) -> decltype(read()) {
    auto got = ctx.call_sink(read);
    if (!got) static_cast<void>(ctx.halt_with(to_halt(halt_reason::sink_failed, got.error())));
    return got;
  }
};

/**
 * Hands @p t to the sink's `handle_transaction` (one returning `result<lsn>`, which must be the
 * commit LSN, or `result<void>`), timed, between the crash points of the matrix; emits
 * `sink.committed`, or halts `sink_failed` (ctx.sink_failed). The transaction is not released.
 */
template <class Sink>
auto handle_transaction(checkpoint_context<Sink>& ctx, const transaction& t) -> result<void> {
  REPLICANT_FAULT_POINT("before_sink");
  const auto started = std::chrono::steady_clock::now();
  auto stored = ctx.call_sink([&]() -> result<void> {
    if constexpr (has_handle_transaction<Sink>) {
      auto r = ctx.sink().handle_transaction(t);
      if (!r) return unexpected(r.error());
      if (*r != t.commit_lsn()) return fail(errc::sink_failed);  // it persisted something else
      return {};
    } else {
      return ctx.sink().handle_transaction(t);
    }
  });
  const auto took = std::chrono::steady_clock::now() - started;
  if (!stored) return ctx.sink_failed(t.commit_lsn(), took, stored.error());
  REPLICANT_FAULT_POINT("after_sink");
  ctx.template emit<telemetry::events::sink_committed>(telemetry::keys::duration = took,
                                                       telemetry::keys::commit_lsn = t.commit_lsn());
  return {};
}

}  // namespace detail

/**
 * Checkpoint policy: the sink owns the checkpoint.
 *
 * The sink persists each transaction and its commit LSN in one atomic unit (for example, one
 * database transaction that upserts the rows and updates a checkpoint row), returns that LSN from
 * `handle_transaction`, and returns the stored one from `checkpoint()` at every connect. The slot
 * is acknowledged only up to what `handle_transaction` returned. With a sink that skips
 * `commit_lsn <= checkpoint` and upserts by key, the result is exactly-once in effect.
 *
 * Requires of the sink: `checkpoint()` and `handle_transaction(const transaction&)` returning
 * `result<lsn>` (the @ref replicant::sink concept).
 */
struct sink_owned_checkpoint {
  /// Its checklist fails a `static_assert` for every sink `accepts` rejects (each case tested), so
  /// that a sink that does not fit reads this policy's sentence as the first error.
  static constexpr bool checklist_covers_acceptance = true;

  /// Whether @p Sink fits: @ref replicant::sink.
  template <class Sink>
  static constexpr bool accepts = sink<Sink>;

  /// The sink checklist: one `static_assert` per member this policy requires, saying whether it
  /// is absent, declared with other parameters, or returns the wrong type. Returns true: what does
  /// not fit does not compile.
  template <class S>
  static constexpr auto check_sink() -> bool {
    static_assert(detail::names_checkpoint<S>,
                  "replicant: Sink must provide `result<std::optional<lsn>> checkpoint()` (returns the commit LSN "
                  "it last persisted durably, or std::nullopt; called on every connect to resume after it)");
    detail::check_checkpoint_declared<S>();
    static_assert(detail::names_handle_transaction<S>,
                  "replicant: Sink must provide `result<lsn> handle_transaction(const transaction&)` (called once "
                  "per committed transaction)");
    static_assert(!detail::names_handle_transaction<S> || detail::calls_handle_transaction<S>,
                  "replicant: Sink::handle_transaction must be `result<lsn> handle_transaction(const transaction&)` "
                  "(it cannot be called with a `const transaction&`)");
    static_assert(!detail::calls_handle_transaction<S> || detail::has_handle_transaction<S>,
                  "replicant: Sink::handle_transaction has the wrong return type: sink_owned_checkpoint needs it to "
                  "return `result<lsn>` (the commit LSN it persisted)");
    return detail::check_sink_owned_progress<S>();
  }

  /// The behaviour: each transaction goes to `handle_transaction`, and is durable when it returns
  /// its commit LSN. Nothing is held between transactions.
  template <class Sink>
  class delivery : public detail::sink_owned_base<Sink> {
   public:
    /// One connection's delivery.
    explicit delivery(sink_owned_checkpoint& /*settings*/) noexcept {}

    /// Calls `handle_transaction`; reports the transaction durable when it returns its commit LSN.
    auto deliver(checkpoint_context<Sink>& ctx, transaction&& t) -> result<void> {
      if (auto stored = detail::handle_transaction(ctx, std::as_const(t)); !stored) return stored;
      const lsn commit = t.commit_lsn();
      const lsn end = t.end_lsn();
      ctx.release(std::move(t));
      ctx.persisted(commit, end);
      return {};
    }
    /// Nothing waits for a timer.
    auto tick(checkpoint_context<Sink>&, std::chrono::steady_clock::time_point) -> result<void> { return {}; }
    /// Nothing is held.
    auto flush(checkpoint_context<Sink>&) -> result<void> { return {}; }
    /// Never holds a delivered transaction.
    [[nodiscard]] auto holding() const noexcept -> bool { return false; }
    /// Never waits for a timer.
    [[nodiscard]] auto due() const noexcept -> std::optional<std::chrono::steady_clock::time_point> {
      return std::nullopt;
    }
    /// Holds nothing.
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return 0; }
  };
};

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_SINK_OWNED_HPP
