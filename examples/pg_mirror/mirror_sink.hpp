// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_SINK_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_SINK_HPP

/// @file
/// mirror_sink: applies each source transaction to the target database in one target transaction
/// that also moves the checkpoint, so that every transaction takes effect exactly once.

#include "mirror_error.hpp"
#include "statements.hpp"
#include "target.hpp"

#include <replicant/change.hpp>
#include <replicant/error.hpp>
#include <replicant/lsn.hpp>
#include <replicant/result.hpp>
#include <replicant/transaction.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace replicant::examples::pg_mirror {

/// What a mirror_sink did since it was made; counts only, printed when the program stops.
struct mirror_counts {
  /// Transactions applied to the target.
  std::uint64_t applied = 0;
  /// Transactions found already applied (their commit LSN was not above the stored checkpoint).
  std::uint64_t skipped = 0;
  /// Row changes applied.
  std::uint64_t changes = 0;
  /// Columns of updates left untouched because the server sent them as unchanged TOAST.
  std::uint64_t unchanged_kept = 0;
};

/**
 * A @ref replicant::sink that mirrors the published tables into a target PostgreSQL database,
 * exactly once in effect.
 *
 * **The atomic unit.** For each transaction, one target transaction:
 * 1. *claim*: upsert this slot's row of `replicant_mirror_checkpoint` to the transaction's commit
 *    LSN, but only where the stored LSN is lower. Zero rows changed means the transaction was
 *    applied before: roll back and report it done. The upsert also locks the row, so if a previous
 *    run of the program left a transaction in flight on the target (killed mid-commit), the claim
 *    waits for it and then sees its outcome;
 * 2. apply every change (upsert by key, update or delete by key, truncate);
 * 3. log the commit LSN in `replicant_mirror_applied` (for the tests' effect counting: a
 *    transaction applied twice would show up as two rows);
 * 4. `COMMIT`.
 *
 * Data and checkpoint commit together or not at all. So after any crash, kill or lost connection,
 * the stored checkpoint says exactly which transactions took effect; checkpoint() returns it, the
 * replication pipeline resumes after it, and the claim turns away whatever the server sends again.
 *
 * **Failures.** A failure rolls back (if the connection still stands) and returns an error, which
 * halts the pipeline without acknowledging the transaction. retryable() tells whether the failure
 * was a lost connection or a transient server state (SQLSTATE classes 08, 40, 53, 57), after which
 * running the pipeline again is safe and right; the connection is then re-opened on the next call.
 * The outcome of a `COMMIT` whose answer was lost is unknown, which is fine: the next run reads the
 * checkpoint and the claim decides.
 *
 * Errors are value-free: error codes and SQLSTATEs only.
 *
 * @par Thread safety
 * One thread at a time (the pipeline's applier thread).
 */
class mirror_sink {
 public:
  /// A sink for slot @p slot writing to @p conninfo; @p cancel_fd (readable once the program is
  /// asked to stop) interrupts connecting. Does not connect yet.
  mirror_sink(std::string conninfo, std::string slot, int cancel_fd)
      : conninfo_(std::move(conninfo)), slot_(std::move(slot)), cancel_fd_(cancel_fd) {}

  /**
   * Connects and creates the two bookkeeping tables if they do not exist yet. The program calls it
   * once before streaming, so that a wrong connection string fails at once instead of being retried.
   * @return nothing, or the error (see retryable()).
   */
  auto prepare() -> result<void> {
    if (auto c = connect(); !c) return c;
    for (const char* ddl : {"CREATE TABLE IF NOT EXISTS replicant_mirror_checkpoint (slot text PRIMARY KEY, "
                            "commit_lsn pg_lsn)",
                            "CREATE TABLE IF NOT EXISTS replicant_mirror_applied (commit_lsn pg_lsn)"}) {
      if (auto r = target_->run(ddl); !r) return failed(r.error());
    }
    return {};
  }

  /// The commit LSN stored for this slot, or none when nothing was applied yet.
  auto checkpoint() -> result<std::optional<lsn>> {
    if (auto c = connect(); !c) return unexpected(c.error());
    parameters p;
    p.add(slot_);
    auto r = target_->run("SELECT commit_lsn FROM replicant_mirror_checkpoint WHERE slot = $1", p);
    if (!r) return failed(r.error());
    const auto text = r->get(0, 0);
    if (!text) return std::optional<lsn>{};
    auto at = parse_lsn(*text);
    if (!at) return unexpected(at.error());
    return std::optional<lsn>{*at};
  }

  /// Applies @p t in one target transaction, or skips it if it was applied before (see the class
  /// comment). @return its commit LSN, or the error.
  auto handle_transaction(const transaction& t) -> result<lsn> {
    if (auto c = connect(); !c) return unexpected(c.error());
    pending_ = {};
    auto applied = apply(t);
    if (!applied) {
      const auto reported = target_->sqlstate();  // before ROLLBACK replaces it
      if (target_->is_open()) static_cast<void>(target_->run("ROLLBACK"));
      return failed(applied.error(), reported);
    }
    ++(*applied ? counts_.applied : counts_.skipped);
    counts_.changes += pending_.changes;
    counts_.unchanged_kept += pending_.unchanged_kept;
    return t.commit_lsn();
  }

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

  // The target transaction of the class comment. @return true if applied, false if skipped.
  auto apply(const transaction& t) -> result<bool> {
    const std::string at = to_string(t.commit_lsn());
    if (auto r = target_->run("BEGIN"); !r) return unexpected(r.error());
    parameters claim;
    claim.add(slot_);
    claim.add(at);
    auto claimed = target_->run(
        "INSERT INTO replicant_mirror_checkpoint AS c (slot, commit_lsn) VALUES ($1, $2) ON CONFLICT (slot) DO "
        "UPDATE SET commit_lsn = EXCLUDED.commit_lsn WHERE c.commit_lsn IS NULL OR c.commit_lsn < EXCLUDED.commit_lsn",
        claim);
    if (!claimed) return unexpected(claimed.error());
    if (claimed->affected() == 0) {
      if (auto r = target_->run("ROLLBACK"); !r) return unexpected(r.error());
      return false;
    }

    truncate_batch truncates;
    for (const change& c : t.changes()) {
      if (c.op() == change_op::truncate) {
        if (auto a = truncates.add(c); !a) return unexpected(a.error());
        continue;
      }
      if (!truncates.empty()) {
        if (auto r = target_->run(truncates.take().sql); !r) return unexpected(r.error());
      }
      if (auto a = apply_change(c); !a) return unexpected(a.error());
      ++pending_.changes;
    }
    if (!truncates.empty()) {
      if (auto r = target_->run(truncates.take().sql); !r) return unexpected(r.error());
    }

    parameters log;
    log.add(at);
    if (auto r = target_->run("INSERT INTO replicant_mirror_applied (commit_lsn) VALUES ($1)", log); !r) {
      return unexpected(r.error());
    }
    auto committed = target_->run("COMMIT");
    if (!committed) return unexpected(committed.error());
    if (committed->tag() != "COMMIT") return fail(mirror_errc::not_committed);
    return true;
  }

  auto run(const result<statement>& s) -> result<statement_result> {
    if (!s) return unexpected(s.error());
    return target_->run(s->sql, s->params);
  }

  auto apply_change(const change& c) -> result<void> {
    switch (c.op()) {
      case change_op::insert:
      case change_op::snapshot: {
        auto r = run(upsert(c));
        return r ? result<void>{} : unexpected(r.error());
      }
      case change_op::delete_: {
        auto r = run(delete_by_key(c));
        return r ? result<void>{} : unexpected(r.error());
      }
      case change_op::update: return apply_update(c);
      case change_op::truncate: break;  // batched by apply()
    }
    return {};
  }

  // An update without unchanged TOAST columns and with the key unchanged is an upsert. Otherwise
  // the row is updated where it is: by the old key when the server sent it (the key changed), or by
  // the key. If no row is there, the upsert recreates it, unless columns were left unchanged: their
  // values were not sent, so the target cannot be repaired from this change and the mirror stops.
  auto apply_update(const change& c) -> result<void> {
    const std::size_t unchanged = c.record().raw().unchanged_toast_count();
    const bool by_old_key = !c.old().empty();
    if (!by_old_key && unchanged == 0) {
      auto r = run(upsert(c));
      return r ? result<void>{} : unexpected(r.error());
    }
    auto update = update_by_key(c, by_old_key ? c.old() : c.record(), by_old_key);
    if (!update) return unexpected(update.error());
    if (*update) {
      auto r = target_->run((*update)->sql, (*update)->params);
      if (!r) return unexpected(r.error());
      if (r->affected() != 0) {
        pending_.unchanged_kept += unchanged;
        return {};
      }
    } else if (!by_old_key) {
      return {};  // only the key and unchanged columns were sent: nothing changes
    }
    if (unchanged != 0) return fail(mirror_errc::row_missing);
    auto r = run(upsert(c));
    return r ? result<void>{} : unexpected(r.error());
  }

  std::string conninfo_;
  std::string slot_;
  int cancel_fd_ = -1;
  std::optional<target_connection> target_;
  bool retryable_ = false;
  std::string sqlstate_;
  mirror_counts counts_;
  mirror_counts pending_;  // of the transaction being applied; counted once it commits
};

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_MIRROR_SINK_HPP
