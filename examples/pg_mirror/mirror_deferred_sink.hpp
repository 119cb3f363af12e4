// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_DEFERRED_SINK_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_DEFERRED_SINK_HPP

/// @file
/// The mirror's fourth sink, for `deferred_checkpoint` (`--checkpoint deferred`): it takes each
/// transaction at once, and a worker thread of its own applies it and confirms it afterwards.

#include "../common/stop_signal.hpp"
#include "mirror_error.hpp"
#include "mirror_target.hpp"
#include "options.hpp"

#include <replicant/checkpoint/deferred.hpp>
#include <replicant/core/detail/fault_point.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/transaction.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace replicant::examples::pg_mirror {

/**
 * A @ref replicant::deferred_sink (`deferred_checkpoint`) that mirrors into a target PostgreSQL
 * database, exactly once in effect: the target transactions are those of @ref mirror_sink, but a
 * worker thread runs them, and the pipeline goes on meanwhile.
 *
 * **Hand-off.** handle_transaction() builds the statements that apply the transaction
 * (mirror_target::plan(): the SQL text and the values, owned, because the transaction is valid
 * during the call only), queues them with the confirmation, and returns. The policy's window
 * (`--max-unconfirmed`) bounds the queue: the pipeline hands nothing more off while that many are
 * unconfirmed.
 *
 * **The worker.** It applies the queued transactions in order, on a target connection of its own,
 * each in one target transaction with the claim (as mirror_sink: the checkpoint row moves forwards
 * only; zero rows claimed means applied before, and the transaction is skipped), and confirms each
 * one after its `COMMIT` (or its skip). A target error fails the confirmation instead, and the
 * worker applies nothing more of that connection: a transaction applied after a failed one would
 * move the claim past it, and the failed one would never be applied.
 *
 * **The checkpoint.** checkpoint() reads the claim row on the program's own connection. It is
 * called at every connect: the transactions of the previous connection still queued are dropped
 * then (the pipeline delivers them again after the checkpoint; their confirmations count no more).
 * The worker may still be committing one of them meanwhile: if the read misses it, it comes again
 * and its claim turns it away. So no transaction is lost or applied twice, whatever is killed when.
 *
 * **Test hooks.** A @ref confirmation_hook (`--test-confirmations`, test-only) makes the worker
 * confirm out of order, drop a confirmation or report a failure after a later confirmation, for the
 * deferred policy's crash matrix. A build with `REPLICANT_FAULT_INJECTION` also has the crash point
 * `mirror_before_confirm`: committed, not confirmed.
 *
 * @par Thread safety
 * checkpoint() and handle_transaction() on the pipeline's thread, one at a time (as the policy
 * calls them); counts(), retryable(), sqlstate() and hook_actions() from any thread. The worker is
 * joined by the destructor, after the transaction it is applying.
 */
class mirror_deferred_sink {
 public:
  /**
   * A sink that reads the checkpoint and builds plans through @p target (which must outlive it),
   * and applies them through @p worker (a target of its own: its connection is the worker's), with
   * @p hook for the tests. Starts the worker.
   * @throws std::system_error when the thread cannot be started.
   */
  mirror_deferred_sink(mirror_target& target, mirror_target worker, confirmation_hook hook = {})
      : target_(target),
        worker_target_(std::move(worker)),
        hook_(hook),
        worker_([this](std::stop_token stop) { work(stop); }) {}
  mirror_deferred_sink(const mirror_deferred_sink&) = delete;
  auto operator=(const mirror_deferred_sink&) -> mirror_deferred_sink& = delete;
  ~mirror_deferred_sink() = default;  // worker_ goes first: stopped and joined

  /// The commit LSN stored for this slot, or none. A new connection starts: what the previous one
  /// queued and the worker did not take yet is dropped (it comes again after this checkpoint).
  [[nodiscard]] auto checkpoint() -> result<std::optional<lsn>> {
    {
      const std::scoped_lock lock{mutex_};
      ++generation_;
      queue_.clear();
      retryable_ = false;
      sqlstate_.clear();
    }
    auto stored = target_.read_checkpoint();
    if (!stored) {
      const std::scoped_lock lock{mutex_};
      retryable_ = target_.retryable();
      sqlstate_ = target_.sqlstate();
    }
    return stored;
  }

  /// Builds the statements of @p t and queues them for the worker with @p done; returns at once.
  /// @return nothing, or the error of a statement that cannot be built, or of the catalog read
  ///         that building may need (nothing is queued then).
  [[nodiscard]] auto handle_transaction(const transaction& t, confirmation done) -> result<void> {
    target_.check_delivery(t.commit_lsn());
    auto plan = target_.plan(t);
    std::unique_lock lock{mutex_};
    if (!plan) {
      // A statement that cannot be built is not retryable; a lost connection while reading a key is.
      retryable_ = target_.retryable();
      sqlstate_ = target_.sqlstate();
      return unexpected(plan.error());
    }
    if (failed_ == generation_) {
      // The worker failed an earlier transaction of this connection: nothing after it may be
      // applied. The policy halts at the first failure, whichever it collects.
      const auto why = failure_;
      lock.unlock();
      done.fail(why);
      return {};
    }
    queue_.push_back(item{std::move(*plan), std::move(done), generation_});
    lock.unlock();
    ready_.notify_one();
    return {};
  }

  /// What the worker did so far. Never throws.
  [[nodiscard]] auto counts() const -> mirror_counts {
    const std::scoped_lock lock{mutex_};
    return counts_;
  }
  /// Whether the last failure of this connection (the worker's, or the checkpoint read's) was a
  /// lost connection or a transient server condition, as mirror_target::retryable().
  [[nodiscard]] auto retryable() const -> bool {
    const std::scoped_lock lock{mutex_};
    return retryable_;
  }
  /// The SQLSTATE of that failure, when the target reported one.
  [[nodiscard]] auto sqlstate() const -> std::string {
    const std::scoped_lock lock{mutex_};
    return sqlstate_;
  }
  /// How often the test hook acted: pairs confirmed in reverse, confirmations dropped, failures
  /// reported.
  [[nodiscard]] auto hook_actions() const -> std::uint64_t {
    const std::scoped_lock lock{mutex_};
    return hook_actions_;
  }

 private:
  // One transaction handed off: its statements, its confirmation, and the connection it came on.
  struct item {
    transaction_plan plan;
    confirmation done;
    std::uint64_t generation = 0;
  };

  // The worker's loop: one queued transaction at a time, in order.
  auto work(const std::stop_token& stop) -> void {
    // The stop signals are the pipeline's thread's business (running_pipeline_scope blocks them
    // there once run() returned); a handler running here could outlive the pipeline it stops.
    stop_signal::block();
    std::unique_lock lock{mutex_};
    for (;;) {
      if (queue_.empty() && held_) {
        // swap-pairs: nothing follows for now; a held confirmation is not kept waiting.
        lock.unlock();
        std::exchange(held_, std::nullopt)->confirm();
        lock.lock();
        continue;
      }
      if (!ready_.wait(lock, stop, [&] { return !queue_.empty(); })) return;
      item it = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      process(it);
      lock.lock();
    }
  }

  // Applies @p it with the claim, then confirms it (or fails it), as the hook says.
  auto process(item& it) -> void {
    bool applied = false;
    auto done = worker_target_.transact([&]() -> result<bool> {
      auto claimed = worker_target_.claim(it.plan.commit);
      if (!claimed) return claimed;
      if (!*claimed) {
        worker_target_.skipped();
        return false;
      }
      if (auto a = worker_target_.apply(it.plan); !a) return unexpected(a.error());
      applied = true;
      return true;
    });
    {
      const std::scoped_lock lock{mutex_};
      counts_ = worker_target_.counts();
    }
    if (!done) {
      give_held();  // committed before this one: durable
      if (failing_) {
        auto n = std::exchange(failing_, std::nullopt);
        failed(*n, make_error_code(mirror_errc::failure_injected), false, {});
      }
      failed(it, done.error(), worker_target_.retryable(), worker_target_.sqlstate());
      return;
    }
    if (applied) {
      // The crash matrix's kill between hand-off and confirmation: committed, not confirmed.
      REPLICANT_FAULT_POINT("mirror_before_confirm");
      ++applied_;
    }
    confirm(it, applied);
  }

  // Confirms @p it, or does what the test hook says instead.
  auto confirm(item& it, bool applied) -> void {
    using kind = confirmation_hook::kind;
    if (failing_) {
      // fail:N: the one after N is confirmed, then N is reported failed.
      it.done.confirm();
      auto n = std::exchange(failing_, std::nullopt);
      acted();
      failed(*n, make_error_code(mirror_errc::failure_injected), false, {});
      return;
    }
    const bool nth = applied && applied_ == hook_.nth;
    if (hook_.what == kind::drop && nth) {
      acted();  // never confirmed: the policy's confirm_timeout halts
      return;
    }
    if (hook_.what == kind::fail_after_next && nth) {
      failing_ = std::move(it);
      return;
    }
    if (hook_.what == kind::swap_pairs) {
      if (held_) {
        it.done.confirm();
        give_held();
        acted();
        return;
      }
      bool more = false;
      {
        const std::scoped_lock lock{mutex_};
        more = !queue_.empty();
      }
      if (more) {
        held_ = std::move(it.done);  // confirmed after the next one
        return;
      }
    }
    it.done.confirm();
  }

  // A held confirmation (swap-pairs), given now.
  auto give_held() -> void {
    if (held_) std::exchange(held_, std::nullopt)->confirm();
  }

  // Fails @p it with @p ec (@p retry and @p state: as mirror_target's retryable() and sqlstate()
  // say) and applies nothing more of its connection: its queued successors are
  // dropped, and later hand-offs are failed at once (see handle_transaction()).
  auto failed(item& it, std::error_code ec, bool retry, std::string state) -> void {
    {
      const std::scoped_lock lock{mutex_};
      if (it.generation == generation_ && failed_ != generation_) {
        failed_ = it.generation;
        failure_ = ec;
        retryable_ = retry;
        sqlstate_ = std::move(state);
        queue_.clear();  // every queued item is of this connection
      }
    }
    it.done.fail(ec);
  }

  auto acted() -> void {
    const std::scoped_lock lock{mutex_};
    ++hook_actions_;
  }

  mirror_target& target_;                // the pipeline's thread: checkpoint(), plan()
  mirror_target worker_target_;          // the worker's own connection
  const confirmation_hook hook_;         // tests only
  std::uint64_t applied_ = 0;            // worker: transactions applied by this process
  std::optional<confirmation> held_;     // worker: swap-pairs, confirmed after the next one
  std::optional<item> failing_;          // worker: fail:N, failed after the next one's confirmation
  mutable std::mutex mutex_;             // guards what follows
  std::condition_variable_any ready_;    // the queue has an item
  std::deque<item> queue_;               // handed off, not taken by the worker yet, in order
  std::uint64_t generation_ = 0;         // the connection: one more at every checkpoint()
  std::optional<std::uint64_t> failed_;  // the connection whose transaction failed, if any
  std::error_code failure_;              // ... and why
  bool retryable_ = false;               // the last failure, as mirror_target::retryable()
  std::string sqlstate_;                 // ... and its SQLSTATE
  mirror_counts counts_;                 // the worker's, as of its last target transaction
  std::uint64_t hook_actions_ = 0;       // how often the test hook acted
  std::jthread worker_;                  // last: stopped and joined before the members it uses go
};

static_assert(replicant::deferred_sink<mirror_deferred_sink>);

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_DEFERRED_SINK_HPP
