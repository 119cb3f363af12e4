// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_TARGET_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_TARGET_HPP

/// @file
/// mirror_target: the core the sinks of mirror_sink.hpp share. It turns one source transaction into
/// the statements that apply it (a transaction_plan, built without a connection) and runs them
/// inside an open target transaction, and offers the pieces each checkpoint mode wraps around it
/// (the target transaction itself, the checkpoint row, failure classification).

#include "mirror_error.hpp"
#include "statements.hpp"
#include "target.hpp"

#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/snapshot/batch.hpp>

#include <concepts>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

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
 * One change of a source transaction, as the statements that apply it (see @ref transaction_plan).
 *
 * Most changes are one statement. An update that addresses its row by key is a statement whose
 * follow-up depends on what the target answers (whether the row was there), so the plan holds the
 * follow-up statements too, each built only when the decision can need it. A follow-up that could
 * not be built keeps its error, which counts only if the follow-up is run: exactly as when the
 * statements were built on the way.
 *
 * @par Thread safety
 * A value type: it owns every value and name it carries.
 */
struct change_plan {
  /// How the change is applied.
  enum class shape : std::uint8_t {
    /// `sql` is run: an insert, a delete, or an update that is an upsert. A row change.
    row,
    /// `sql` is run: one `TRUNCATE` of the tables truncated together. Not a row change.
    truncate,
    /// `update` is run (an update by key, or an update or delete of a table without a key, by its
    /// whole old row); `missing` says what follows when it finds no row.
    update,
  };
  /// What an update by key does when it found no row.
  enum class when_missing : std::uint8_t {
    /// Every column was sent: `sql` (the upsert) makes the row what the change says.
    upsert,
    /// Columns were left unchanged and repeats are not expected: the target diverged
    /// (`mirror_errc::row_missing`).
    halt,
    /// Columns were left unchanged, and repeats are expected: a row a later transaction deleted
    /// or moved. Counted as superseded; nothing runs.
    supersede,
    /// A key change found no row to move, and repeats are expected: counted as superseded;
    /// `delete_old` runs, then `update_new` (columns were left unchanged) or `sql` (the upsert).
    move,
    /// A table without a key, where each transaction is applied once: its old row must be there,
    /// or the target diverged (`mirror_errc::no_matching_row`).
    diverged,
  };

  /// How the change is applied.
  shape kind = shape::row;
  /// The statement of a row change or a truncation; for an update, the upsert it may fall back on.
  result<statement> sql;
  /// An update's statement by key (none: there is nothing to set); a keyless table's delete.
  result<std::optional<statement>> update;
  /// What an update that found no row does.
  when_missing missing = when_missing::upsert;
  /// `move`: deletes whatever holds the old key now.
  result<statement> delete_old;
  /// `move` with unchanged columns: the update of the row at the new key (none: nothing to set).
  result<std::optional<statement>> update_new;
  /// Columns left unchanged (unchanged TOAST), counted as kept when an update finds its row.
  std::size_t unchanged = 0;
};

/**
 * A source transaction as the statements that apply it, built by mirror_target::plan() and run by
 * mirror_target::apply(const transaction_plan&) inside a target transaction.
 *
 * Building runs no statement (it may read a `FULL` table's primary key from the target's catalog),
 * and the plan owns everything it holds (the SQL text and the values as text), so it outlives the
 * transaction it came from: the deferred mode builds it while the pipeline's transaction is valid
 * and runs it later on a worker thread. The other modes build and run it at once.
 *
 * @par Thread safety
 * A value type.
 */
struct transaction_plan {
  /// The source transaction's commit LSN: what the claim moves to, and what the applied log records.
  lsn commit;
  /// Its changes in order, consecutive truncations merged into one.
  std::vector<change_plan> changes;
};

/**
 * The target database as the mirror's sinks use it: one connection, the bookkeeping tables, and
 * the code that applies a source transaction's changes.
 *
 * **The core.** apply() runs inside a target transaction that transact() opened: every change of
 * the source transaction (upsert by key, update or delete by key, truncate), then one row in
 * `replicant_mirror_applied` with its commit LSN. That row exists so that the tests can count
 * effects: a source transaction applied twice shows up as two rows. apply() is two steps, which the
 * deferred mode runs on two threads: plan() builds the statements from the transaction (on the
 * connection of the pipeline's thread, which it uses for a catalog read at most), and apply() of
 * the plan runs them on the worker's. What surrounds apply() is the checkpoint mode's business
 * (see mirror_sink.hpp): a claim of the checkpoint row per transaction, one checkpoint update per
 * batch, or nothing, when the library keeps the checkpoint elsewhere.
 *
 * **Keys.** A table's rows are found by the key the server flags (`REPLICA IDENTITY DEFAULT` or
 * `USING INDEX`). Under `FULL` the server flags every column, so the key is the target table's
 * primary key instead, read from the target's catalog (`pg_index`) the first time a connection
 * meets the table; a table without one has its rows matched by their whole old row (see
 * @ref row_identity).
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
   * exactly once. A `REPLICA IDENTITY FULL` table without a primary key cannot be mirrored with
   * true: a repeated insert would leave its row twice (`no_usable_key`).
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
  /// was applied yet. It is remembered as what the pipeline was given (see check_delivery()).
  [[nodiscard]] auto read_checkpoint() -> result<std::optional<lsn>> {
    if (auto c = connect(); !c) return unexpected(c.error());
    parameters p;
    p.add(slot_);
    auto r = target_->run("SELECT commit_lsn FROM replicant_mirror_checkpoint WHERE slot = $1", p);
    if (!r) return failed(r.error());
    auto stored = checkpoint_of(*r);
    if (stored) given_ = *stored;  // none until something was applied
    return stored;
  }

  /**
   * Checks a delivered transaction against the checkpoint the pipeline was last given by
   * read_checkpoint(). The pipeline delivers nothing at or below it, so a delivery that is would be
   * a repeat let through by the library (the claim would still turn it away, and hide it): it is
   * reported at once on standard error, by position only, so that a process killed before its
   * summary leaves the record too. The exactly-once suite counts these lines; unlike the claim's
   * skips, which a predecessor's commit still in flight makes legitimate, there must be none.
   * Never throws.
   */
  auto check_delivery(lsn commit) noexcept -> void {
    if (!given_ || commit > *given_) return;
    std::fprintf(stderr, "replicant-pg-mirror: transaction at %X/%X delivered at or below the checkpoint given\n",
                 static_cast<unsigned>(commit.value() >> 32U), static_cast<unsigned>(commit.value() & 0xFFFFFFFFU));
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

  /**
   * Outside transact(): the statements that apply @p t (see @ref transaction_plan), built without
   * running any of them. Consecutive truncations become one `TRUNCATE`. The one thing read from the
   * target is the primary key of each `REPLICA IDENTITY FULL` table this connection has not met
   * yet (see the class comment), connecting first if need be.
   * @return the plan, or the error of a statement that cannot be built (a @ref mirror_errc or an
   *         identifier error) or of the catalog read (see retryable()); value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto plan(const transaction& t) -> result<transaction_plan> {
    if (auto c = connect(); !c) return unexpected(c.error());
    auto p = build_plan(t);
    if (!p) return failed(p.error());
    return p;
  }

  /// Inside transact(): the core. Applies every change of @p t and logs its commit LSN in
  /// `replicant_mirror_applied` (see the class comment): the plan, then apply() of the plan.
  [[nodiscard]] auto apply(const transaction& t) -> result<void> {
    auto p = build_plan(t);
    if (!p) return unexpected(p.error());
    return apply(*p);
  }

  /// Inside transact(): runs plan @p p, built by plan() from a source transaction, and logs its
  /// commit LSN in `replicant_mirror_applied`.
  [[nodiscard]] auto apply(const transaction_plan& p) -> result<void> {
    for (const change_plan& step : p.changes) {
      if (auto a = run_change(step); !a) return a;
      if (step.kind != change_plan::shape::truncate) ++pending_.changes;
    }
    parameters log;
    log.add(to_string(p.commit));
    if (auto r = target_->run("INSERT INTO replicant_mirror_applied (commit_lsn) VALUES ($1)", log); !r) {
      return unexpected(r.error());
    }
    ++pending_.applied;
    return {};
  }

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
      auto step = plan_change(c);
      if (!step) return unexpected(step.error());
      if (auto a = run_change(*step); !a) return a;
      ++pending_.changes;
    }
    return {};
  }

  /// Inside transact(): counts a source transaction turned away as applied before. Never throws.
  auto skipped() noexcept -> void { ++pending_.skipped; }

  /// Whether the last failure was a lost connection or a transient server condition, so that
  /// running the pipeline again (after a pause) is the right response. Never throws.
  [[nodiscard]] auto retryable() const noexcept -> bool { return retryable_; }
  /// The SQLSTATE of the last failure, when the target reported one. Never throws.
  [[nodiscard]] auto sqlstate() const noexcept -> const std::string& { return sqlstate_; }
  /// What was done so far. Never throws.
  [[nodiscard]] auto counts() const noexcept -> const mirror_counts& { return counts_; }

 private:
  // The statements that apply @p t, on an open connection (see plan()). Errors are handed on as
  // they came.
  auto build_plan(const transaction& t) -> result<transaction_plan> {
    transaction_plan p;
    p.commit = t.commit_lsn();
    truncate_batch truncates;
    const auto flush = [&] {
      if (truncates.empty()) return;
      change_plan step;
      step.kind = change_plan::shape::truncate;
      step.sql = truncates.take();
      p.changes.push_back(std::move(step));
    };
    for (const change& c : t.changes()) {
      if (c.op() == change_op::truncate) {
        if (auto a = truncates.add(c); !a) return unexpected(a.error());
        continue;
      }
      flush();
      auto step = plan_change(c);
      if (!step) return unexpected(step.error());
      p.changes.push_back(std::move(*step));
    }
    flush();
    return p;
  }

  auto connect() -> result<void> {
    retryable_ = false;
    sqlstate_.clear();
    if (target_ && target_->is_open()) return {};
    target_.reset();
    primary_keys_.clear();  // a new connection reads them again, in case they changed meanwhile
    auto opened = target_connection::open(conninfo_, cancel_fd_);
    if (!opened) {
      retryable_ = opened.error() == errc::connection_failed;
      return unexpected(opened.error());
    }
    target_.emplace(std::move(*opened));
    return {};
  }

  // How @p r's rows are found (see row_identity::of()). For a FULL table, the first time this
  // connection meets it, the target's catalog says what its primary key is (none: an empty list).
  // The target's, because its key is the one `ON CONFLICT` must name; the setup requires the same
  // keys as the source's.
  auto identity_of(const relation_info& r) -> result<row_identity> {
    if (r.identity != replica_identity::full) return row_identity::of(r, {}, replays_);
    auto table = detail::qualified_name(r);
    if (!table) return unexpected(table.error());
    auto known = primary_keys_.find(*table);
    if (known == primary_keys_.end()) {
      parameters p;
      p.add(*table);
      auto columns = target_->run(
          "SELECT a.attname FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid "
          "AND a.attnum = ANY (i.indkey) WHERE i.indisprimary AND i.indrelid = pg_catalog.to_regclass($1)",
          p);
      if (!columns) return unexpected(columns.error());
      std::vector<std::string> names;
      for (int i = 0; i < columns->rows(); ++i) names.emplace_back(columns->get(i, 0).value_or(""));
      known = primary_keys_.emplace(std::move(*table), std::move(names)).first;
    }
    return row_identity::of(r, known->second, replays_);
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

  // The plan of one change other than a truncation (plan() merges those).
  //
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
  //
  // A table without a key (FULL, no primary key) has an update or delete applied to one row equal
  // to its old row. None being there means the target diverged, and the mirror stops: a repeat
  // cannot explain it, because such a table is refused where repeats happen (row_identity::of()).
  //
  // Only the primary statement's error fails the plan; a follow-up keeps its own (see change_plan).
  [[nodiscard]] auto plan_change(const change& c) -> result<change_plan> {
    using shape = change_plan::shape;
    using when_missing = change_plan::when_missing;
    change_plan p;
    // A truncation addresses no row (its table may even have no identity at all).
    auto id = c.op() == change_op::truncate ? result<row_identity>{} : identity_of(c.relation());
    if (!id) return unexpected(id.error());
    switch (c.op()) {
      case change_op::insert:
      case change_op::snapshot: p.sql = upsert(c, *id); break;
      case change_op::truncate: {  // plan() merges consecutive ones; one alone is its own statement
        truncate_batch one;
        if (auto a = one.add(c); !a) return unexpected(a.error());
        p.kind = shape::truncate;
        p.sql = one.take();
        break;
      }
      case change_op::delete_:
        if (id->whole_row()) return plan_matched(delete_by_key(c, *id));
        p.sql = delete_by_key(c, *id);
        break;
      case change_op::update: {
        p.unchanged = c.record().raw().unchanged_toast_count();
        if (id->whole_row()) {
          auto matched = plan_matched(update_by_key(c, *id, c.old(), true));
          if (matched) matched->unchanged = p.unchanged;
          return matched;
        }
        const bool moves = moves_key(c, *id);
        if (!moves && p.unchanged == 0) {
          p.sql = upsert(c, *id);
          break;
        }
        p.kind = shape::update;
        p.update = update_by_key(c, *id, moves ? c.old() : c.record(), moves, moves && replays_);
        if (!p.update) return unexpected(p.update.error());
        if (moves && replays_) {
          p.missing = when_missing::move;
          p.delete_old = delete_by_key(c, *id);
          if (p.unchanged != 0) p.update_new = update_by_key(c, *id, c.record(), false, false);
        } else if (p.unchanged != 0) {
          p.missing = replays_ ? when_missing::supersede : when_missing::halt;
        }
        // Every column was sent: the upsert makes the row what this change says, whatever was there.
        if (p.unchanged == 0) p.sql = upsert(c, *id);
        return p;
      }
    }
    if (!p.sql) return unexpected(p.sql.error());
    return p;
  }

  // The plan of an update or delete of a table without a key, by its whole old row: statement @p s
  // (none: nothing to set), which must find its row (when_missing::diverged).
  static auto plan_matched(result<std::optional<statement>> s) -> result<change_plan> {
    if (!s) return unexpected(s.error());
    change_plan p;
    p.kind = change_plan::shape::update;
    p.missing = change_plan::when_missing::diverged;
    p.update = std::move(s);
    return p;
  }
  static auto plan_matched(result<statement> s) -> result<change_plan> {
    if (!s) return unexpected(s.error());
    return plan_matched(result<std::optional<statement>>{std::optional<statement>{std::move(*s)}});
  }

  // Runs the plan of one change (see plan_change()). @return nothing, or the error.
  auto run_change(const change_plan& p) -> result<void> {
    using when_missing = change_plan::when_missing;
    if (p.kind != change_plan::shape::update) return run(p.sql);
    auto found = run_update(p.update, p.unchanged);
    if (!found || *found) return found ? result<void>{} : unexpected(found.error());
    switch (p.missing) {
      case when_missing::upsert: return run(p.sql);
      case when_missing::halt: return fail(mirror_errc::row_missing);
      case when_missing::diverged: return fail(mirror_errc::no_matching_row);
      case when_missing::supersede: ++pending_.superseded; return {};
      case when_missing::move:
        ++pending_.superseded;
        if (auto d = run(p.delete_old); !d) return d;
        if (p.unchanged == 0) return run(p.sql);
        found = run_update(p.update_new, p.unchanged);
        return found ? result<void>{} : unexpected(found.error());
    }
    return {};
  }

  // Runs an update by key built by update_by_key(), counting @p unchanged columns as kept when it
  // found its row. @return whether the row was there (or there was nothing to set), or the error.
  auto run_update(const result<std::optional<statement>>& update, std::size_t unchanged) -> result<bool> {
    if (!update) return unexpected(update.error());
    if (!*update) return true;
    auto r = target_->run((*update)->sql, (*update)->params);
    if (!r) return unexpected(r.error());
    if (r->affected() == 0) return false;
    pending_.unchanged_kept += unchanged;
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
  mirror_counts pending_;     // of the target transaction in progress; counted once it ends well
  std::optional<lsn> given_;  // what read_checkpoint() last returned
  // The primary key columns of the FULL tables met on this connection, by quoted qualified name.
  std::map<std::string, std::vector<std::string>, std::less<>> primary_keys_;
};

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_TARGET_HPP
