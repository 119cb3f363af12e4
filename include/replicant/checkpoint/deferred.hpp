// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_DEFERRED_HPP
#define REPLICANT_CHECKPOINT_DEFERRED_HPP

/// @file
/// replicant::deferred_checkpoint: the sink accepts a transaction at once and confirms later, from
/// any thread, that it is durable (what a broker sink needs); the pipeline acknowledges the highest
/// contiguous confirmed commit.

#include <replicant/checkpoint/policy.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/core/detail/fault_point.hpp>
#include <replicant/sink/concepts.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>

namespace replicant {

namespace detail {

/**
 * The transactions handed to a deferred sink and not yet resolved, in commit order, shared with
 * every @ref confirmation of them. A confirmation resolves its entry from any thread; the
 * pipeline's thread collects the confirmed prefix.
 */
class confirmation_window {
 public:
  using clock = std::chrono::steady_clock;

  /// How one handed-off transaction stands.
  enum class state : std::uint8_t { pending, confirmed, failed, abandoned };

  /// One handed-off transaction.
  struct entry {
    lsn commit;
    lsn end;
    std::size_t bytes = 0;
    clock::time_point handed;
    state now = state::pending;
    std::error_code error;
  };

  /// What collect() found.
  struct collected {
    std::optional<entry> last_confirmed;  // the end of the confirmed prefix, now removed
    std::size_t confirmed = 0;            // how many were removed
    std::optional<entry> failed;          // the first failed or abandoned entry, if any
    std::optional<entry> overdue;         // the first pending entry older than the timeout, if any
  };

  /// Adds a transaction about to be handed off (@p as pending), or one that will never be
  /// (abandoned); returns its sequence number.
  auto add(lsn commit, lsn end, std::size_t bytes, clock::time_point now, state as = state::pending) -> std::uint64_t {
    const std::scoped_lock lock{mutex_};
    entries_.push_back(entry{commit, end, bytes, now, as, {}});
    bytes_ += bytes;
    return first_ + entries_.size() - 1;
  }

  /// Resolves entry @p seq: confirmed when @p error is empty, failed otherwise. The first
  /// resolution wins; an entry already collected, or of an older connection, is ignored.
  auto resolve(std::uint64_t seq, std::error_code error) noexcept -> void {
    try {
      {
        const std::scoped_lock lock{mutex_};
        if (seq < first_ || seq - first_ >= entries_.size()) return;
        entry& e = entries_[static_cast<std::size_t>(seq - first_)];
        if (e.now != state::pending) return;
        e.now = error ? state::failed : state::confirmed;
        e.error = error;
        ++changes_;
      }
      changed_.notify_all();
    } catch (...) {  // a mutex that cannot be locked: the entry stays pending, and times out
    }
  }

  /// Removes the confirmed prefix and reports it, with the first failure and the first entry
  /// pending for longer than @p timeout.
  auto collect(clock::time_point now, std::chrono::milliseconds timeout) -> collected {
    collected out;
    const std::scoped_lock lock{mutex_};
    seen_ = changes_;
    while (!entries_.empty() && entries_.front().now == state::confirmed) {
      out.last_confirmed = entries_.front();
      bytes_ -= entries_.front().bytes;
      entries_.pop_front();
      ++first_;
      ++out.confirmed;
    }
    for (const entry& e : entries_) {
      if (!out.failed && (e.now == state::failed || e.now == state::abandoned)) out.failed = e;
      if (!out.overdue && e.now == state::pending && now - e.handed > timeout) out.overdue = e;
    }
    return out;
  }

  /// Marks every pending entry abandoned: nothing from the first of them on can be acknowledged.
  auto abandon_pending() noexcept -> void {
    const std::scoped_lock lock{mutex_};
    for (entry& e : entries_) {
      if (e.now == state::pending) e.now = state::abandoned;
    }
  }

  /// Waits until an entry is resolved after the last collect(), or until @p until. (A resolution
  /// between the two is not missed: it counts as one after.)
  auto wait(clock::time_point until) -> void {
    std::unique_lock lock{mutex_};
    changed_.wait_until(lock, until, [&] { return changes_ != seen_; });
  }

  /// Unresolved entries, and their bytes.
  [[nodiscard]] auto size() const -> std::pair<std::size_t, std::size_t> {
    const std::scoped_lock lock{mutex_};
    return {entries_.size(), bytes_};
  }
  /// When the oldest entry was handed off, if there is one.
  [[nodiscard]] auto oldest() const -> std::optional<clock::time_point> {
    const std::scoped_lock lock{mutex_};
    if (entries_.empty()) return std::nullopt;
    return entries_.front().handed;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<entry> entries_;
  std::uint64_t first_ = 0;  // the sequence number of entries_.front()
  std::size_t bytes_ = 0;
  std::uint64_t changes_ = 0;  // resolutions so far
  std::uint64_t seen_ = 0;     // ... as of the last collect()
};

}  // namespace detail

/**
 * The handle a deferred sink receives with each transaction, to report later, from any thread,
 * that the transaction is durable (confirm()) or that it never will be (fail()).
 *
 * Copyable and cheap (a shared pointer and a number). Only the first call of either member counts;
 * a call after the connection ended is ignored (the transaction is delivered again after the
 * reconnect). A handle that is dropped without either call leaves the transaction pending until
 * the policy's timeout halts the pipeline.
 *
 * @par Thread safety
 * Every member may be called from any thread, concurrently with the pipeline; neither blocks for
 * long nor throws.
 */
class confirmation {
 public:
  /// A handle for entry @p seq of @p window (made by the pipeline).
  confirmation(std::shared_ptr<detail::confirmation_window> window, std::uint64_t seq, lsn commit) noexcept
      : window_(std::move(window)), seq_(seq), commit_(commit) {}

  /// The transaction is durable in the sink: it may be acknowledged once every transaction before
  /// it is too.
  auto confirm() const noexcept -> void { window_->resolve(seq_, {}); }

  /// The transaction will never be durable (a rejected publish, say): the pipeline halts
  /// `sink_failed` with @p error as the cause, and acknowledges nothing from it on. An empty
  /// @p error counts as `errc::sink_failed`.
  auto fail(std::error_code error) const noexcept -> void {
    window_->resolve(seq_, error ? error : make_error_code(errc::sink_failed));
  }

  /// The commit LSN of the transaction this handle is for.
  [[nodiscard]] auto commit_lsn() const noexcept -> lsn { return commit_; }

 private:
  std::shared_ptr<detail::confirmation_window> window_;
  std::uint64_t seq_ = 0;
  lsn commit_;
};

namespace detail {

/// Atom (deferred acknowledgement): `s.handle_transaction(txn, confirmation)` returns
/// `result<void>` at once; the sink confirms through the handle later.
template <class S>
concept has_handle_transaction_deferred = requires(S& s, const transaction& txn, confirmation c) {
  { s.handle_transaction(txn, c) } -> std::same_as<result<void>>;
};

// Callable with the transaction and its confirmation, whatever it returns.
template <class S>
concept calls_handle_transaction_deferred =
    requires(S& s, const transaction& txn, confirmation c) { s.handle_transaction(txn, c); };

}  // namespace detail

/**
 * A type the pipeline can deliver to under @ref replicant::deferred_checkpoint "deferred_checkpoint".
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `s.checkpoint()` | `result<std::optional<lsn>>` | The commit LSN of the last transaction the sink knows durable (a broker sink: read back from the broker), or `std::nullopt`. Called at every connect; streaming resumes after it. |
 * | `s.handle_transaction(txn, c)` | `result<void>` | Takes `txn` (copying what it needs: `txn` is valid during the call only) and returns at once; later, from any thread, calls `c.confirm()` once it is durable, or `c.fail(ec)`. An error returned here halts at once. |
 */
template <class S>
concept deferred_sink = detail::has_checkpoint<S> && detail::has_handle_transaction_deferred<S>;

/**
 * Checkpoint policy: deferred acknowledgement. The sink accepts each transaction at once and
 * confirms later, from its own threads, that it is durable — what a sink that publishes to a
 * broker asynchronously needs (a producer's delivery report confirms).
 *
 * **Guarantees.**
 * - The slot is acknowledged only up to the highest commit whose transaction, and every one before
 *   it, was confirmed: confirmations may arrive in any order, and a gap holds everything after it.
 * - At most `max_unconfirmed` transactions, and `max_unconfirmed_bytes` of their size, are out at
 *   once. When either bound is reached the pipeline stops reading and waits for confirmations: it
 *   paces, it does not halt.
 * - A transaction not confirmed within `confirm_timeout` halts `sink_failed` (cause
 *   `std::errc::timed_out`); one whose delivery the sink reports failed halts `sink_failed` with
 *   the sink's error. Either way nothing from it on is acknowledged, whatever was confirmed after it.
 * - At a stop the pipeline waits (up to `confirm_timeout`) for what is out, so that a clean stop
 *   acknowledges everything the sink confirmed; what is still unconfirmed is delivered again.
 * - After a reconnect or a crash, streaming resumes after `checkpoint()`: transactions handed off
 *   but not acknowledged are delivered again, so the sink's target must deduplicate (a broker's
 *   message ids derived from the commit LSN do). Exactly-once in effect, as for
 *   @ref sink_owned_checkpoint, when it does.
 *
 * Requires of the sink: `checkpoint()` and `handle_transaction(const transaction&, confirmation)`
 * (the @ref replicant::deferred_sink concept).
 *
 * @par Example
 * @code
 * replicant::pipeline<replicant::pgoutput_decoder, replicant::deferred_checkpoint, replicant::no_spill, broker_sink>
 *     p{sink, pgoutput_options, replicant::deferred_checkpoint{.max_unconfirmed = 10'000}, options};
 * @endcode
 */
struct deferred_checkpoint {
  /// Most transactions out (handed off, not yet confirmed) at once (at least 1).
  std::size_t max_unconfirmed = 1000;
  /// Most bytes of transactions out at once; 0: half the resident budget (`max_inflight_bytes`).
  std::size_t max_unconfirmed_bytes = 0;
  /// Longest a transaction may wait for its confirmation (more than zero).
  std::chrono::milliseconds confirm_timeout = std::chrono::seconds(30);

  /// Whether the settings are usable.
  [[nodiscard]] auto valid() const noexcept -> bool { return max_unconfirmed > 0 && confirm_timeout.count() > 0; }

  /// Its checklist fails a `static_assert` for every sink `accepts` rejects (each case tested), so
  /// that a sink that does not fit reads this policy's sentence as the first error.
  static constexpr bool checklist_covers_acceptance = true;

  /// Whether @p Sink fits: @ref replicant::deferred_sink.
  template <class Sink>
  static constexpr bool accepts = deferred_sink<Sink>;

  /// The sink checklist: one `static_assert` per member this policy requires, saying whether it
  /// is absent, declared with other parameters, or returns the wrong type. Returns true: what does
  /// not fit does not compile.
  template <class S>
  static constexpr auto check_sink() -> bool {
    static_assert(detail::names_checkpoint<S>,
                  "replicant: deferred_checkpoint: Sink must provide `result<std::optional<lsn>> checkpoint()` "
                  "(returns the commit LSN it last knows durable, or std::nullopt; called on every connect)");
    detail::check_checkpoint_declared<S>();
    static_assert(detail::names_handle_transaction<S>,
                  "replicant: deferred_checkpoint: Sink must provide `result<void> handle_transaction(const "
                  "transaction&, confirmation)` (takes the transaction and returns at once; confirms later)");
    static_assert(!detail::names_handle_transaction<S> || detail::calls_handle_transaction_deferred<S>,
                  "replicant: deferred_checkpoint: Sink::handle_transaction must be `result<void> "
                  "handle_transaction(const transaction&, confirmation)` (it confirms each transaction later, "
                  "through the confirmation)");
    static_assert(!detail::calls_handle_transaction_deferred<S> || detail::has_handle_transaction_deferred<S>,
                  "replicant: deferred_checkpoint: Sink::handle_transaction has the wrong return type: it must return "
                  "`result<void>` (it returns at once; the confirmation says when the transaction is durable)");
    return detail::check_sink_owned_progress<S>();
  }

  /// The behaviour: hand off, collect confirmations, acknowledge the contiguous confirmed prefix.
  template <class Sink>
  class delivery : public detail::sink_owned_base<Sink> {
   public:
    /// The clock of hand-offs and timeouts.
    using clock = std::chrono::steady_clock;

    /// One connection's delivery, with a window of its own.
    explicit delivery(deferred_checkpoint& settings)
        : settings_(settings), window_(std::make_shared<detail::confirmation_window>()) {}
    delivery(const delivery&) = delete;
    auto operator=(const delivery&) -> delivery& = delete;
    /// Confirmations that arrive after the connection ended are ignored.
    ~delivery() { window_->abandon_pending(); }

    /// Waits for room in the window, then hands @p t to the sink with its confirmation.
    auto deliver(checkpoint_context<Sink>& ctx, transaction&& t) -> result<void> {
      auto room = make_room(ctx);
      if (!room) return unexpected(room.error());
      const lsn commit = t.commit_lsn();
      const auto bytes = t.byte_size() + static_cast<std::size_t>(t.spilled_bytes());
      const auto started = clock::now();
      if (!*room) {
        // Stopped while waiting for room: never handed off, so nothing from it on is acknowledged.
        window_->add(commit, t.end_lsn(), bytes, started, detail::confirmation_window::state::abandoned);
        ctx.release(std::move(t));
        return {};
      }
      const auto seq = window_->add(commit, t.end_lsn(), bytes, started);
      REPLICANT_FAULT_POINT("before_sink");
      auto handed = ctx.call_sink(
          [&] { return ctx.sink().handle_transaction(std::as_const(t), confirmation{window_, seq, commit}); });
      if (!handed) {
        window_->resolve(seq, handed.error());
        return ctx.sink_failed(commit, clock::now() - started, handed.error());
      }
      REPLICANT_FAULT_POINT("after_sink");
      ctx.release(std::move(t));
      return collect(ctx);
    }
    /// Acknowledges what was confirmed since; halts on a failure or an overdue confirmation.
    auto tick(checkpoint_context<Sink>& ctx, clock::time_point) -> result<void> { return collect(ctx); }
    /// At a stop: waits for what is out (each up to the timeout), then acknowledges it. Otherwise
    /// (before a message or a schema change) nothing needs to wait: the sink has it in order.
    auto flush(checkpoint_context<Sink>& ctx) -> result<void> {
      if (ctx.stopping()) {
        if (auto r = collect(ctx, overdue::wait); !r) return r;
        for (auto oldest = window_->oldest(); oldest; oldest = window_->oldest()) {
          const auto deadline = *oldest + settings_.confirm_timeout;
          if (clock::now() >= deadline) break;
          window_->wait(deadline);
          if (auto r = collect(ctx, overdue::wait); !r || ctx.halted()) return r;
        }
        // What is still out when the stop ends is not acknowledged, and comes again next time:
        // a stop is no reason to halt.
        return collect(ctx, overdue::wait);
      }
      return collect(ctx);
    }
    /// Whether handed-off transactions wait for their confirmation.
    [[nodiscard]] auto holding() const noexcept -> bool { return window_->size().first > 0; }
    /// Soon, while anything is out: confirmations arrive on other threads, and are collected then.
    [[nodiscard]] auto due() const noexcept -> std::optional<clock::time_point> {
      if (!holding()) return std::nullopt;
      return next_collect_;
    }
    /// The sink holds the transactions, not the pipeline.
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return 0; }

   private:
    // How often confirmations are collected while some are out.
    static constexpr auto collect_interval = std::chrono::milliseconds(10);

    [[nodiscard]] auto full() const -> bool {
      const auto [count, bytes] = window_->size();
      const auto max_bytes = settings_.max_unconfirmed_bytes != 0 ? settings_.max_unconfirmed_bytes : budget_ / 2;
      return count >= settings_.max_unconfirmed || (count > 0 && bytes >= max_bytes);
    }

    // Pacing: waits until the window has room, collecting as confirmations arrive. False when a
    // stop came first (deliver() then hands nothing off).
    auto make_room(checkpoint_context<Sink>& ctx) -> result<bool> {
      budget_ = ctx.budget();
      for (;;) {
        if (auto r = collect(ctx); !r) return unexpected(r.error());
        if (!full()) return true;
        if (ctx.stopping()) return false;
        const auto oldest = window_->oldest().value_or(clock::now());
        window_->wait(std::min(oldest + settings_.confirm_timeout, clock::now() + std::chrono::milliseconds(100)));
      }
    }

    // What an overdue confirmation means: a halt, or (while stopping) only that it is not acknowledged.
    enum class overdue : bool { halts, wait };

    // Acknowledges the confirmed prefix; halts on the first failure or overdue confirmation.
    auto collect(checkpoint_context<Sink>& ctx, overdue late = overdue::halts) -> result<void> {
      if (ctx.halted()) return fail(errc::halted);
      const auto now = clock::now();
      next_collect_ = now + collect_interval;
      const auto got = window_->collect(now, settings_.confirm_timeout);
      if (got.last_confirmed) {
        ctx.template emit<telemetry::events::sink_committed>(
            telemetry::keys::duration = now - got.last_confirmed->handed,
            telemetry::keys::commit_lsn = got.last_confirmed->commit);
        ctx.persisted(got.last_confirmed->commit, got.last_confirmed->end);
      }
      if (got.failed && got.failed->now == detail::confirmation_window::state::failed) {
        return ctx.sink_failed(got.failed->commit, now - got.failed->handed, got.failed->error);
      }
      if (got.overdue && late == overdue::halts) {
        return ctx.sink_failed(got.overdue->commit, now - got.overdue->handed,
                               std::make_error_code(std::errc::timed_out));
      }
      return {};
    }

    deferred_checkpoint& settings_;
    std::shared_ptr<detail::confirmation_window> window_;
    std::size_t budget_ = 0;
    clock::time_point next_collect_{};  // when what was confirmed meanwhile is collected next
  };
};

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_DEFERRED_HPP
