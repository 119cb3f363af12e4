// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_LIB_OWNED_HPP
#define REPLICANT_CHECKPOINT_LIB_OWNED_HPP

/// @file
/// replicant::lib_owned_checkpoint: the library keeps the checkpoint in a store, written after the
/// sink returned.

#include <replicant/checkpoint/policy.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/checkpoint/store.hpp>
#include <replicant/core/detail/fault_point.hpp>
#include <replicant/sink/concepts.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace replicant {

/// Batched checkpoint writes for @ref lib_owned_checkpoint. Delivery stays per transaction; the
/// checkpoint is written (and the slot acknowledged) once per batch.
struct checkpoint_batching {
  /// Write the checkpoint after this many delivered transactions (at least 1).
  std::size_t max_transactions = 100;
  /// ... or once the oldest delivered, unwritten transaction is this old (more than zero).
  std::chrono::milliseconds max_delay = std::chrono::seconds(1);
};

namespace detail {

/**
 * Runs one store operation @p op, retrying transient faults @p max_retries times, @p backoff apart.
 * On failure it has halted `checkpoint_store_failed` (with the store's SQLSTATE, when it reports
 * one), unless stop() came first: then it gives up quietly, and the caller's session ends anyway.
 */
template <class Sink, class Store, class Op>
auto with_store_retries(checkpoint_context<Sink>& ctx, Store& store, std::uint32_t max_retries,
                        std::chrono::milliseconds backoff, Op op) -> decltype(op()) {
  const auto started = std::chrono::steady_clock::now();
  for (std::uint32_t attempt = 0;; ++attempt) {
    auto r = op();
    if (r || ctx.stopping()) return r;
    const auto error_class = error_class_of(r.error());
    if (is_permanent_store_fault(r.error()) || attempt >= max_retries) {
      ctx.template emit<telemetry::events::checkpoint_store_failed>(
          telemetry::keys::duration = std::chrono::steady_clock::now() - started,
          telemetry::keys::slot_name = ctx.slot(), telemetry::keys::reason = halt_reason::checkpoint_store_failed,
          telemetry::keys::error_class = error_class);
      halt h = to_halt(halt_reason::checkpoint_store_failed, r.error());
      h.attempts = attempt + 1;
      if constexpr (reports_sqlstate<Store>) {
        if (const std::string_view state{store.last_sqlstate()}; !state.empty()) h.sqlstate = std::string{state};
      }
      static_cast<void>(ctx.halt_with(std::move(h)));
      return r;
    }
    ctx.template emit<telemetry::events::checkpoint_store_retrying>(
        telemetry::keys::slot_name = ctx.slot(), telemetry::keys::attempt = attempt + 1,
        telemetry::keys::max_retries = max_retries, telemetry::keys::error_class = error_class);
    ctx.sleep(backoff);
  }
}

}  // namespace detail

/**
 * Checkpoint policy: the library owns the checkpoint, for sinks that cannot store one atomically
 * with their data (files, object stores, message brokers, HTTP APIs).
 *
 * After `handle_transaction` returns, the pipeline writes the transaction's commit LSN to `store`
 * and only then acknowledges the slot. At every connect it resumes after the checkpoint read from
 * the store. The guarantee is **at-least-once**: a crash between the sink's return and the
 * checkpoint write delivers that transaction again (with `batch`, up to one batch of them), and
 * nothing is ever lost. It is not exactly-once: a sink that cannot skip what it already has will
 * hold a duplicate after such a crash.
 *
 * Store faults: a transient one (a lost connection, a server error, a failed file write) is retried
 * `max_retries` times, `retry_backoff` apart, then the pipeline halts `checkpoint_store_failed`;
 * a permanent one (@ref is_permanent_store_fault) halts at once. While the store is retried the
 * slot is not acknowledged past the last written checkpoint.
 *
 * Requires of the sink: `handle_transaction(const transaction&)` returning `result<void>` (or
 * `result<lsn>`, the commit LSN, as for @ref sink_owned_checkpoint). The sink must not declare
 * `checkpoint()`: the store's checkpoint is the only one.
 *
 * @tparam Store a @ref replicant::checkpoint_store "checkpoint_store", such as
 * @ref postgres_checkpoint_store, @ref file_checkpoint_store or the user's own.
 *
 * @par Example
 * @code
 * using policy = replicant::lib_owned_checkpoint<replicant::file_checkpoint_store>;
 * replicant::pipeline<replicant::pgoutput_decoder, policy, replicant::no_spill, my_sink> p{
 *     sink, pgoutput_options, policy{.store = replicant::file_checkpoint_store{"/var/lib/app/orders.checkpoint"}},
 *     options};
 * @endcode
 */
template <class Store>
struct lib_owned_checkpoint {
  static_assert(checkpoint_store<Store>,
                "replicant: lib_owned_checkpoint<Store>: Store must provide `result<std::optional<lsn>> "
                "read(const slot_name&)` and `result<void> write(const slot_name&, lsn)` (see checkpoint_store)");

  /// Where the checkpoint lives.
  Store store;
  /// Batched checkpoint writes; none writes the checkpoint after every transaction. Initialized
  /// here so that `policy{.store = ...}` leaves it out without a missing-initializer warning.
  std::optional<checkpoint_batching> batch{};
  /// Its checklist fails a `static_assert` for every sink `accepts` rejects (each case tested), so
  /// that a sink that does not fit reads this policy's sentence as the first error.
  static constexpr bool checklist_covers_acceptance = true;

  /// Transient store faults retried before halting (0 halts on the first).
  std::uint32_t max_retries = 5;
  /// Pause between two attempts.
  std::chrono::milliseconds retry_backoff = std::chrono::seconds(1);

  /// Whether the settings are usable.
  [[nodiscard]] auto valid() const noexcept -> bool {
    return retry_backoff.count() >= 0 && (!batch || (batch->max_transactions > 0 && batch->max_delay.count() > 0));
  }

  /// Ends a store call in progress on another thread (stop()), when the store can.
  auto interrupt() noexcept -> void {
    if constexpr (interruptible_store<Store>) store.interrupt();
  }

  /// Whether @p Sink fits: @ref replicant::lib_mode_sink.
  template <class Sink>
  static constexpr bool accepts = lib_mode_sink<Sink>;

  /// The sink checklist: one `static_assert` per member this policy requires or forbids, saying
  /// whether a required one is absent, declared with other parameters, or returns the wrong type.
  /// Returns true: what does not fit does not compile.
  template <class S>
  static constexpr auto check_sink() -> bool {
    static_assert(!detail::names_checkpoint<S>,
                  "replicant: lib_owned_checkpoint: the library owns the checkpoint, so Sink must not declare "
                  "checkpoint() (use sink_owned_checkpoint for a sink that stores its own)");
    static_assert(!detail::names_handle_batch<S> || detail::names_handle_transaction<S>,
                  "replicant: lib_owned_checkpoint delivers one transaction at a time: handle_batch is for "
                  "sink_owned_batches; provide `result<void> handle_transaction(const transaction&)`");
    static_assert(detail::names_handle_transaction<S> || detail::names_handle_batch<S>,
                  "replicant: lib_owned_checkpoint: Sink must provide `result<void> handle_transaction(const "
                  "transaction&)` (called once per committed transaction; the library writes the checkpoint "
                  "after it returns)");
    static_assert(!detail::names_handle_transaction<S> || detail::calls_handle_transaction<S>,
                  "replicant: lib_owned_checkpoint: Sink::handle_transaction must be `result<void> "
                  "handle_transaction(const transaction&)` (it cannot be called with a `const transaction&`)");
    static_assert(!detail::calls_handle_transaction<S> || detail::has_handle_transaction<S> ||
                      detail::has_handle_transaction_void<S>,
                  "replicant: lib_owned_checkpoint: Sink::handle_transaction has the wrong return type: it must "
                  "return `result<void>` (or `result<lsn>`, the commit LSN it persisted)");
    if constexpr (enable_incremental_snapshot<S>) {
      // A handle_snapshot that does not fit is the hooks' checklist's to report (check_hooks).
      static_assert(detail::names_handle_snapshot<S>,
                    "replicant: enable_incremental_snapshot: Sink must provide `result<void> handle_snapshot(const "
                    "snapshot_batch&, const snapshot_context&)` (receives each chunk of the snapshot)");
      static_assert(progress_store<Store>,
                    "replicant: enable_incremental_snapshot with lib_owned_checkpoint<Store>: Store must provide "
                    "`read_progress(const slot_name&)` and `write_progress(const slot_name&, std::string_view)` (see "
                    "progress_store)");
    }
    return true;
  }

  /// The behaviour: each transaction goes to `handle_transaction`; after it returns, the store is
  /// written (per transaction, or per batch), and only then is the transaction durable.
  template <class Sink>
  class delivery {
   public:
    /// One connection's delivery, over the policy's settings and store.
    explicit delivery(lib_owned_checkpoint& settings) noexcept : p_(settings) {}

    /// The store's checkpoint.
    auto resume(checkpoint_context<Sink>& ctx) -> result<std::optional<lsn>> {
      auto read = retried(ctx, [&] { return p_.store.read(ctx.slot()); });
      if (read) {
        if (*read) {
          ctx.template emit<telemetry::events::checkpoint_store_read>(telemetry::keys::slot_name = ctx.slot(),
                                                                      telemetry::keys::commit_lsn = **read);
        } else {
          ctx.template emit<telemetry::events::checkpoint_store_read>(telemetry::keys::slot_name = ctx.slot());
        }
      }
      return read;
    }

    /// Calls `handle_transaction`, then writes the checkpoint (or counts it towards the batch).
    auto deliver(checkpoint_context<Sink>& ctx, transaction&& t) -> result<void> {
      if (auto stored = detail::handle_transaction(ctx, std::as_const(t)); !stored) return stored;
      const lsn commit = t.commit_lsn();
      const lsn end = t.end_lsn();
      ctx.release(std::move(t));
      if (!unwritten_) {
        unwritten_ = unwritten{commit, commit, end, 0};
        if (p_.batch) due_ = ctx.now() + p_.batch->max_delay;
      }
      unwritten_->commit = commit;
      unwritten_->end = end;
      ++unwritten_->transactions;
      if (!p_.batch || unwritten_->transactions >= p_.batch->max_transactions) return write(ctx);
      return {};
    }
    /// Writes the batch's checkpoint once its oldest transaction has waited `max_delay`.
    auto tick(checkpoint_context<Sink>& ctx, std::chrono::steady_clock::time_point now) -> result<void> {
      if (due_ && now >= *due_) return write(ctx);
      return {};
    }
    /// Writes the checkpoint of what was delivered, if it is not written yet.
    auto flush(checkpoint_context<Sink>& ctx) -> result<void> { return write(ctx); }
    /// A snapshot's consistent point is the first checkpoint.
    auto snapshot_taken(checkpoint_context<Sink>& ctx, lsn at) -> result<void> {
      auto written = retried(ctx, [&] { return p_.store.write(ctx.slot(), at); });
      if (!written) return ctx.halted() ? written : fail(errc::cancelled);
      return {};
    }
    /// The incremental snapshot's progress, from the store.
    auto read_progress(checkpoint_context<Sink>& ctx) -> result<std::optional<std::string>>
      requires progress_store<Store>
    {
      return retried(ctx, [&] { return p_.store.read_progress(ctx.slot()); });
    }
    /// Writes the progress, after the sink stored a chunk (a crash in between reads it again).
    auto write_progress(checkpoint_context<Sink>& ctx, std::string_view token) -> result<void>
      requires progress_store<Store>
    {
      return retried(ctx, [&] { return p_.store.write_progress(ctx.slot(), token); });
    }
    /// Whether delivered transactions wait for their checkpoint write.
    [[nodiscard]] auto holding() const noexcept -> bool { return unwritten_.has_value(); }
    /// When the batch's checkpoint is written at the latest.
    [[nodiscard]] auto due() const noexcept -> std::optional<std::chrono::steady_clock::time_point> { return due_; }
    /// Delivered transactions are not held, only their positions.
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return 0; }

   private:
    // Delivered transactions whose checkpoint the store has not written.
    struct unwritten {
      lsn first_commit;
      lsn commit;
      lsn end;
      std::size_t transactions = 0;
    };

    template <class Op>
    auto retried(checkpoint_context<Sink>& ctx, Op op) -> decltype(op()) {
      return detail::with_store_retries(ctx, p_.store, p_.max_retries, p_.retry_backoff, op);
    }

    auto write(checkpoint_context<Sink>& ctx) -> result<void> {
      due_.reset();
      if (!unwritten_ || given_up_) return {};
      const auto w = *unwritten_;
      result<void> written;
      {
        const auto guard = ctx.durable_write();
        written = retried(ctx, [&] { return p_.store.write(ctx.slot(), w.commit); });
      }
      if (!written) {
        // Nothing past the last written checkpoint is acknowledged; it is delivered again later.
        if (ctx.halted()) return written;
        // stop() interrupted the store: the session is ending anyway, and the final flushes of a
        // stop must not wait for that store again.
        given_up_ = true;
        return {};
      }
      REPLICANT_FAULT_POINT("after_checkpoint_write");
      unwritten_.reset();
      ctx.template emit<telemetry::events::checkpoint_store_written>(telemetry::keys::slot_name = ctx.slot(),
                                                                     telemetry::keys::commit_lsn = w.commit);
      if (p_.batch) {
        ctx.template emit<telemetry::events::checkpoint_store_batch_flushed>(
            telemetry::keys::slot_name = ctx.slot(), telemetry::keys::commit_lsn = w.commit,
            telemetry::keys::change_count = w.transactions,
            telemetry::keys::byte_size = static_cast<std::uint64_t>(distance(w.first_commit, w.end)));
      }
      ctx.persisted(w.commit, w.end);
      return {};
    }

    lib_owned_checkpoint& p_;
    std::optional<unwritten> unwritten_;
    std::optional<std::chrono::steady_clock::time_point> due_;
    bool given_up_ = false;  // a store write failed while stopping: none is tried again
  };
};

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_LIB_OWNED_HPP
