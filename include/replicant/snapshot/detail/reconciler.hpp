// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_RECONCILER_HPP
#define REPLICANT_SNAPSHOT_DETAIL_RECONCILER_HPP

/// @file
/// The watermark reconciler of the incremental snapshot: it watches the committed transactions of
/// the replication stream, in commit order, recognises the reader's low and high watermarks, and
/// decides which rows of a chunk survive: those whose key no live change touched while the chunk
/// was open (PROTOCOL.md §6.3). Pure bookkeeping, no I/O: the pipeline drives it from its applier
/// thread, and the unit tests drive it with hand-built transactions.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/snapshot/detail/progress_codec.hpp>
#include <replicant/snapshot/incremental.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace replicant::detail {

// A chunk on its way from the reader to the applier, with what the applier needs to place it.
struct snapshot_chunk {
  incremental_chunk rows;                         // as read
  std::shared_ptr<const relation_info> relation;  // the table's shape as read
  std::uint32_t epoch = 0;                        // of the watermarks around it
  std::uint64_t seq = 0;
  bool keyed = true;                     // false: the whole table, in this one chunk
  bool read_contended = false;           // the read failed retryably: discard and read again
  std::optional<xid_snapshot> snapshot;  // what the read saw
  std::size_t table_index = 0;           // among the snapshot's tables
  std::size_t table_count = 0;
  snapshot_position start;  // where the snapshot stood before it
  snapshot_position end;    // where it stands once this chunk is applied
  std::vector<bool> keep;   // per row, filled in by the reconciler
};

// A chunk's window in the stream: its low and high watermarks' commit positions.
struct snapshot_window {
  std::uint32_t epoch = 0;
  std::uint64_t seq = 0;
  std::uint32_t table_oid = 0;
  lsn low{};
  lsn high{};
};

/**
 * Matches watermarks and corrects chunks against the live stream.
 *
 * Every transaction of the stream goes through observe(), in commit order. For each table still to
 * be read by the snapshot (track()), it records which keys the transaction touched: the new key of an insert
 * or update, the old key an update or delete carries, a table-wide mark for a truncate, and an
 * "unknown" mark when a key column's value is not in the row (an unchanged TOAST value). Those
 * records, with the transaction's xid and commit position, form the history. observe() also
 * recognises this run's watermarks (by nonce and epoch) and reports a chunk's window once its high
 * watermark arrives; reconcile() then marks the rows of the chunk to deliver:
 *
 * - a row whose key was touched by a transaction that committed inside the window is dropped: the
 *   live change was delivered already, and is at least as new as the row read;
 * - so is one touched by a transaction that committed *before* the low watermark but was not
 *   visible to the read (the commit-visibility caveat, decided with the read's
 *   `pg_current_snapshot()`);
 * - a truncate of the table drops every row; an "unknown" mark, or any change at all to a table
 *   read whole (no key to tell rows apart), makes the chunk *contended*, as does dropping more than
 *   `drop_cap` rows: the caller discards it and reads it again.
 *
 * History entries that the read saw are then forgotten: every later read sees them too. What the
 * read did not see stays, for the next chunk's caveat check.
 */
class incremental_reconciler {
 public:
  /// A reconciler for the run whose watermarks carry @p nonce.
  explicit incremental_reconciler(std::uint64_t nonce) noexcept : nonce_(nonce) {}

  /// The run's nonce, and the current epoch (bumped by rewind()).
  [[nodiscard]] auto nonce() const noexcept -> std::uint64_t { return nonce_; }
  [[nodiscard]] auto epoch() const noexcept -> std::uint32_t { return epoch_; }

  /// Records changes of table @p oid from now on, keyed by the columns named @p key_columns (in key
  /// order; empty for a table read whole).
  auto track(std::uint32_t oid, std::vector<std::string> key_columns) -> void {
    tracked_[oid] = tracked_table{std::move(key_columns), nullptr, {}, false};
  }
  /// Stops recording table @p oid (the snapshot has read all of it).
  auto untrack(std::uint32_t oid) -> void { tracked_.erase(oid); }
  /// Whether table @p oid is recorded.
  [[nodiscard]] auto tracking(std::uint32_t oid) const -> bool { return tracked_.count(oid) != 0; }

  /// What observe() found in a transaction.
  struct observation {
    /// The transaction holds nothing but watermark messages (of any run): not for the sink.
    bool watermark_only = false;
    /// This run's high watermark closed a window.
    std::optional<snapshot_window> closed;
  };

  /**
   * Looks at the next committed transaction of the stream. When the changes of a spilled
   * transaction cannot be read back, what it found is incomplete and `t.read_error()` says why.
   */
  auto observe(const transaction& t) -> observation;

  /// What reconcile() decided.
  struct outcome {
    std::size_t kept = 0;
    std::size_t dropped = 0;
    bool contended = false;
  };

  /**
   * Marks the rows of @p chunk to deliver (`chunk.keep`) for its window @p w, and forgets the
   * history its read saw. A chunk is contended when its read was, when a change it cannot place
   * touched its table, or when more than @p drop_cap rows are dropped.
   */
  auto reconcile(const snapshot_window& w, snapshot_chunk& chunk, std::size_t drop_cap) -> outcome;

  /// Abandons the open window and starts a new epoch: watermarks of the old one are ignored from
  /// now on (the chunks read ahead under it are discarded with it). @return the new epoch.
  auto rewind() noexcept -> std::uint32_t;

  /// Transactions remembered in the history (for tests and bounds).
  [[nodiscard]] auto history_size() const noexcept -> std::size_t { return history_.size(); }

 private:
  enum class touch_kind : std::uint8_t { key, truncated, unknown };
  struct touch {
    std::uint32_t oid = 0;
    touch_kind what = touch_kind::key;
    std::string key;
  };
  struct history_entry {
    transaction_id xid = 0;
    lsn commit{};
    std::vector<touch> touches;
  };
  struct tracked_table {
    std::vector<std::string> key_columns;
    const relation_info* shape = nullptr;  // the relation the positions were found in
    std::vector<std::size_t> positions;    // of the key columns in it, in key order
    bool mapped = false;                   // every key column is in it
  };

  auto record(const transaction& t) -> void;

  auto add_key(history_entry& e, tracked_table& table, std::uint32_t oid, const relation_info& shape,
               const tuple_data& tuple) -> void;

  std::uint64_t nonce_;
  std::uint32_t epoch_ = 0;
  std::optional<snapshot_window> window_;
  std::unordered_map<std::uint32_t, tracked_table> tracked_;
  std::vector<history_entry> history_;
  std::vector<std::string_view> texts_;  // reused per key
};

}  // namespace replicant::detail

// The bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp> with
// REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/detail/impl/reconciler.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_DETAIL_RECONCILER_HPP
