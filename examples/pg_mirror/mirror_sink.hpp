// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_SINK_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_SINK_HPP

/// @file
/// Three of the mirror's four sinks, one per kind of checkpoint policy. Each wraps the same core,
/// mirror_target::apply(), in target transactions of its own shape:
///
/// | sink | policy | one target transaction holds | guarantee |
/// |---|---|---|---|
/// | mirror_sink | `sink_owned_checkpoint` | claim + one source transaction | exactly once |
/// | mirror_batch_sink | `sink_owned_batches` | lock + a batch + checkpoint | exactly once |
/// | mirror_lib_sink | `lib_owned_checkpoint<Store>` | one source transaction | at least once |
/// | mirror_deferred_sink | `deferred_checkpoint` | claim + one source transaction, on a worker thread | exactly once |
///
/// The fourth, which needs a thread, is in mirror_deferred_sink.hpp.

#include "mirror_target.hpp"

#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/sink/vocabulary.hpp>

#include <optional>
#include <span>

namespace replicant::examples::pg_mirror {

/**
 * A @ref replicant::sink (`sink_owned_checkpoint`) that mirrors into a target PostgreSQL database,
 * exactly once in effect.
 *
 * **The atomic unit.** For each source transaction, one target transaction:
 * 1. *claim*: move this slot's row of `replicant_mirror_checkpoint` to the transaction's commit
 *    LSN, only forwards (mirror_target::claim()). Zero rows changed means the transaction was
 *    applied before: roll back and report it done. The claim locks the row, so a target
 *    transaction a killed predecessor left in flight is waited for, and its outcome seen;
 * 2. apply it (mirror_target::apply());
 * 3. `COMMIT`.
 *
 * Data and checkpoint commit together or not at all. So after any crash, kill or lost connection,
 * the stored checkpoint says exactly which transactions took effect; checkpoint() returns it, the
 * pipeline resumes after it, and the claim turns away whatever the server sends again. The outcome
 * of a `COMMIT` whose answer was lost is unknown, which is fine: the next run reads the checkpoint
 * and the claim decides.
 *
 * @par Thread safety
 * One thread at a time (the pipeline's applier thread).
 */
class mirror_sink {
 public:
  /// The optional hooks it implements, checked against its members at compile time.
  static constexpr hook hooks = hook::snapshot | hook::snapshot_complete;

  /// A sink writing through @p target, which must outlive it. Never throws.
  explicit mirror_sink(mirror_target& target) noexcept : target_(target) {}

  /// The commit LSN stored for this slot, or none when nothing was applied yet.
  [[nodiscard]] auto checkpoint() -> result<std::optional<lsn>> { return target_.read_checkpoint(); }

  /// Applies @p t in one target transaction, or skips it if it was applied before (see the class
  /// comment). @return its commit LSN, or the error.
  [[nodiscard]] auto handle_transaction(const transaction& t) -> result<lsn> {
    target_.check_delivery(t.commit_lsn());
    auto done = target_.transact([&]() -> result<bool> {
      auto claimed = target_.claim(t.commit_lsn());
      if (!claimed) return claimed;
      if (!*claimed) {
        target_.skipped();
        return false;
      }
      if (auto a = target_.apply(t); !a) return unexpected(a.error());
      return true;
    });
    if (!done) return unexpected(done.error());
    return t.commit_lsn();
  }

  /// Stores one batch of a point-in-time snapshot (`--snapshot`) in one target transaction.
  /// @return nothing, or the error.
  [[nodiscard]] auto handle_snapshot(const snapshot_batch& b, const snapshot_context& ctx) -> result<void> {
    return target_.transact([&]() -> result<bool> {
      if (auto a = target_.apply_snapshot(b, ctx.first_for_table); !a) return unexpected(a.error());
      return true;
    });
  }

  /// The snapshot is whole: its consistent point becomes the checkpoint, and streaming goes on
  /// from exactly there. @return nothing, or the error.
  [[nodiscard]] auto handle_snapshot_complete(lsn at) -> result<void> {
    return target_.transact([&]() -> result<bool> { return target_.claim(at); });
  }

 private:
  mirror_target& target_;
};

/**
 * A @ref replicant::batch_sink (`sink_owned_batches`) that mirrors into a target PostgreSQL
 * database, exactly once in effect, with one target transaction per batch.
 *
 * **The atomic unit.** For each batch (ascending commit LSNs), one target transaction:
 * 1. lock this slot's checkpoint row and read it (mirror_target::lock_checkpoint()), waiting, like
 *    the sink mode's claim, for a target transaction a killed predecessor left in flight;
 * 2. apply every transaction of the batch whose commit LSN is above it, in order, and skip the
 *    rest (a batch the server sent again after a crash can hold transactions applied before);
 * 3. store the batch's highest commit LSN as the checkpoint;
 * 4. `COMMIT`. When nothing was above the checkpoint, roll back instead: it is already there.
 *
 * The batch's rows and its checkpoint commit together or not at all, so the argument of
 * @ref mirror_sink holds batch by batch. A kill in the middle of a batch loses the whole target
 * transaction, and the pipeline, which acknowledged nothing of the batch, delivers it again.
 *
 * @par Thread safety
 * One thread at a time (the pipeline's applier thread).
 */
class mirror_batch_sink {
 public:
  /// A sink writing through @p target, which must outlive it. Never throws.
  explicit mirror_batch_sink(mirror_target& target) noexcept : target_(target) {}

  /// The commit LSN stored for this slot, or none when nothing was applied yet.
  [[nodiscard]] auto checkpoint() -> result<std::optional<lsn>> { return target_.read_checkpoint(); }

  /// Applies what of @p batch is new in one target transaction (see the class comment).
  /// @return the batch's highest commit LSN, or the error.
  [[nodiscard]] auto handle_batch(std::span<const transaction> batch) -> result<lsn> {
    if (batch.empty()) return fail(errc::sink_failed);  // the pipeline never hands over an empty one
    for (const transaction& t : batch) target_.check_delivery(t.commit_lsn());
    auto done = target_.transact([&]() -> result<bool> {
      auto stored = target_.lock_checkpoint();
      if (!stored) return unexpected(stored.error());
      bool any = false;
      for (const transaction& t : batch) {
        if (*stored && t.commit_lsn() <= **stored) {
          target_.skipped();
          continue;
        }
        if (auto a = target_.apply(t); !a) return unexpected(a.error());
        any = true;
      }
      if (!any) return false;
      if (auto s = target_.set_checkpoint(batch.back().commit_lsn()); !s) return unexpected(s.error());
      return true;
    });
    if (!done) return unexpected(done.error());
    return batch.back().commit_lsn();
  }

 private:
  mirror_target& target_;
};

/**
 * A @ref replicant::lib_mode_sink (`lib_owned_checkpoint<Store>`): applies each source
 * transaction in one target transaction and keeps no checkpoint. The library writes the
 * checkpoint to its store after handle_transaction() returned, so from its point of view this is a
 * sink without transactions of its own, like a file or a message broker.
 *
 * **The guarantee is at least once.** A crash after the target's `COMMIT` and before the store's
 * write delivers that transaction again after the restart (with batched checkpoint writes, every
 * transaction of the unwritten batch), and it is applied again. The rows end up right all the
 * same, because each change is applied as a whole-row upsert or by key, but
 * `replicant_mirror_applied` shows the repeat as a second row: that is what the tests count as a
 * duplicate. Nothing is ever lost: the checkpoint is written only after the rows committed.
 *
 * It has deliberately no `checkpoint()` member: the store's checkpoint is the only one.
 *
 * @par Thread safety
 * One thread at a time (the pipeline's applier thread).
 */
class mirror_lib_sink {
 public:
  /// A sink writing through @p target, which must outlive it. Never throws.
  explicit mirror_lib_sink(mirror_target& target) noexcept : target_(target) {}

  /// Applies @p t in one target transaction. @return nothing, or the error.
  [[nodiscard]] auto handle_transaction(const transaction& t) -> result<void> {
    return target_.transact([&]() -> result<bool> {
      if (auto a = target_.apply(t); !a) return unexpected(a.error());
      return true;
    });
  }

 private:
  mirror_target& target_;
};

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_SINK_HPP
