// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_TARGET_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_TARGET_HPP

/// @file
/// mirror_target: the core the three sinks of mirror_sink.hpp share. It applies one source
/// transaction inside an open target transaction, and offers the pieces each checkpoint mode wraps
/// around it (the target transaction itself, the checkpoint row, failure classification).

#include "mirror_error.hpp"
#include "statements.hpp"
#include "target.hpp"

#include <replicant/change.hpp>
#include <replicant/error.hpp>
#include <replicant/lsn.hpp>
#include <replicant/result.hpp>
#include <replicant/snapshot/batch.hpp>
#include <replicant/transaction.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace replicant::examples::pg_mirror {

/// What the mirror did since it started; counts only, printed when the program stops.
struct mirror_counts {
  /// Source transactions applied to the target.
  std::uint64_t applied = 0;
  /// Source transactions found already applied (their commit LSN was not above the stored
  /// checkpoint).
  std::uint64_t skipped = 0;
  /// Row changes applied.
  std::uint64_t changes = 0;
  /// Columns of updates left untouched because the server sent them as unchanged TOAST.
  std::uint64_t unchanged_kept = 0;
  /// Changes that a repeated transaction found applied before: an update whose row later
  /// transactions had already deleted or moved (skipped), or a key change already made (only where
  /// repeats are expected: see mirror_target).
  std::uint64_t superseded = 0;
  /// Target transactions committed (one per source transaction, or one per batch).
  std::uint64_t commits = 0;

  /// Adds @p other's counts. Never throws.
  auto operator+=(const mirror_counts& other) noexcept -> mirror_counts& {
    applied += other.applied;
    skipped += other.skipped;
    changes += other.changes;
    unchanged_kept += other.unchanged_kept;
    superseded += other.superseded;
    commits += other.commits;
    return *this;
  }
};

/**
 * The target database as the mirror's sinks use it: one connection, the bookkeeping tables, and
 * the code that applies a source transaction's changes.
 *
 * **The core.** apply() runs inside a target transaction that transact() opened: every change of
 * the source transaction (upsert by key, update or delete by key, truncate), then one row in
 * `replicant_mirror_applied` with its commit LSN. That row exists so that the tests can count
 * effects: a source transaction applied twice shows up as two rows. What surrounds apply() is the
 * checkpoint mode's business (see mirror_sink.hpp): a claim of the checkpoint row per transaction,
 * one checkpoint update per batch, or nothing, when the library keeps the checkpoint elsewhere.
 *
 * **Failures.** transact() rolls back (if the connection still stands) and returns the error.
 * retryable() then tells whether it was a lost connection or a transient server state (SQLSTATE
 * classes 08, 40, 53, 57), after which running the pipeline again is safe and right; the
 * connection is re-opened on the next call. The outcome of a `COMMIT` whose answer was lost is
 * unknown; each mode says why that is fine for it.
 *
 * Errors are value-free: error codes and SQLSTATEs only.
 *
 * @par Thread safety
 * One thread at a time (the pipeline's applier thread; the program's main thread between runs).
 */
class mirror_target {
 public:
  /**
   * The target at @p conninfo, mirroring slot @p slot; @p cancel_fd (readable once the program is
   * asked to stop) interrupts connecting. Does not connect yet.
   *
   * @p replays says whether source transactions may be applied again on a target that already
   * holds them (and what came after them): true for the library-owned checkpoint modes. apply()
   * then takes the two changes that cannot be applied twice as evidence of a repeat, not of a
   * diverged target: an update with unchanged TOAST columns whose row is gone is skipped, and a
   * key change that finds no row to move (its new key is taken by another row, see
   * update_by_key(), or its old key's row is gone) deletes whatever holds the old key now and
   * updates the row at the new key instead. Either way the transactions after it, which are
   * delivered again too, bring the rows to their final state. With false, the first halts
   * `row_missing` and the second fails on the key, as they must when every transaction is applied
   * exactly once.
   */
  mirror_target(std::string conninfo, std::string slot, int cancel_fd, bool replays = false)
      : conninfo_(std::move(conninfo)), slot_(std::move(slot)), cancel_fd_(cancel_fd), replays_(replays) {}

  /**
   * Connects and creates the bookkeeping tables that do not exist yet: `replicant_mirror_applied`,
   * and `replicant_mirror_checkpoint` when @p own_checkpoint (the modes whose target transactions
   * carry the checkpoint). The program calls it once before streaming, so that a wrong connection
   * string fails at once instead of being retried.
   * @return nothing, or the error (see retryable()).
   */
  [[nodiscard]] auto prepare(bool own_checkpoint) -> result<void> {
    if (auto c = connect(); !c) return c;
    if (own_checkpoint) {
      if (auto r = target_->run("CREATE TABLE IF NOT EXISTS replicant_mirror_checkpoint (slot text PRIMARY KEY, "
                                "commit_lsn pg_lsn)");
          !r) {
        return failed(r.error());
      }
    }
    if (auto r = target_->run("CREATE TABLE IF NOT EXISTS replicant_mirror_applied (commit_lsn pg_lsn)"); !r) {
      return failed(r.error());
    }
    return {};
  }

  /// The commit LSN stored for this slot in `replicant_mirror_checkpoint`, or none when nothing
  /// was applied yet.
  [[nodiscard]] auto read_checkpoint() -> result<std::optional<lsn>> {
    if (auto c = connect(); !c) return unexpected(c.error());
    parameters p;
    p.add(slot_);
    auto r = target_->run("SELECT commit_lsn FROM replicant_mirror_checkpoint WHERE slot = $1", p);
    if (!r) return failed(r.error());
    return checkpoint_of(*r);
  }

  /**
   * Runs @p body inside one target transaction: `BEGIN`, @p body, then `COMMIT` when it returned
   * true, or `ROLLBACK` when it returned false (nothing to change). On any failure the transaction
   * is rolled back and the error returned (see retryable()). The counts of what @p body did are
   * added to counts() only when it ended without failure.
   *
   * @tparam Body callable as `result<bool>()`; it uses claim(), lock_checkpoint(),
   *         set_checkpoint(), apply() and skipped().
   * @return nothing, or the error.
   */
  template <class Body>
  requires std::same_as<std::invoke_result_t<Body&>, result<bool>>
  [[nodiscard]] auto transact(Body&& body) -> result<void> {
    if (auto c = connect(); !c) return c;
    pending_ = {};
    auto done = [&]() -> result<void> {
      if (auto r = target_->run("BEGIN"); !r) return unexpected(r.error());
      auto keep = body();
      if (!keep) return unexpected(keep.error());
      if (!*keep) {
        auto r = target_->run("ROLLBACK");
        return r ? result<void>{} : unexpected(r.error());
      }
      auto committed = target_->run("COMMIT");
      if (!committed) return unexpected(committed.error());
      if (committed->tag() != "COMMIT") return fail(mirror_errc::not_committed);
      ++pending_.commits;
      return {};
    }();
    if (!done) {
      const auto reported = target_->sqlstate();  // before ROLLBACK replaces it
      if (target_->is_open()) static_cast<void>(target_->run("ROLLBACK"));
      return failed(done.error(), reported);
    }
    counts_ += pending_;
    return {};
  }

  /**
   * Inside transact(): the claim of the sink mode. Moves this slot's checkpoint row to @p at, but
   * only where the stored LSN is lower. The upsert locks the row, so if a previous run of the
   * program left a target transaction in flight (killed mid-commit), it waits for that one and
   * then sees its outcome.
   * @return true when claimed; false when @p at is not above the stored checkpoint (applied before).
   */
  [[nodiscard]] auto claim(lsn at) -> result<bool> {
    parameters p;
    p.add(slot_);
    p.add(to_string(at));
    auto claimed = target_->run(
        "INSERT INTO replicant_mirror_checkpoint AS c (slot, commit_lsn) VALUES ($1, $2) ON CONFLICT (slot) DO "
        "UPDATE SET commit_lsn = EXCLUDED.commit_lsn WHERE c.commit_lsn IS NULL OR c.commit_lsn < EXCLUDED.commit_lsn",
        p);
    if (!claimed) return unexpected(claimed.error());
    return claimed->affected() != 0;
  }

  /**
   * Inside transact(): locks this slot's checkpoint row and reads it, for a mode that decides what
   * to skip itself (batches). The row is created, holding NULL, if there is none. Like claim() it
   * waits for a target transaction a previous run left in flight: `ON CONFLICT DO UPDATE` acts on
   * the latest committed version of the row, even one committed after this transaction began.
   * @return the stored checkpoint, or none.
   */
  [[nodiscard]] auto lock_checkpoint() -> result<std::optional<lsn>> {
    parameters p;
    p.add(slot_);
    auto r = target_->run(
        "INSERT INTO replicant_mirror_checkpoint AS c (slot, commit_lsn) VALUES ($1, NULL) ON CONFLICT (slot) DO "
        "UPDATE SET commit_lsn = c.commit_lsn RETURNING c.commit_lsn",
        p);
    if (!r) return unexpected(r.error());
    return checkpoint_of(*r);
  }

  /// Inside transact(), after lock_checkpoint(): stores @p at as this slot's checkpoint.
  [[nodiscard]] auto set_checkpoint(lsn at) -> result<void> {
    parameters p;
    p.add(slot_);
    p.add(to_string(at));
    auto r = target_->run("UPDATE replicant_mirror_checkpoint SET commit_lsn = $2 WHERE slot = $1", p);
    return r ? result<void>{} : unexpected(r.error());
  }

  /// Inside transact(): the core. Applies every change of @p t and logs its commit LSN in
  /// `replicant_mirror_applied` (see the class comment).
  [[nodiscard]] auto apply(const transaction& t) -> result<void> {
    truncate_batch truncates;
    for (const change& c : t.changes()) {
      if (c.op() == change_op::truncate) {
        if (auto a = truncates.add(c); !a) return a;
        continue;
      }
      if (!truncates.empty()) {
        if (auto r = target_->run(truncates.take().sql); !r) return unexpected(r.error());
      }
      if (auto a = apply_change(c); !a) return a;
      ++pending_.changes;
    }
    if (!truncates.empty()) {
      if (auto r = target_->run(truncates.take().sql); !r) return unexpected(r.error());
    }
    parameters log;
    log.add(to_string(t.commit_lsn()));
    if (auto r = target_->run("INSERT INTO replicant_mirror_applied (commit_lsn) VALUES ($1)", log); !r) {
      return unexpected(r.error());
    }
    ++pending_.applied;
    return {};
  }

  /// Inside transact(): counts a source transaction turned away as applied before. Never throws.
  /**
   * Inside transact(): stores the rows of snapshot batch @p b. With @p clear (the table's first
   * batch) it first removes every row the target holds of the table, so that a snapshot taken
   * again leaves nothing behind that the source no longer has.
   * @return nothing, or the error.
   */
  [[nodiscard]] auto apply_snapshot(const snapshot_batch& b, bool clear) -> result<void> {
    if (clear) {
      auto table = detail::qualified_name(b.relation());
      if (!table) return unexpected(table.error());
      if (auto r = target_->run("DELETE FROM " + *table); !r) return unexpected(r.error());
    }
    for (const change& c : b) {
      if (auto a = apply_change(c); !a) return a;
      ++pending_.changes;
    }
    return {};
  }

  auto skipped() noexcept -> void { ++pending_.skipped; }

  /// Whether the last failure was a lost connection or a transient server condition, so that
  /// running the pipeline again (after a pause) is the right response. Never throws.
  [[nodiscard]] auto retryable() const noexcept -> bool { return retryable_; }
  /// The SQLSTATE of the last failure, when the target reported one. Never throws.
  [[nodiscard]] auto sqlstate() const noexcept -> const std::string& { return sqlstate_; }
  /// What was done so far. Never throws.
  [[nodiscard]] auto counts() const noexcept -> const mirror_counts& { return counts_; }

 private:
  auto connect() -> result<void> {
    retryable_ = false;
    sqlstate_.clear();
    if (target_ && target_->is_open()) return {};
    target_.reset();
    auto opened = target_connection::open(conninfo_, cancel_fd_);
    if (!opened) {
      retryable_ = opened.error() == errc::connection_failed;
      return unexpected(opened.error());
    }
    target_.emplace(std::move(*opened));
    return {};
  }

  // The checkpoint in the first column of @p r: none for no row or NULL.
  static auto checkpoint_of(const statement_result& r) -> result<std::optional<lsn>> {
    const auto text = r.get(0, 0);
    if (!text) return std::optional<lsn>{};
    auto at = parse_lsn(*text);
    if (!at) return unexpected(at.error());
    return std::optional<lsn>{*at};
  }

  // Records why a call failed (with the SQLSTATE the target reported, if any) and hands the error on.
  auto failed(std::error_code ec) -> unexpected<std::error_code> { return failed(ec, target_->sqlstate()); }
  auto failed(std::error_code ec, std::string reported) -> unexpected<std::error_code> {
    const bool open = target_ && target_->is_open();
    sqlstate_ = std::move(reported);
    const std::string_view cls = std::string_view{sqlstate_}.substr(0, 2);
    retryable_ = !open || ec == errc::connection_failed || cls == "08" || cls == "40" || cls == "53" || cls == "57";
    if (!open) target_.reset();
    return unexpected(ec);
  }

  // Runs @p s, or hands on the error that built it. @return nothing, or the error.
  auto run(const result<statement>& s) -> result<void> {
    if (!s) return unexpected(s.error());
    auto r = target_->run(s->sql, s->params);
    return r ? result<void>{} : unexpected(r.error());
  }

  auto apply_change(const change& c) -> result<void> {
    switch (c.op()) {
      case change_op::insert:
      case change_op::snapshot: return run(upsert(c));
      case change_op::delete_: return run(delete_by_key(c));
      case change_op::update: return apply_update(c);
      case change_op::truncate: break;  // batched by apply()
    }
    return {};
  }

  // An update without unchanged TOAST columns and with the key unchanged is an upsert. Otherwise
  // the row is updated where it is: by the old key when the server sent it (the key changed), or by
  // the key. If no row is there, the upsert recreates it, unless columns were left unchanged: their
  // values were not sent, so the target cannot be repaired from this change. Applied once, that is
  // a diverged target and the mirror stops; where repeats are expected it is a row a later
  // transaction deleted or moved, and the change is skipped (see the constructor).
  //
  // A key change that finds no row to move while repeats are expected was applied before: the new
  // key holds the row already, or the old key's row is gone. The old key may hold a row again all
  // the same, put there by a transaction this run repeated before this one, or by a later one. At
  // this point of the source's history the old key holds nothing, so that row is deleted, and the
  // change lands on the new key like any update by key. Leaving it would leave a row the source
  // deleted long ago whenever no later transaction happens to touch that key again.
  auto apply_update(const change& c) -> result<void> {
    const std::size_t unchanged = c.record().raw().unchanged_toast_count();
    const bool moves = !c.old().empty();
    if (!moves && unchanged == 0) return run(upsert(c));
    auto found = update_where(c, moves ? c.old() : c.record(), moves, moves && replays_);
    if (!found || *found) return found ? result<void>{} : unexpected(found.error());
    if (moves && replays_) {
      ++pending_.superseded;
      if (auto d = run(delete_by_key(c)); !d) return d;
      if (unchanged != 0) {
        found = update_where(c, c.record(), false, false);
        return found ? result<void>{} : unexpected(found.error());
      }
    } else if (unchanged != 0) {
      if (!replays_) return fail(mirror_errc::row_missing);
      ++pending_.superseded;
      return {};
    }
    // Every column was sent: the upsert makes the row what this change says, whatever was there.
    return run(upsert(c));
  }

  // Runs update_by_key(@p c, @p key_row, ...). @return whether the row was there (or there was
  // nothing to set), or the error.
  auto update_where(const change& c, const row& key_row, bool include_key, bool unless_key_taken) -> result<bool> {
    auto update = update_by_key(c, key_row, include_key, unless_key_taken);
    if (!update) return unexpected(update.error());
    if (!*update) return true;
    auto r = target_->run((*update)->sql, (*update)->params);
    if (!r) return unexpected(r.error());
    if (r->affected() == 0) return false;
    pending_.unchanged_kept += c.record().raw().unchanged_toast_count();
    return true;
  }

  std::string conninfo_;
  std::string slot_;
  int cancel_fd_ = -1;
  bool replays_ = false;
  std::optional<target_connection> target_;
  bool retryable_ = false;
  std::string sqlstate_;
  mirror_counts counts_;
  mirror_counts pending_;  // of the target transaction in progress; counted once it ends well
};

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_TARGET_HPP
