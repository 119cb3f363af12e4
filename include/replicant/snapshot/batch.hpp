// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_BATCH_HPP
#define REPLICANT_SNAPSHOT_BATCH_HPP

/// @file
/// What a snapshot delivers to a sink: replicant::snapshot_batch, the rows of one table
/// read in one go, and replicant::snapshot_context, where that batch stands in the snapshot.
/// Shared by every snapshot reader (replicant/snapshot/point_in_time.hpp, and the incremental
/// snapshot of the replication pipeline).

#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/relation.hpp>

#include <range/v3/range_fwd.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>

namespace replicant {

/**
 * A batch of snapshot rows, all of one table: each a @ref change with `op() == change_op::snapshot`
 * whose `record()` is the row as of the snapshot.
 *
 * The rows are typed exactly like streamed rows: the same @ref relation_info shape (columns, type
 * OIDs, type modifiers, key flags) and the same text the server would have streamed, so
 * `field::value()` gives equal values for equal data whichever way a row arrived.
 *
 * A batch is a view over its rows (`std::ranges::view`, range-v3's `ranges::view_`, random access
 * and sized): `batch | std::views::filter(f)`, `batch | ranges::views::transform(g)` and
 * `replicant::rows<T>(batch, batch.table())` (replicant/model/rows.hpp) work on it, and copying it
 * copies two pointers, never a row.
 *
 * A batch can be empty: a table with no rows is still announced once, with
 * `first_for_table` and `last_for_table` both set, so that a sink clears it (see
 * @ref snapshot_context).
 *
 * @par Example
 * @code
 * auto handle_snapshot(const replicant::snapshot_batch& batch, const replicant::snapshot_context& ctx)
 *     -> replicant::result<void> {
 *   if (ctx.first_for_table) truncate(batch.table());  // redo-safety: a retried snapshot starts clean
 *   for (const replicant::change& c : batch) upsert(batch.table(), c.record());
 *   return {};
 * }
 * @endcode
 *
 * @par Thread safety
 * A view, valid during the callback that received it: the rows point into the reader's buffer,
 * which the next batch reuses. Copy what you keep (`value::own()`).
 */
class snapshot_batch : public std::ranges::view_base, public ::ranges::view_base {
 public:
  /// No rows of no table: what a default-constructed view is (range-v3 asks views to be
  /// semiregular). @pre relation() and table() are not called on it.
  snapshot_batch() = default;
  /// The rows @p rows of the table described by @p relation. @pre every row's relation is
  /// @p relation.
  snapshot_batch(const relation_info& relation, std::span<const change> rows) noexcept
      : relation_(&relation), rows_(rows) {}

  /// The table's description, as a streamed row of it would carry.
  [[nodiscard]] auto relation() const noexcept -> const relation_info& { return *relation_; }
  /// The table's schema-qualified name (an identifier: it may be logged and reported).
  [[nodiscard]] auto table() const noexcept -> table_ref { return table_ref{relation_->schema, relation_->table}; }
  /// The rows.
  [[nodiscard]] auto changes() const noexcept -> std::span<const change> { return rows_; }
  /// Number of rows.
  [[nodiscard]] auto size() const noexcept -> std::size_t { return rows_.size(); }
  /// True when the batch holds no row (an empty table).
  [[nodiscard]] auto empty() const noexcept -> bool { return rows_.empty(); }
  /// The first row.
  [[nodiscard]] auto begin() const noexcept -> std::span<const change>::iterator { return rows_.begin(); }
  /// Past the last row.
  [[nodiscard]] auto end() const noexcept -> std::span<const change>::iterator { return rows_.end(); }

 private:
  const relation_info* relation_ = nullptr;
  std::span<const change> rows_{};
};

/**
 * Where a @ref snapshot_batch stands in its snapshot: which table, which part of it, and how far
 * the snapshot has come. Only positions and counts: never a value.
 *
 * @par Thread safety
 * A value type.
 */
struct snapshot_context {
  /// Point-in-time: the LSN the snapshot was taken at: streaming takes over from here, and every
  /// transaction that commits after it will be streamed. The position a sink persists in
  /// `handle_snapshot_complete` once every batch is stored. Incremental: the commit LSN of the
  /// chunk's high watermark, the place in the stream the chunk is delivered at (a sink need not
  /// store it; its checkpoint stays that of its last transaction).
  lsn consistent_point{};
  /// The first batch of its table. A sink must clear what it holds of the table before storing
  /// this batch: a snapshot that was interrupted and is taken again must not leave rows behind that
  /// the new snapshot no longer has. In an incremental snapshot this is an empty batch per table,
  /// delivered before anything else when the snapshot starts, and the one chunk of a table read
  /// whole (it has no key to upsert by).
  bool first_for_table = false;
  /// The last batch of its table: every row of the table as of the snapshot has been delivered.
  bool last_for_table = false;
  /// The table's position among the snapshot's tables, from 0.
  std::size_t table_index = 0;
  /// How many tables the snapshot reads.
  std::size_t table_count = 0;
  /// Rows of this table delivered in earlier batches.
  std::uint64_t table_rows_before = 0;
  /// Rows of all tables delivered in earlier batches.
  std::uint64_t rows_before = 0;
  /// Incremental snapshot only (empty for a point-in-time one): the snapshot's progress once this
  /// batch is stored, an opaque token. A sink that owns its checkpoint stores it atomically with
  /// the batch and returns it from `snapshot_progress()`; under a library-owned checkpoint the
  /// library writes it to the store after the call. It holds the last key read, a row value: keep
  /// it like row data. Valid during the call.
  std::string_view progress{};
  /// Incremental snapshot only: this batch completes the snapshot (the last chunk of the last
  /// table).
  bool complete = false;
};

/**
 * A callable that receives snapshot batches: `result<void> f(const snapshot_batch&, const
 * snapshot_context&)`. An error it returns stops the snapshot and is handed back unchanged; an
 * exception it throws propagates, and the reader's transaction is rolled back either way.
 */
template <class F>
concept snapshot_batch_handler =
    std::invocable<F&, const snapshot_batch&, const snapshot_context&> &&
    std::same_as<std::invoke_result_t<F&, const snapshot_batch&, const snapshot_context&>, result<void>>;

}  // namespace replicant

#endif  // REPLICANT_SNAPSHOT_BATCH_HPP
