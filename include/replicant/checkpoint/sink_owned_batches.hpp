// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_SINK_OWNED_BATCHES_HPP
#define REPLICANT_CHECKPOINT_SINK_OWNED_BATCHES_HPP

/// @file
/// replicant::sink_owned_batches: the sink persists whole batches of transactions, each atomically
/// with its checkpoint.

#include <replicant/checkpoint/policy.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/core/detail/fault_point.hpp>
#include <replicant/sink/concepts.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace replicant {

/**
 * Checkpoint policy: the sink owns the checkpoint and receives committed transactions in batches.
 *
 * The pipeline collects committed transactions and hands them to `handle_batch` in ascending
 * `commit_lsn` order. The sink persists all of their rows and the batch's highest commit LSN in one
 * atomic unit (one database transaction) and returns that LSN; `checkpoint()` returns the stored
 * one at every connect. Like @ref sink_owned_checkpoint this is exactly-once in effect, with one
 * commit per batch instead of one per transaction.
 *
 * A batch is handed over when it holds `max_transactions` transactions, when its first transaction
 * has waited `max_delay`, when it holds half of the resident budget (`max_inflight_bytes`, so that
 * pacing never waits for a timer), before a non-transactional message or a schema change (so that
 * the sink sees events in commit order), and when the pipeline stops. A failed batch (error result
 * or exception) halts `sink_failed`: nothing of it is acknowledged, and all of it is delivered again
 * after a restart.
 *
 * Requires of the sink: `checkpoint()` and `handle_batch(std::span<const transaction>)`; a
 * `handle_transaction` member, if any, is not called.
 *
 * @par Example
 * @code
 * replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_batches, replicant::no_spill, my_sink>
 *     p{sink, pgoutput_options, replicant::sink_owned_batches{.max_transactions = 500}, options};
 * @endcode
 */
struct sink_owned_batches {
  /// Most transactions in one batch (at least 1).
  std::size_t max_transactions = 100;
  /// Longest a transaction waits in an unfinished batch (more than zero).
  std::chrono::milliseconds max_delay = std::chrono::seconds(1);

  /// Whether the settings are usable.
  [[nodiscard]] auto valid() const noexcept -> bool { return max_transactions > 0 && max_delay.count() > 0; }

  /// Its checklist fails a `static_assert` for every sink `accepts` rejects (each case tested), so
  /// that a sink that does not fit reads this policy's sentence as the first error.
  static constexpr bool checklist_covers_acceptance = true;

  /// Whether @p Sink fits: @ref replicant::batch_sink.
  template <class Sink>
  static constexpr bool accepts = batch_sink<Sink>;

  /// The sink checklist: one `static_assert` per member this policy requires, saying whether it
  /// is absent, declared with other parameters, or returns the wrong type. Returns true: what does
  /// not fit does not compile.
  template <class S>
  static constexpr auto check_sink() -> bool {
    static_assert(detail::names_checkpoint<S>,
                  "replicant: Sink must provide `result<std::optional<lsn>> checkpoint()` (returns the commit LSN "
                  "of the last batch it persisted, or std::nullopt; called on every connect to resume after it)");
    detail::check_checkpoint_declared<S>();
    static_assert(detail::names_handle_batch<S>,
                  "replicant: sink_owned_batches: Sink must provide `result<lsn> handle_batch(std::span<const "
                  "transaction>)` (persists the batch and its highest commit LSN atomically)");
    static_assert(!detail::names_handle_batch<S> || detail::calls_handle_batch<S>,
                  "replicant: Sink::handle_batch must be `result<lsn> handle_batch(std::span<const transaction>)` (it "
                  "cannot be called with a `std::span<const transaction>`)");
    static_assert(!detail::calls_handle_batch<S> || detail::has_handle_batch<S>,
                  "replicant: Sink::handle_batch has the wrong return type: it must return `result<lsn>` (the highest "
                  "commit LSN of the batch)");
    return detail::check_sink_owned_progress<S>();
  }

  /// The behaviour: transactions are collected, then handed to `handle_batch` together; the batch
  /// is durable when it returns the highest commit LSN.
  template <class Sink>
  class delivery : public detail::sink_owned_base<Sink> {
   public:
    /// One connection's delivery, with the policy's settings.
    explicit delivery(sink_owned_batches& settings) noexcept : settings_(settings) {}

    /// Adds @p t to the batch; hands the batch over when it is full.
    auto deliver(checkpoint_context<Sink>& ctx, transaction&& t) -> result<void> {
      if (batch_.empty()) due_ = ctx.now() + settings_.max_delay;
      bytes_ += t.byte_size();
      batch_.push_back(std::move(t));
      // Half the resident budget, in bytes held or in WAL spanned: the pipeline can go on reading
      // while the sink works, and pacing never has to wait for the timer.
      const auto cap = ctx.budget() / 2;
      const auto span = static_cast<std::size_t>(distance(batch_.front().commit_lsn(), batch_.back().end_lsn()));
      if (batch_.size() >= settings_.max_transactions || bytes_ >= cap || span >= cap) {
        return hand_over(ctx, telemetry::kind::batch_full);
      }
      REPLICANT_FAULT_POINT("mid_batch");
      return {};
    }
    /// Hands the batch over once its first transaction has waited `max_delay`.
    auto tick(checkpoint_context<Sink>& ctx, std::chrono::steady_clock::time_point now) -> result<void> {
      if (due_ && now >= *due_) return hand_over(ctx, telemetry::kind::batch_timer);
      return {};
    }
    /// Hands the batch over now.
    auto flush(checkpoint_context<Sink>& ctx) -> result<void> { return hand_over(ctx, telemetry::kind::batch_drain); }
    /// Whether a batch is being collected.
    [[nodiscard]] auto holding() const noexcept -> bool { return !batch_.empty(); }
    /// When the batch being collected is handed over at the latest.
    [[nodiscard]] auto due() const noexcept -> std::optional<std::chrono::steady_clock::time_point> { return due_; }
    /// Bytes the batch holds.
    [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t { return bytes_; }

   private:
    auto hand_over(checkpoint_context<Sink>& ctx, telemetry::kind why) -> result<void> {
      due_.reset();
      if (batch_.empty()) return {};
      REPLICANT_FAULT_POINT("before_sink");
      const auto started = std::chrono::steady_clock::now();
      auto stored = ctx.call_sink([&] { return ctx.sink().handle_batch(std::span<const transaction>{batch_}); });
      const auto took = std::chrono::steady_clock::now() - started;
      const lsn last = batch_.back().commit_lsn();
      if (!stored || *stored != last) {
        return ctx.sink_failed(batch_.front().commit_lsn(), took,
                               stored ? make_error_code(errc::sink_failed) : stored.error());
      }
      REPLICANT_FAULT_POINT("after_sink");
      std::size_t changes = 0;
      for (const auto& t : batch_) changes += t.change_count();
      ctx.template emit<telemetry::events::sink_batch_committed>(
          telemetry::keys::duration = took, telemetry::keys::commit_lsn = last, telemetry::keys::change_count = changes,
          telemetry::keys::reason = why);
      ctx.persisted(last, batch_.back().end_lsn());
      for (auto& t : batch_) ctx.release(std::move(t));
      batch_.clear();
      bytes_ = 0;
      return {};
    }

    sink_owned_batches& settings_;
    std::vector<transaction> batch_;
    std::size_t bytes_ = 0;
    std::optional<std::chrono::steady_clock::time_point> due_;
  };
};

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_SINK_OWNED_BATCHES_HPP
