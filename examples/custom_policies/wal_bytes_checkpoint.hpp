// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_CUSTOM_POLICIES_WAL_BYTES_CHECKPOINT_HPP
#define REPLICANT_EXAMPLES_CUSTOM_POLICIES_WAL_BYTES_CHECKPOINT_HPP

/// @file
/// A checkpoint policy written outside the library, against the public concept only
/// (`replicant/checkpoint/policy.hpp` and docs/checkpoint/writing_a_policy.md): the checkpoint is
/// kept in any `replicant::checkpoint_store` and written once the transactions delivered since the
/// last write span a number of bytes of WAL, rather than a number of transactions.
///
/// Why bytes: after a crash the server sends again everything after the last checkpoint written,
/// and the sink receives it again. What that costs is the amount of WAL, not the number of
/// transactions: a hundred one-row transactions and a hundred bulk loads differ a thousandfold.
/// Counting bytes bounds the work a crash repeats; the timer bounds how long a quiet stream goes
/// unacknowledged (the slot holds WAL on the server until it is).

#include <replicant/checkpoint/policy.hpp>
#include <replicant/checkpoint/store.hpp>
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
#include <cstdint>
#include <optional>
#include <system_error>
#include <utility>

namespace custom_policies {

/// What @ref wal_bytes_checkpoint requires of a sink: `s.handle_transaction(txn)` returns
/// `replicant::result<void>` once `txn` is durable in the sink.
template <class S>
concept takes_transactions = requires(S& s, const replicant::transaction& txn) {
  { s.handle_transaction(txn) } -> std::same_as<replicant::result<void>>;
};

/// What @ref wal_bytes_checkpoint forbids of a sink: a `checkpoint` member. The store's checkpoint
/// is the only one; a sink's own would be silently ignored, so it is refused instead.
template <class S>
concept declares_checkpoint = requires { &S::checkpoint; };

/// The policy's own halt reason: its store failed. Its name, message and operator action are
/// literals, so the halt stays value-free.
inline constexpr replicant::own_halt_reason wal_bytes_store_failed{
    "wal_bytes_store_failed", "the wal_bytes_checkpoint store could not read or write the checkpoint",
    "restore the checkpoint store (its file system, its database), then restart: delivery resumes at its checkpoint"};

/**
 * Checkpoint policy: the checkpoint lives in @p Store, and is written once the transactions
 * delivered since the last write reach `every_bytes` of WAL, or once the oldest of them has waited
 * `max_delay`, and at a stop.
 *
 * The rule: after each delivered transaction, when `replicant::distance(base, commit) >=
 * every_bytes`, where `commit` is its commit LSN and `base` the checkpoint last written (or read
 * at connect; with none yet, the first transaction delivered in this connection), the store is
 * written with `commit`. Only then is the transaction reported durable, so the slot is never
 * acknowledged past what the store holds.
 *
 * Guarantee: at least once. A crash delivers again what followed the last checkpoint written:
 * less than `every_bytes` of WAL (plus the transaction that crossed it), or `max_delay` worth of
 * transactions, whichever came first. A clean stop repeats nothing: the stop writes the checkpoint.
 *
 * Store faults: a read or write that fails halts at once for the policy's own reason,
 * @ref wal_bytes_store_failed (`halt_reason::policy_halted`), with the store's error as the cause (value-free: an error
 * code, never a path or a row), unless the pipeline is stopping, when the session ends anyway. Nothing is retried here:
 * the process's supervisor restarts it, and the restart resumes after the last checkpoint written, so nothing is lost.
 * (`replicant::lib_owned_checkpoint` shows how to retry transient faults.)
 *
 * Requires of the sink: `result<void> handle_transaction(const transaction&)`, and no
 * `checkpoint()` member (see @ref takes_transactions and @ref declares_checkpoint).
 *
 * @tparam Store a `replicant::checkpoint_store`: `replicant::file_checkpoint_store`,
 * `replicant::postgres_checkpoint_store`, or the user's own.
 *
 * @par Example
 * @code
 * using policy = custom_policies::wal_bytes_checkpoint<replicant::file_checkpoint_store>;
 * replicant::pgoutput_pipeline<my_sink, policy, replicant::disk_spill> p{
 *     sink, policy{.store = replicant::file_checkpoint_store{"orders.checkpoint"}, .every_bytes = 64U << 20U},
 *     replicant::disk_spill{}, options};
 * @endcode
 *
 * @par Thread safety
 * The pipeline uses the settings and the delivery from its delivering thread; `interrupt()` may be
 * called from any thread and from a signal handler (as `pipeline::stop()` is).
 */
template <class Store>
struct wal_bytes_checkpoint {
  static_assert(replicant::checkpoint_store<Store>,
                "custom_policies: wal_bytes_checkpoint<Store>: Store must be a replicant::checkpoint_store "
                "(`read(const slot_name&)` and `write(const slot_name&, lsn)`)");

  /// Where the checkpoint lives.
  Store store;
  /// Write the checkpoint once the delivered transactions span this many bytes of WAL (more than 0).
  std::uint64_t every_bytes = std::uint64_t{16} << 20U;
  /// ... or once the oldest delivered transaction not yet covered is this old (more than zero).
  std::chrono::milliseconds max_delay = std::chrono::seconds(5);

  /// Whether the settings are usable; the pipeline refuses to start otherwise.
  [[nodiscard]] auto valid() const noexcept -> bool { return every_bytes > 0 && max_delay.count() > 0; }

  /// Ends a store call in progress on another thread (what `pipeline::stop()` calls), when the
  /// store can: a store that hangs must not hold a stop.
  auto interrupt() noexcept -> void {
    if constexpr (replicant::interruptible_store<Store>) store.interrupt();
  }

  /// Its checklist below fails a `static_assert` for every sink `accepts` rejects: a user whose sink
  /// does not fit reads this policy's own sentence first, not the pipeline's generic one.
  static constexpr bool checklist_covers_acceptance = true;

  /// Whether @p Sink fits: it takes transactions, and keeps no checkpoint of its own.
  template <class Sink>
  static constexpr bool accepts = takes_transactions<Sink> && !declares_checkpoint<Sink>;

  /// The sink checklist: one `static_assert` per member this policy requires or forbids, so that
  /// a sink that does not fit is told what to change in one sentence.
  template <class S>
  static constexpr auto check_sink() -> bool {
    static_assert(!declares_checkpoint<S>,
                  "custom_policies: wal_bytes_checkpoint keeps the checkpoint in its store, so Sink must not "
                  "declare checkpoint() (it would be ignored)");
    static_assert(takes_transactions<S>,
                  "custom_policies: wal_bytes_checkpoint: Sink must provide `result<void> handle_transaction(const "
                  "transaction&)` (called once per committed transaction; the checkpoint is written after it "
                  "returns)");
    return true;
  }

  /**
   * The behaviour, for one connection: each transaction goes to the sink; the store is written
   * when the WAL-bytes rule, the timer or a stop says so, and only then are the transactions it
   * covers reported durable.
   */
  template <class Sink>
  class delivery {
   public:
    /// The context the pipeline gives each operation.
    using context = replicant::checkpoint_context<Sink>;
    /// The clock of `tick` and `due`.
    using clock = std::chrono::steady_clock;

    /// One connection's delivery, over the policy's settings (which outlive it).
    explicit delivery(wal_bytes_checkpoint& settings) noexcept : p_(settings) {}

    /// Where streaming resumes: the store's checkpoint, which is also the base of the rule.
    auto resume(context& ctx) -> replicant::result<std::optional<replicant::lsn>> {
      auto read = p_.store.read(ctx.slot());
      if (!read) {
        if (!ctx.stopping()) static_cast<void>(store_failed(ctx, read.error(), clock::now()));
        return read;
      }
      base_ = *read;
      if (*read) {
        ctx.template emit<replicant::telemetry::events::checkpoint_store_read>(
            replicant::telemetry::keys::slot_name = ctx.slot(), replicant::telemetry::keys::commit_lsn = **read);
      } else {
        ctx.template emit<replicant::telemetry::events::checkpoint_store_read>(replicant::telemetry::keys::slot_name =
                                                                                   ctx.slot());
      }
      return read;
    }

    /// Hands @p t to the sink; then writes the checkpoint if the transactions not yet covered
    /// span `every_bytes` of WAL.
    auto deliver(context& ctx, replicant::transaction&& t) -> replicant::result<void> {
      const auto started = clock::now();
      // call_sink turns an exception into an error (kept for run() to rethrow), and a spilled
      // transaction that cannot be read back into the spill's fault rather than the sink's.
      auto stored = ctx.call_sink([&] { return ctx.sink().handle_transaction(std::as_const(t)); });
      const auto took = clock::now() - started;
      if (!stored) return ctx.sink_failed(t.commit_lsn(), took, stored.error());
      ctx.template emit<replicant::telemetry::events::sink_committed>(
          replicant::telemetry::keys::duration = took, replicant::telemetry::keys::commit_lsn = t.commit_lsn());

      const replicant::lsn commit = t.commit_lsn();
      const replicant::lsn end = t.end_lsn();
      ctx.release(std::move(t));  // only the positions are needed from here on
      if (!base_) base_ = commit;
      if (!pending_) {
        pending_ = covered{commit, end, 0};
        due_ = ctx.now() + p_.max_delay;
      }
      pending_->commit = commit;
      pending_->end = end;
      ++pending_->transactions;
      if (span(commit) >= p_.every_bytes) return write(ctx);
      return {};
    }

    /// Writes the checkpoint once the oldest transaction not yet covered has waited `max_delay`.
    auto tick(context& ctx, clock::time_point now) -> replicant::result<void> {
      if (due_ && now >= *due_) return write(ctx);
      return {};
    }

    /// Writes the checkpoint of everything delivered (before a message or a schema change, and at
    /// a stop, so that a clean stop repeats nothing).
    auto flush(context& ctx) -> replicant::result<void> { return write(ctx); }

    /// A snapshot's consistent point is the first checkpoint: without it, a crash before the first
    /// write would stream from the slot's position with the snapshot's rows unaccounted for.
    auto snapshot_taken(context& ctx, replicant::lsn at) -> replicant::result<void> {
      const auto started = clock::now();
      replicant::result<void> written;
      {
        const auto guard = ctx.durable_write();
        written = p_.store.write(ctx.slot(), at);
      }
      if (!written) {
        if (ctx.stopping()) return replicant::fail(replicant::errc::cancelled);
        return store_failed(ctx, written.error(), started);
      }
      base_ = at;
      return {};
    }

    /// Whether delivered transactions wait for their checkpoint write.
    [[nodiscard]] auto holding() const noexcept -> bool { return pending_.has_value(); }
    /// When the checkpoint is written at the latest, while any transaction waits for it.
    [[nodiscard]] auto due() const noexcept -> std::optional<clock::time_point> { return due_; }
    /// Transactions are released once the sink has them: only their positions are held.
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return 0; }

   private:
    // The delivered transactions the store does not cover yet: the last one's positions.
    struct covered {
      replicant::lsn commit;
      replicant::lsn end;
      std::size_t transactions = 0;
    };

    // Bytes of WAL from the base to @p commit (never negative: positions only move forward).
    [[nodiscard]] auto span(replicant::lsn commit) const noexcept -> std::uint64_t {
      const auto d = replicant::distance(*base_, commit);
      return d > 0 ? static_cast<std::uint64_t>(d) : 0U;
    }

    // Writes the checkpoint of what is pending, then reports it durable.
    auto write(context& ctx) -> replicant::result<void> {
      due_.reset();
      if (!pending_ || given_up_) return {};
      const covered w = *pending_;
      const auto started = clock::now();
      replicant::result<void> written;
      {
        // stop() lets a write in progress finish for a short grace, so that a clean stop
        // acknowledges what was delivered, and only then interrupts the store.
        const auto guard = ctx.durable_write();
        written = p_.store.write(ctx.slot(), w.commit);
      }
      if (!written) {
        // Nothing past the last checkpoint written is acknowledged: the transactions pending now
        // are delivered again after a restart. While stopping the session ends anyway, and the
        // final flush must not try the store again.
        if (ctx.stopping()) {
          given_up_ = true;
          return {};
        }
        return store_failed(ctx, written.error(), started);
      }
      const auto spanned = span(w.commit);
      pending_.reset();
      base_ = w.commit;
      ctx.template emit<replicant::telemetry::events::checkpoint_store_written>(
          replicant::telemetry::keys::slot_name = ctx.slot(), replicant::telemetry::keys::commit_lsn = w.commit);
      ctx.template emit<replicant::telemetry::events::checkpoint_store_batch_flushed>(
          replicant::telemetry::keys::slot_name = ctx.slot(), replicant::telemetry::keys::commit_lsn = w.commit,
          replicant::telemetry::keys::change_count = w.transactions, replicant::telemetry::keys::byte_size = spanned);
      ctx.persisted(w.commit, w.end);
      return {};
    }

    // Halts for the policy's own reason, wal_bytes_store_failed, with the store's error @p ec as
    // the cause. Value-free: a halt carries codes, positions and the reason's literals only.
    auto store_failed(context& ctx, std::error_code ec, clock::time_point started) -> replicant::result<void> {
      const auto error_class = ec.category() == replicant::error_category() ? static_cast<replicant::errc>(ec.value())
                                                                            : replicant::errc::io_failed;
      ctx.template emit<replicant::telemetry::events::checkpoint_store_failed>(
          replicant::telemetry::keys::duration = clock::now() - started,
          replicant::telemetry::keys::slot_name = ctx.slot(),
          replicant::telemetry::keys::reason = replicant::halt_reason::policy_halted,
          replicant::telemetry::keys::error_class = error_class);
      replicant::halt h = replicant::halt_for(wal_bytes_store_failed, ec);
      h.attempts = 1;
      return ctx.halt_with(std::move(h));
    }

    wal_bytes_checkpoint& p_;
    std::optional<replicant::lsn> base_;  // the last checkpoint written or read; else the first commit
    std::optional<covered> pending_;
    std::optional<clock::time_point> due_;
    bool given_up_ = false;  // a write failed while stopping: none is tried again
  };
};

}  // namespace custom_policies

#endif  // REPLICANT_EXAMPLES_CUSTOM_POLICIES_WAL_BYTES_CHECKPOINT_HPP
