// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_POINT_IN_TIME_HPP
#define REPLICANT_SNAPSHOT_POINT_IN_TIME_HPP

/// @file
/// replicant::point_in_time_snapshot: reads every table of a set of publications exactly as of the
/// snapshot a replication slot exported when it was created, and delivers the rows in batches of
/// replicant::change (`change_op::snapshot`), typed like streamed rows.
///
/// How it fits together (PROTOCOL.md §6.1, §6.2): `CREATE_REPLICATION_SLOT s LOGICAL pgoutput
/// (SNAPSHOT 'export')` returns the slot's consistent point and the name of a snapshot that shows
/// exactly the data whose later changes the slot will stream. A second, ordinary connection imports
/// that snapshot (`SET TRANSACTION SNAPSHOT`), reads the tables with `COPY (SELECT ...) TO STDOUT`,
/// and streaming then starts at the consistent point: no gap and no overlap.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/tuple.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/pq/copy.hpp>
#include <replicant/snapshot/batch.hpp>
#include <replicant/snapshot/detail/copy_text.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant {

/**
 * What `CREATE_REPLICATION_SLOT ... (SNAPSHOT 'export')` returned about the snapshot it exported
 * (PROTOCOL.md §1.4): its `snapshot_name` and `consistent_point` columns.
 *
 * The snapshot lives only until the replication connection that exported it runs its next command
 * (any command) or closes: import it (@ref point_in_time_snapshot::open) before using that
 * connection again. Once imported, the replication connection is free, e.g. for `START_REPLICATION`.
 */
struct exported_snapshot {
  /// The snapshot's identifier, e.g. `"00000003-0000001B-1"` (checked by @ref validate_snapshot_name).
  std::string name;
  /// The slot's consistent point: every transaction that commits after it will be streamed.
  lsn consistent_point{};
};

/**
 * Checks that @p name has the shape of an exported snapshot identifier: 1 to 64 characters from
 * `0-9`, `A-F` and `-`, the only characters PostgreSQL accepts in one (`ImportSnapshot`).
 *
 * The name ends up quoted in `SET TRANSACTION SNAPSHOT '...'`; the narrow shape is what keeps
 * anything else out of that statement, quoting or not.
 * @return nothing, or `identifier_error::empty`, `too_long` or `bad_character` (never the text).
 * @par Exceptions
 * Never throws.
 */
[[nodiscard]] REPLICANT_DECL auto validate_snapshot_name(std::string_view name) noexcept -> result<void>;

/**
 * Knobs of a snapshot read.
 *
 * @par Example
 * @code
 * replicant::snapshot_options options{.batch_rows = 5000, .cancel_fd = stop_event};
 * @endcode
 */
struct snapshot_options {
  /// Rows per batch at most (the last batch of a table may hold fewer). Must be at least 1.
  std::size_t batch_rows = 1000;
  /// A batch is also cut once its rows take this many bytes (in the reader's buffer), so that a
  /// table of very wide rows does not hold `batch_rows` of them in memory. Must be at least 1; a
  /// batch always holds at least one row.
  std::size_t batch_bytes = std::size_t{16} * 1024 * 1024;
  /// A file descriptor that, once readable, stops the read with `errc::cancelled` (-1: none).
  /// Checked while waiting for the server and before each batch.
  int cancel_fd = -1;
};

/**
 * One table a snapshot reads.
 *
 * @par Thread safety
 * A value type.
 */
struct snapshot_table {
  /// The table's description, shaped exactly as pgoutput's Relation message would describe it:
  /// the published columns only (the publication's column list; no generated columns before
  /// PostgreSQL 18), in column order, with their type OIDs, type modifiers and replica-identity key
  /// flags. Never null.
  std::shared_ptr<const relation_info> relation;
  /// True when a publication's row filter restricts which rows are read (PostgreSQL 15+).
  bool row_filtered = false;
};

/**
 * What a completed snapshot read delivered.
 */
struct snapshot_summary {
  /// Tables read (each announced with at least one batch).
  std::size_t tables = 0;
  /// Rows delivered, all tables together.
  std::uint64_t rows = 0;
  /// The snapshot's consistent point, where streaming takes over.
  lsn consistent_point{};
};

/**
 * A point-in-time snapshot of the tables of one or more publications, read through an ordinary
 * (non-replication) connection.
 *
 * **open()** imports the exported snapshot in a `REPEATABLE READ READ ONLY` transaction and lists
 * the tables from `pg_publication_tables` as of that snapshot: each table once, however many of
 * the publications contain it. A table's rows are restricted the way pgoutput would restrict
 * streamed rows: only the columns of the publication's column list, and only the rows that pass its
 * row filter (with several publications, the rows that pass any of their filters; none when one of
 * them has no filter).
 *
 * **read()** copies the tables one after another with `COPY (SELECT ...) TO STDOUT` (text format),
 * turns each row into a pgoutput TupleData in a reused buffer, and delivers the rows in
 * @ref snapshot_batch es of at most `batch_rows`, then commits. The rows' text is the same as a
 * streamed row's: the connection pins the same session settings as the replication connection
 * (see @ref pq::connection), and both texts come from the same type output functions, so values
 * cast identically.
 *
 * Tables are read in the order of their schema and name (byte order); rows within a table in no
 * particular order. A table with no rows still gets one, empty, batch.
 *
 * **Errors** are value-free `std::error_code`s: `errc::server_error` (the SQLSTATE is in
 * `conn.last_error()`; an import of a snapshot that no longer exists is `22023` or `42704`),
 * `errc::connection_failed`, `errc::cancelled`, `errc::decode_failure` (COPY text that the server
 * would not write), `errc::protocol_violation` (catalog answers of an unexpected shape),
 * `errc::invalid_options` (bad options, or one table with different column lists in different
 * publications, which pgoutput refuses too), `errc::publication_missing`, an
 * @ref identifier_error for a malformed snapshot name or publication name, or whatever the batch
 * handler returned. Any failure, or an exception from the handler, rolls the transaction back;
 * the pipeline turns them into `halt_reason::snapshot_failed`.
 *
 * @par Example
 * @code
 * // repl: a replication connection; conn: an ordinary one to the same database.
 * auto slot = repl.exec("CREATE_REPLICATION_SLOT s LOGICAL pgoutput (SNAPSHOT 'export')");
 * replicant::exported_snapshot exported{std::string{slot->get(0, 2)}, replicant::parse_lsn(slot->get(0, 1)).value()};
 * const std::vector<std::string> publications{"orders_pub"};
 * auto snapshot = replicant::point_in_time_snapshot::open(conn, exported, publications);
 * if (!snapshot) return snapshot.error();
 * auto done = snapshot->read([&](const replicant::snapshot_batch& batch, const replicant::snapshot_context& ctx) {
 *   return sink.handle_snapshot(batch, ctx);
 * });
 * if (!done) return done.error();
 * // then sink.handle_snapshot_complete(done->consistent_point), and START_REPLICATION there.
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe. The connection is in use from open() until read()
 * returns (or the object is destroyed); the handler must not use it.
 */
class point_in_time_snapshot {
 public:
  /**
   * Imports @p snapshot on @p conn and lists the tables of @p publications.
   *
   * @param conn an idle, ordinary connection (opened with @ref pq::connection::open, which pins the
   *        session settings), to the database the slot belongs to. It must outlive this object.
   * @param snapshot the exported snapshot; its name is checked with @ref validate_snapshot_name.
   * @param publications one or more publication names (used quoted, exactly as given).
   * @param options batch size and cancellation.
   * @return the snapshot, inside its open transaction, or an error (see the class description).
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] static auto open(pq::connection& conn, const exported_snapshot& snapshot,
                                 std::span<const std::string> publications, const snapshot_options& options = {})
      -> result<point_in_time_snapshot>;

  point_in_time_snapshot(const point_in_time_snapshot&) = delete;
  auto operator=(const point_in_time_snapshot&) -> point_in_time_snapshot& = delete;
  /// Takes over @p other's transaction. Never throws.
  point_in_time_snapshot(point_in_time_snapshot&& other) noexcept;
  /// Rolls back this object's transaction, if open, and takes over @p other's. Never throws.
  auto operator=(point_in_time_snapshot&& other) noexcept -> point_in_time_snapshot&;
  /// Rolls back the transaction if it is still open (never read, or a read that failed). Never throws.
  ~point_in_time_snapshot() { abort(); }

  /// The tables, in the order read() delivers them.
  [[nodiscard]] auto tables() const noexcept -> std::span<const snapshot_table> { return tables_; }

  /// The snapshot's consistent point.
  [[nodiscard]] auto consistent_point() const noexcept -> lsn { return consistent_point_; }

  /// True while the snapshot's transaction is open: after open(), until read() returned or abort().
  [[nodiscard]] auto is_open() const noexcept -> bool { return in_transaction_; }

  /**
   * Reads every table and hands the rows to @p on_batch, then commits.
   *
   * @p on_batch is called once per batch, tables in the order of tables(), with the batch (valid
   * only during the call) and its @ref snapshot_context. It may be called while the table's COPY
   * is still running on the connection, so it must not use the connection.
   *
   * @return the summary, or the first error (see the class description); the transaction is then
   *         rolled back and the object is no longer open. Only one read per object: a second call
   *         (or a call after abort()) fails with `errc::invalid_options`.
   * @throws whatever @p on_batch throws (the transaction is rolled back first), and std::bad_alloc.
   */
  template <snapshot_batch_handler Handler>
  [[nodiscard]] auto read(Handler&& on_batch) -> result<snapshot_summary>;

  /// Ends the transaction without reading (or after a failure): `ROLLBACK`, best effort. Never throws.
  auto abort() noexcept -> void;

 private:
  point_in_time_snapshot(pq::connection& conn, const exported_snapshot& snapshot, const snapshot_options& options)
      : conn_(&conn), consistent_point_(snapshot.consistent_point), options_(options) {}

  [[nodiscard]] auto import_snapshot(std::string_view name) -> result<void>;
  [[nodiscard]] auto list_tables(std::span<const std::string> publications) -> result<void>;
  [[nodiscard]] auto cancel_requested() const noexcept -> bool;
  template <class Handler>
  [[nodiscard]] auto deliver(Handler& on_batch, std::size_t table, bool last, std::uint64_t table_rows_before,
                             std::uint64_t rows_before) -> result<void>;

  pq::connection* conn_ = nullptr;
  lsn consistent_point_{};
  snapshot_options options_{};
  bool in_transaction_ = false;
  std::vector<snapshot_table> tables_;
  // The COPY statement of each table (same order as tables_). Holds a server-written row filter,
  // so, like any SQL text here, it never goes into an error.
  std::vector<std::string> copy_commands_;
  // The pending batch: the TupleData of each row back to back, where each one ends, and the changes
  // viewing them. Reused from batch to batch and table to table.
  std::vector<std::byte> arena_;
  std::vector<std::size_t> row_ends_;
  std::vector<change> changes_;
};

// The templates' bodies: in every unit, in both modes (they depend on the handler's type).

template <class Handler>
auto point_in_time_snapshot::deliver(Handler& on_batch, std::size_t table, bool last, std::uint64_t table_rows_before,
                                     std::uint64_t rows_before) -> result<void> {
  if (cancel_requested()) return fail(errc::cancelled);
  const relation_info& relation = *tables_[table].relation;
  changes_.clear();
  std::size_t begin = 0;
  for (const std::size_t end : row_ends_) {
    // Re-parsed by the decoder's own TupleData reader: the only way to a tuple_data, and a check
    // that the encoding above produced exactly what a streamed row would hold.
    const auto tuple = parse_tuple_data(std::span<const std::byte>{arena_.data() + begin, end - begin});
    if (!tuple) return unexpected(tuple.error());
    changes_.emplace_back(change_op::snapshot, relation, *tuple);
    begin = end;
  }
  snapshot_context context;
  context.consistent_point = consistent_point_;
  context.first_for_table = table_rows_before == 0;
  context.last_for_table = last;
  context.table_index = table;
  context.table_count = tables_.size();
  context.table_rows_before = table_rows_before;
  context.rows_before = rows_before;
  const snapshot_batch batch{relation, changes_};
  auto handled = std::invoke(on_batch, batch, std::as_const(context));
  changes_.clear();
  arena_.clear();
  row_ends_.clear();
  return handled;
}

template <snapshot_batch_handler Handler>
auto point_in_time_snapshot::read(Handler&& on_batch) -> result<snapshot_summary> {
  if (!in_transaction_) return fail(errc::invalid_options);  // read already, or aborted
  // Whatever ends this call early (an error, the handler's exception) leaves no open transaction.
  struct rollback_guard {
    point_in_time_snapshot* self;
    ~rollback_guard() { self->abort(); }
  } const guard{this};

  snapshot_summary summary;
  summary.consistent_point = consistent_point_;
  arena_.clear();
  row_ends_.clear();
  for (std::size_t table = 0; table < tables_.size(); ++table) {
    const std::size_t columns = tables_[table].relation->columns.size();
    auto copy = pq::copy_out::start(*conn_, copy_commands_[table], options_.cancel_fd);
    if (!copy) return unexpected(copy.error());
    std::uint64_t table_rows = 0;  // rows delivered in earlier batches of this table
    for (;;) {
      auto line = copy->next();
      if (!line) return unexpected(line.error());
      if (!*line) break;
      // A full batch goes out only once another row exists, so that the batch that ends a table is
      // always the one marked last_for_table.
      if (row_ends_.size() >= options_.batch_rows || arena_.size() >= options_.batch_bytes) {
        const std::uint64_t n = row_ends_.size();
        if (auto handled = deliver(on_batch, table, false, table_rows, summary.rows); !handled) {
          return unexpected(handled.error());
        }
        table_rows += n;
        summary.rows += n;
      }
      if (const auto ec = detail::copy_text_row_to_tuple(**line, columns, arena_); ec) return unexpected(ec);
      row_ends_.push_back(arena_.size());
    }
    const std::uint64_t n = row_ends_.size();
    if (auto handled = deliver(on_batch, table, true, table_rows, summary.rows); !handled) {
      return unexpected(handled.error());
    }
    summary.rows += n;
    ++summary.tables;
  }
  if (auto committed = conn_->exec("COMMIT"); !committed) return unexpected(committed.error());
  in_transaction_ = false;
  return summary;
}

/**
 * Imports @p snapshot and reads it in one call: point_in_time_snapshot::open, then read().
 *
 * @return the summary, or the first error (see @ref point_in_time_snapshot).
 * @throws whatever @p on_batch throws, and std::bad_alloc.
 */
template <snapshot_batch_handler Handler>
[[nodiscard]] auto read_point_in_time_snapshot(pq::connection& conn, const exported_snapshot& snapshot,
                                               std::span<const std::string> publications, Handler&& on_batch,
                                               const snapshot_options& options = {}) -> result<snapshot_summary> {
  auto opened = point_in_time_snapshot::open(conn, snapshot, publications, options);
  if (!opened) return unexpected(opened.error());
  return opened->read(std::forward<Handler>(on_batch));
}

}  // namespace replicant

// The bodies that are not templates: in every unit header-only, in the one unit that includes
// <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/impl/point_in_time.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_POINT_IN_TIME_HPP
