// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_POSTGRES_STORE_HPP
#define REPLICANT_CHECKPOINT_POSTGRES_STORE_HPP

/// @file
/// replicant::postgres_checkpoint_store: checkpoints as rows of a PostgreSQL table, one per slot.

#include <replicant/checkpoint/store.hpp>
#include <replicant/core/detail/bounded_call.hpp>
#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/pq/connection.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace replicant {

/**
 * Where a @ref replicant::postgres_checkpoint_store keeps its checkpoints.
 *
 * @par Example
 * @code
 * replicant::postgres_store_options store{.conninfo = "host=db.internal dbname=etl user=replicant"};
 * @endcode
 */
struct postgres_store_options {
  /// A libpq connection string (keyword/value or URI) for the server holding the table. It may be
  /// another server than the replication source; it may hold a password, so it never appears in an
  /// error. The session settings replicant pins (see @ref replicant::pq::connection) apply.
  std::string conninfo;
  /// The table, a plain identifier (`[A-Za-z_][A-Za-z0-9_$]*`, at most 63 bytes) resolved through
  /// the session's `search_path` like any unqualified name; choose the schema with
  /// `options='-c search_path=...'` in @ref conninfo. Used quoted, so its case is kept. Created on
  /// first use when it does not exist.
  std::string table = "replicant_checkpoints";
  /// The table of incremental-snapshot progress (@ref replicant::progress_store "progress_store"),
  /// a plain identifier like @ref table, resolved and quoted the same way. Created on first use of
  /// read_progress() or write_progress() when it does not exist:
  /// `(slot_name text PRIMARY KEY, progress text NOT NULL)`. Untouched by pipelines without an
  /// incremental snapshot.
  std::string progress_table = "replicant_snapshot_progress";
  /// Give up connecting after this long; the call then fails `errc::connection_failed`, and the
  /// pipeline's retry budget decides what happens next. Must be positive.
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);
  /// Give up any one command (the checkpoint's read or upsert, the table's checks) after this long.
  /// The server enforces it: a wait for a lock another session holds on the row or the table ends
  /// at this timeout with SQLSTATE 55P03 (`lock_timeout`), any statement half a second later with
  /// 57014 (`statement_timeout`). So does the store, a second after it, for a server that does not
  /// answer at all (a frozen backend, a network gone silent). Either way the call fails with a
  /// transient fault, the connection is dropped, and the pipeline's retry budget decides what
  /// happens next. Must be positive.
  std::chrono::milliseconds command_timeout = std::chrono::seconds(10);
};

namespace detail {

// SQLSTATEs that mean "the table is not of the shape we use", whatever the probe said: a column or
// type changed under us, or the upsert finds no unique index on slot_name to resolve conflicts by.
// Everything else a server reports is treated as transient.
[[nodiscard]] inline auto is_store_shape_sqlstate(std::string_view state) noexcept -> bool {
  return state == "42703"      // undefined_column
         || state == "42804"   // datatype_mismatch
         || state == "42P10"   // invalid_column_reference: no unique index matches ON CONFLICT (slot_name)
         || state == "42809"   // wrong_object_type: the name is a view, sequence, ...
         || state == "23502";  // not_null_violation: an extra NOT NULL column the upsert cannot fill
}

// Another session created the table between our probe and our CREATE TABLE IF NOT EXISTS.
// IF NOT EXISTS does not make concurrent creators safe: the loser fails on a catalog's unique
// index (23505, e.g. the row type's name), on the primary key's constraint name (42710), or finds
// the relation after all (42P07).
[[nodiscard]] inline auto is_concurrent_create_sqlstate(std::string_view state) noexcept -> bool {
  return state == "23505" || state == "42710" || state == "42P07";
}

}  // namespace detail

/**
 * A @ref replicant::checkpoint_store that keeps each slot's checkpoint as one row of a PostgreSQL
 * table:
 *
 * ```sql
 * CREATE TABLE replicant_checkpoints (slot_name text PRIMARY KEY, commit_lsn bigint NOT NULL)
 * ```
 *
 * For a pipeline whose sink writes somewhere without transactions: the library writes the commit
 * LSN here after the sink returned, so a crash repeats at most the one transaction in between.
 * `commit_lsn` holds the LSN's 64 bits as a `bigint` (PostgreSQL has no unsigned type): every LSN
 * round-trips exactly, and those below 2^63 (all of them in practice) read as themselves in SQL.
 *
 * It is also a @ref replicant::progress_store "progress_store": the progress of an incremental
 * snapshot lives in a second table, `progress_table` (one row per slot, `progress text`), created
 * and checked the same way, only when a pipeline uses it.
 *
 * **Lazy, self-healing connection.** Nothing happens at construction. The first call connects
 * (`session_kind::normal`), pins `synchronous_commit = on` for the session (so a write is durable
 * when it returns, whatever the server's or role's default; with synchronous standbys configured it
 * also waits for them) and `client_min_messages = error` (server notices quote names, and libpq
 * would print them), then looks the table up through `search_path`. A missing table is created; an
 * existing one must have the shape above (extra nullable or defaulted columns are fine), be a
 * permanent (logged) table, and have a unique index on `slot_name` alone, or the call fails
 * `errc::store_mismatch`. The check is remembered for the life of the connection. After *any*
 * failure the connection is dropped, so the next call starts afresh: that is how a store outage
 * heals, without a retry loop in here (the pipeline owns retries, backoff and halting).
 *
 * A role that may not create tables can use a table created beforehand: the store creates only
 * when the lookup finds nothing.
 *
 * **Bounded calls.** No call waits longer than `connect_timeout` to connect plus `command_timeout`
 * and a second per command: a lock held on the checkpoint row by another session, a backend that
 * was frozen, a server that stopped answering all end in a transient fault instead of a pipeline
 * that waits for ever. A pipeline's stop() ends a call in progress at once (interrupt(), an
 * @ref replicant::interruptible_store "interruptible_store"). Statements the store gave up on do not
 * linger on the server: `statement_timeout` ends them there too, and from PostgreSQL 14 on
 * `client_connection_check_interval` (one second) ends one whose client went away sooner.
 *
 * @par Errors
 * Error codes only; neither the connection string, the table name nor any server message is ever
 * part of one (last_sqlstate() keeps the SQLSTATE).
 * | code | when | permanent? |
 * |---|---|---|
 * | `errc::invalid_identifier` | the table name is not a plain identifier (found before connecting) | yes |
 * | `errc::invalid_options` | unparseable connection string, non-positive timeout | yes |
 * | `errc::store_mismatch` | the table has another shape, or a stored value is not a checkpoint | yes |
 * | `errc::connection_failed` | the server cannot be reached, the connection was lost, or the server did not answer a command within `command_timeout` and a second | no |
 * | `errc::checkpoint_store_failed` | the server refused a command (permissions, read-only, shutdown, ...), or ended it at its timeout: last_sqlstate() says `55P03` for a lock wait, `57014` for a statement that ran too long | no |
 * | `errc::cancelled` | interrupt() ended the call | no |
 *
 * @par Example
 * @code
 * replicant::postgres_checkpoint_store store{{.conninfo = "host=db.internal dbname=etl"}};
 * auto slot = replicant::slot_name::make("orders_cdc").value();
 * if (auto w = store.write(slot, replicant::lsn{0x16'B374'D848}); !w) {
 *   if (replicant::is_permanent_store_fault(w.error())) return w.error();  // fix the configuration
 *   // transient: call again later
 * }
 * @endcode
 *
 * @par Thread safety
 * One thread at a time per object (it owns one libpq connection), except interrupt(), which any
 * thread or a signal handler may call at any time. Any number of stores, in any number of
 * processes, may share a table: each slot is its own row, and concurrent first uses creating the
 * table are handled.
 *
 * @see replicant::checkpoint_store, replicant::file_checkpoint_store
 */
class postgres_checkpoint_store {
 public:
  /**
   * A store described by @p options. Never connects, and never fails: a bad table name or timeout
   * is reported by every read() and write(), as a permanent fault, so that it reaches the
   * pipeline's halting path like any other store fault.
   * @throws std::bad_alloc only.
   */
  explicit postgres_checkpoint_store(postgres_store_options options);

  postgres_checkpoint_store(const postgres_checkpoint_store&) = delete;
  auto operator=(const postgres_checkpoint_store&) -> postgres_checkpoint_store& = delete;
  /// Takes over @p other's options and connection; @p other may then only be destroyed or
  /// assigned to. Never throws.
  postgres_checkpoint_store(postgres_checkpoint_store&& other) noexcept = default;
  /// Closes this store's connection and takes over @p other's, as the move constructor. Never throws.
  auto operator=(postgres_checkpoint_store&& other) noexcept -> postgres_checkpoint_store& = default;
  /// Closes the connection, if any. Never throws.
  ~postgres_checkpoint_store() = default;

  /**
   * The checkpoint last written for @p slot, or `std::nullopt` when the table has no row for it.
   * Connects, and creates or checks the table, first if needed (see the class comment).
   * @return the LSN, nothing, or an error from the class comment's table; a row whose value is
   *         NULL or not an integer is `errc::store_mismatch`.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto read(const slot_name& slot) -> result<std::optional<lsn>>;

  /**
   * Makes @p at the checkpoint of @p slot, durably (`synchronous_commit = on`): one upsert,
   * `INSERT ... ON CONFLICT (slot_name) DO UPDATE`, in its own transaction.
   * It sets the value as given; keeping checkpoints monotonic is the caller's job.
   * @return nothing, or an error from the class comment's table.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto write(const slot_name& slot, lsn at) -> result<void>;

  /**
   * The incremental-snapshot progress last written for @p slot, or `std::nullopt` when there is
   * none. Creates or checks the progress table first if needed (same rules as the checkpoint
   * table: `progress` must be `text`).
   * @return the token, nothing, or an error from the class comment's table.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto read_progress(const slot_name& slot) -> result<std::optional<std::string>>;

  /**
   * Makes @p token the incremental-snapshot progress of @p slot, durably, in one upsert of its own.
   * @return nothing, or an error from the class comment's table.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto write_progress(const slot_name& slot, std::string_view token) -> result<void>;

  /// The SQLSTATE of the last server error a call ran into (e.g. `"42501"`, insufficient
  /// privilege), empty when the last call got none. For diagnosis: it carries no value. Never throws.
  [[nodiscard]] auto last_sqlstate() const noexcept -> std::string_view { return last_sqlstate_; }

  /// Whether the store holds an open connection whose table has been checked. False before the
  /// first call and after a failed one. Never throws.
  [[nodiscard]] auto is_connected() const noexcept -> bool { return conn_.has_value() && checked_; }

  /// The process id of the server backend of the store's connection (`pg_backend_pid()`), 0 when
  /// there is none. For diagnosis: finding the session in `pg_stat_activity`. Never throws.
  [[nodiscard]] auto backend_pid() const noexcept -> int { return conn_ ? conn_->backend_pid() : 0; }

  /**
   * Ends a call in progress on another thread at once: it fails `errc::cancelled` and drops its
   * connection (the next call reconnects). A call that starts afterwards is not affected. A
   * statement the server is already running for the ended call stops at `command_timeout` at the
   * latest, or commits first. (A backend frozen before it read the statement can even run it
   * later, after a newer write: the store then holds an older checkpoint until the next write, which
   * costs nothing, see docs/checkpoint/lib_owned.md.)
   * Never throws; async-signal-safe (a pipeline's stop() calls it).
   */
  auto interrupt() noexcept -> void {
    if (interrupter_) interrupter_->interrupt();
  }

 private:
  // Fails the current call: the connection goes (the next call reconnects and checks again).
  auto drop(std::error_code ec) noexcept -> unexpected<std::error_code> {
    conn_.reset();
    checked_ = false;
    progress_checked_ = false;
    return unexpected<std::error_code>(ec);
  }
  auto mismatch() noexcept -> unexpected<std::error_code> { return drop(make_error_code(errc::store_mismatch)); }
  // Fails the current call on a command that failed with @p e: a cancel stays a cancel, an error
  // the server reported is @p server_error, anything else a lost connection.
  auto command_failed(std::error_code e, errc server_error) noexcept -> unexpected<std::error_code> {
    if (e == errc::cancelled) return drop(make_error_code(errc::cancelled));
    if (e != errc::server_error) return drop(make_error_code(errc::connection_failed));
    return drop(make_error_code(server_error));
  }

  // The slot as an SQL literal. A slot name is [a-z0-9_] only, so quoting cannot fail.
  [[nodiscard]] static auto slot_literal(const slot_name& slot) -> std::string {
    return "'" + std::string{slot.view()} + "'";
  }

  // Runs one command on the open connection and classifies its failure. Nothing of the server's
  // message is kept, only the SQLSTATE. A timeout the server enforced is a server error like any
  // other (55P03, 57014); one the client enforced, a lost connection.
  auto run(const std::string& sql) -> result<pq::query_result>;

  // Connects, pins the session and makes sure the table is there and of our shape, as needed.
  auto ready() -> result<void>;

  // The connection ready, and the progress table there and of its shape, as needed.
  auto progress_ready() -> result<void>;

  // One of our tables (@p quoted for SQL, @p literal for to_regclass), with its value column
  // @p column of @p type: probed, created when absent, and probed again.
  auto ensure_table(const std::string& quoted, const std::string& literal, std::string_view column,
                    std::string_view type) -> result<void>;

  // CREATE TABLE IF NOT EXISTS, where losing a race to another creator counts as success.
  auto create(const std::string& quoted, std::string_view value_column) -> result<void>;

  // Looks one of our tables up as an unqualified name would resolve (search_path, via to_regclass;
  // @p literal names it) and checks its shape in the catalogs, @p column being its value column,
  // of @p type: true when usable, false when absent, store_mismatch when of another shape. Catalog
  // objects are schema-qualified so that a hostile search_path cannot substitute them.
  auto probe_table(const std::string& literal, std::string_view column, std::string_view type) -> result<bool>;

  postgres_store_options options_;
  std::error_code config_error_;  // a bad table name or timeout, reported by every call
  std::string quoted_table_;      // "name", for SQL
  std::string table_literal_;     // '"name"', for to_regclass
  std::string quoted_progress_;   // the progress table, likewise
  std::string progress_literal_;
  bool progress_checked_ = false;       // the progress table probed on this connection
  std::optional<pq::connection> conn_;  // empty before the first call and after a failure
  bool checked_ = false;                // conn_ is pinned and the table probed
  std::string last_sqlstate_;
  // On the heap so that the store stays movable (an atomic is not) and a pointer to it, which
  // stop() may follow at any moment, stays valid while the pipeline owns the store.
  std::unique_ptr<detail::call_interrupter> interrupter_ = std::make_unique<detail::call_interrupter>();
};

static_assert(interruptible_store<postgres_checkpoint_store>);

static_assert(progress_store<postgres_checkpoint_store>);

}  // namespace replicant

// The store's bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp>
// with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/checkpoint/impl/postgres_store.hpp>
#endif

#endif  // REPLICANT_CHECKPOINT_POSTGRES_STORE_HPP
