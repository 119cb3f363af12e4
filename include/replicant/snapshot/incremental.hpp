// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_INCREMENTAL_HPP
#define REPLICANT_SNAPSHOT_INCREMENTAL_HPP

/// @file
/// replicant::incremental_snapshot: the chunk reader of the resumable, incremental snapshot. It
/// reads the tables of a set of publications in key-ordered chunks, each in a transaction of its
/// own, and writes the watermarks that place each chunk in the replication stream.
///
/// How it fits together (PROTOCOL.md §6.3, the DBLog algorithm): for each chunk the reader writes a
/// low watermark, a transactional logical message that commits into the stream; reads the next
/// `chunk_rows` rows after the last key (`WHERE (key) > (last) ORDER BY key LIMIT n`) under a
/// `REPEATABLE READ` snapshot whose `pg_current_snapshot()` it keeps; then writes a high
/// watermark. The consumer holds the chunk from its low to its high watermark, drops every row a
/// live change touched in between (the live change is at least as new), and delivers the rest at
/// the high watermark, in stream order. The replication pipeline does all of that with the
/// `incremental` snapshot mode; this class is the part that talks to the tables.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/snapshot/detail/progress_codec.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace replicant {

/**
 * Knobs of an incremental snapshot read.
 *
 * @par Example
 * @code
 * replicant::incremental_snapshot_options options{.chunk_rows = 5000, .cancel_fd = stop_event};
 * @endcode
 */
struct incremental_snapshot_options {
  /// Rows per chunk at most (`LIMIT`). Must be at least 1.
  std::size_t chunk_rows = 1024;
  /// A chunk also ends once its rows take this many bytes: the rows after it are read again by the
  /// next chunk. Must be at least 1; a chunk always holds at least one row. Does not apply to a
  /// table read whole (one without a usable key).
  std::size_t chunk_bytes = std::size_t{16} * 1024 * 1024;
  /// A file descriptor that, once readable, stops a command in progress with `errc::cancelled`
  /// (-1: none). The connection should be closed afterwards.
  int cancel_fd = -1;
};

/**
 * One table an incremental snapshot reads.
 *
 * @par Thread safety
 * A value type.
 */
struct incremental_table {
  /// The table's description, shaped exactly as pgoutput's Relation message would describe it (the
  /// published columns, in column order, with their types and replica-identity key flags). Never
  /// null.
  std::shared_ptr<const relation_info> relation;
  /// True when a publication's row filter restricts which rows are read.
  bool row_filtered = false;
  /// The positions (in `relation->columns`) of the columns chunks are ordered and reconciled by, in
  /// key order: the primary key, or the replica identity index under `REPLICA IDENTITY USING
  /// INDEX`. Empty when the table has none, or when a column of it is not published: such a table
  /// is read whole, in one chunk.
  std::vector<std::size_t> key_columns;

  /// Whether the table is read in key-ordered chunks. Never throws.
  [[nodiscard]] auto keyed() const noexcept -> bool { return !key_columns.empty(); }
};

/**
 * The rows of one chunk, as read.
 *
 * Rows are pgoutput TupleData, back to back (the same bytes a streamed row of the table would
 * hold: parse one with `pgoutput::parse_tuple_data`). Reused from chunk to chunk.
 */
struct incremental_chunk {
  /// The index of the table in @ref incremental_snapshot::tables.
  std::size_t table = 0;
  /// `pg_current_snapshot()` of the read (`xmin:xmax:xip,...`): which transactions it saw.
  std::string snapshot;
  /// The rows' TupleData, back to back.
  std::vector<std::byte> tuples;
  /// Where each row ends in `tuples`.
  std::vector<std::size_t> row_ends;
  /// Each row's key, encoded (keyed tables only): the text of its key columns.
  std::vector<std::string> keys;
  /// No row of the table follows this chunk's last one.
  bool last_for_table = false;
  /// The table no longer has the shape it was listed with (a column added, dropped or retyped, a
  /// new replica identity, or the table dropped): nothing was read. Open a new reader.
  bool reshaped = false;

  /// Number of rows. Never throws.
  [[nodiscard]] auto rows() const noexcept -> std::size_t { return row_ends.size(); }
  /// Forgets the rows, keeping the memory. Never throws.
  auto clear() noexcept -> void;
};

/**
 * The chunk reader of an incremental snapshot, over an ordinary (non-replication) connection.
 *
 * **open()** lists the tables of the publications, each once, in the byte order of (schema,
 * name), with the shape pgoutput streams them in (column lists honoured) and the key chunks are
 * ordered by. **read_chunk()** reads one chunk of a table after a key, in a `REPEATABLE READ READ
 * ONLY` transaction of its own whose first statement is `pg_current_snapshot()`, with
 * `COPY (SELECT ...) TO STDOUT` (row filters honoured, with several publications the rows that
 * pass any of their filters). **emit_watermark()** writes a watermark: a transactional logical
 * message in a transaction of its own, so that it reaches the replication stream at its commit.
 *
 * The rows' text is the streamed rows' text: the connection pins the replication connection's
 * session settings (see @ref pq::connection), so the key text of a row is the same on both sides.
 *
 * **Errors** are value-free `std::error_code`s: `errc::server_error` (the SQLSTATE is in
 * `conn.last_error()`; serialization failures, `40001`, are the ones worth retrying),
 * `errc::connection_failed`, `errc::cancelled`, `errc::decode_failure` (COPY text the server would
 * not write), `errc::protocol_violation` (catalog answers of an unexpected shape),
 * `errc::invalid_options` (bad options, or one table with different column lists in different
 * publications), `errc::publication_missing`, or an @ref identifier_error for a malformed
 * publication name. A failed read rolls its transaction back.
 *
 * @par Example
 * @code
 * auto reader = replicant::incremental_snapshot::open(conn, publications, {.chunk_rows = 1000});
 * if (!reader) return reader.error();
 * replicant::incremental_chunk chunk;
 * std::string after;  // an encoded key; empty: from the table's first row
 * for (;;) {
 *   if (auto low = reader->emit_watermark("low 7"); !low) return low.error();
 *   if (auto read = reader->read_chunk(0, after, chunk); !read) return read.error();
 *   if (auto high = reader->emit_watermark("high 7"); !high) return high.error();
 *   // ... reconcile chunk against the stream between the two watermarks ...
 *   if (chunk.last_for_table) break;
 *   after = chunk.keys.back();
 * }
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe. The connection is in use during each call.
 */
class incremental_snapshot {
 public:
  /// The prefix of the watermark messages emit_watermark() writes.
  static constexpr std::string_view watermark_prefix = detail::watermark_prefix;

  /**
   * Lists the tables of @p publications on @p conn.
   *
   * @param conn an idle, ordinary connection (opened with @ref pq::connection::open) to the
   *        database the publications belong to; it must outlive this object. PostgreSQL 15 or later.
   * @param publications one or more publication names (used quoted, exactly as given).
   * @param options chunk size and cancellation.
   * @return the reader, or an error (see the class description).
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] static auto open(pq::connection& conn, std::span<const std::string> publications,
                                 const incremental_snapshot_options& options = {}) -> result<incremental_snapshot>;

  /// The tables, in the order the snapshot reads them.
  [[nodiscard]] auto tables() const noexcept -> std::span<const incremental_table> { return tables_; }

  /**
   * Writes a watermark: `pg_logical_emit_message(true, watermark_prefix, content)` in a transaction
   * of its own, which commits into the replication stream after everything that committed before
   * it (watermarks are ordered with the stream by their commit).
   * @param content ASCII without quotes or backslashes.
   * @return the message's LSN, or an error.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto emit_watermark(std::string_view content) -> result<lsn>;

  /**
   * Reads the next chunk of table @p table: the first `chunk_rows` rows (in key order) whose key is
   * above @p after_key, or every row when the table has no usable key.
   *
   * @param table an index into tables().
   * @param after_key an encoded key, as in @ref incremental_chunk::keys; empty: from the start.
   * @param out receives the rows (cleared first); `out.reshaped` when the table's shape changed
   *        since open(), and then no row.
   * @return nothing, or an error (see the class description; the transaction is then rolled back).
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto read_chunk(std::size_t table, std::string_view after_key, incremental_chunk& out) -> result<void>;

 private:
  incremental_snapshot(pq::connection& conn, const incremental_snapshot_options& options)
      : conn_(&conn), options_(options) {}

  [[nodiscard]] auto list_tables(std::span<const std::string> publications) -> result<void>;
  [[nodiscard]] auto copy_rows(const std::string& command, std::size_t table, bool bounded, incremental_chunk& out)
      -> result<void>;

  // How a table's chunks are read. Holds server-written SQL (a row filter) and, once a key is
  // filled in, row values: never goes into an error.
  struct statement {
    std::string select;  // "SELECT <columns> FROM [ONLY] <table>"
    std::string filter;  // "(<f1>) OR (<f2>)", or empty
    std::string key;     // "(<k1>, <k2>)", or empty for a table read whole
    std::string order;   // "<k1>, <k2>"
    std::string oid;     // the table's OID, as text
    std::string shape;   // its shape signature when listed (see shape_signature_sql)
  };

  pq::connection* conn_ = nullptr;
  incremental_snapshot_options options_{};
  std::vector<incremental_table> tables_;
  std::vector<statement> statements_;
};

}  // namespace replicant

// The bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp> with
// REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/impl/incremental.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_INCREMENTAL_HPP
