// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_TRANSACTION_HPP
#define REPLICANT_MODEL_TRANSACTION_HPP

/// @file
/// replicant::transaction: a committed transaction, the unit of delivery and of the exactly-once
/// watermark; and replicant::logical_message, a `pg_logical_emit_message` record.

#include <replicant/model/change.hpp>
#include <replicant/model/tuple.hpp>
#include <replicant/model/transaction_fwd.hpp>
#include <replicant/model/detail/frame_arena.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/detail/spilled_records.hpp>
#include <replicant/model/spill_part.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

namespace replicant {

class assembler;

/**
 * A logical decoding message (`pg_logical_emit_message`).
 *
 * Its prefix and content are **user data**: like row values, they never appear in an error, a log
 * line or telemetry. They are views, valid during the callback that received the message.
 */
struct logical_message {
  /// True when emitted as part of a transaction (it then rides that transaction, effect-once with
  /// it); false for a message that stands alone (delivered at least once).
  bool transactional = false;
  /// The end of the message's WAL record: what `pg_logical_emit_message` returned.
  lsn message_lsn{};
  /// The prefix chosen by the emitter.
  std::string_view prefix{};
  /// The content, raw bytes (not converted to any encoding; may contain NUL).
  std::span<const std::byte> content{};
};

/// Where a transaction came from when it was itself replicated into this server.
struct origin_info {
  /// The replication origin's name (an identifier of the origin node, not row data).
  std::string_view name{};
  /// The transaction's commit LSN on the origin node.
  lsn origin_lsn{};
};

/**
 * Thrown while iterating the changes of a spilled transaction (see @ref replicant::spill_policy "spill_policy") when its
 * @ref replicant::spill_part "spill_part" cannot be read back. The pipeline turns it into the halt `spill_io_failed`; a sink
 * that lets it pass (and so does not commit a partial transaction) loses nothing. Value-free.
 */
class spill_error : public std::system_error {
 public:
  /// An error for @p code (`errc::io_failed` or `errc::decode_failure`).
  explicit spill_error(std::error_code code) : std::system_error(code) {}
};

/**
 * The changes of one transaction, in the order they were made.
 *
 * A **single-pass input range**: iterate it once, during the callback. For a transaction held in
 * memory that is all there is to it. For one spilled by the spill policy (`disk_spill`, or a
 * user's) the changes are read back from its @ref spill_part as the iteration goes, each one valid
 * only until the iterator moves on; the in-memory tail follows. Iterating again reads the part
 * again. A failed read throws @ref spill_error.
 */
class change_range {
 public:
  /// An input iterator over the changes.
  class iterator {
   public:
    /// Iterator traits: an input iterator (single pass), because spilled changes are read back from
    /// their part one at a time as it moves.
    ///@{
    using value_type = change;
    using reference = const change&;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::input_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    ///@}

    /// A singular iterator.
    iterator() = default;
    /// The current change.
    [[nodiscard]] auto operator*() const noexcept -> const change& { return from_disk_ ? *from_disk_->current_ : *at_; }
    /// Its address.
    [[nodiscard]] auto operator->() const noexcept -> const change* { return &**this; }
    /// Moves to the next change. @throws spill_error when a spilled part cannot be read back.
    auto operator++() -> iterator& {
      if (from_disk_ != nullptr) {
        if (!from_disk_->read_next()) from_disk_ = nullptr;  // on to the changes held in memory
      } else {
        ++at_;
      }
      return *this;
    }
    /// What the postfix form returns: the change it moved past, kept by value (a change is a handful
    /// of views), so that `*it++` and `(it++)->` work for a spilled transaction too.
    class moved_past {
     public:
      /// The change.
      [[nodiscard]] auto operator*() const noexcept -> const change& { return change_; }
      /// Its address.
      [[nodiscard]] auto operator->() const noexcept -> const change* { return &change_; }

     private:
      friend class iterator;
      explicit moved_past(const change& c) noexcept : change_(c) {}
      change change_;
    };
    /// Moves to the next change, returning the one moved past. @throws spill_error as the prefix form.
    auto operator++(int) -> moved_past {
      moved_past before{**this};
      ++*this;
      return before;
    }
    /// Equal when at the same place.
    [[nodiscard]] friend auto operator==(const iterator& a, const iterator& b) noexcept -> bool {
      return a.from_disk_ == b.from_disk_ && a.at_ == b.at_;
    }

   private:
    friend class change_range;
    iterator(const change* at, const change_range* from_disk) noexcept : at_(at), from_disk_(from_disk) {}
    const change* at_ = nullptr;
    const change_range* from_disk_ = nullptr;
  };

  /// Changes held in memory.
  explicit change_range(std::span<const change> changes) noexcept : changes_(changes) {}
  /// The @p spilled_records changes spilled to @p spilled (with the relations their records refer
  /// to), then @p changes. @pre everything appended to @p spilled was flushed.
  change_range(std::span<const change> changes, const spill_part* spilled, std::size_t spilled_records,
               std::span<const std::shared_ptr<const relation_info>> relations) noexcept
      : changes_(changes),
        spilled_(spilled),
        spilled_records_(spilled != nullptr ? spilled_records : 0U),
        relations_(relations) {}

  /// The first change. @throws spill_error when a spilled part cannot be read back.
  [[nodiscard]] auto begin() const -> iterator {
    if (spilled_records_ > 0) {
      reader_ = detail::spill_reader{spilled_, spilled_records_};
      if (read_next()) return iterator{changes_.data(), this};
    }
    return iterator{changes_.data(), nullptr};
  }
  /// Past the last change.
  [[nodiscard]] auto end() const noexcept -> iterator { return iterator{changes_.data() + changes_.size(), nullptr}; }
  /// Number of changes (known up front, also for a spilled transaction).
  [[nodiscard]] auto size() const noexcept -> std::size_t { return changes_.size() + spilled_records_; }
  /// True when there are none.
  [[nodiscard]] auto empty() const noexcept -> bool { return size() == 0; }

 private:
  // Reads the next spilled change into current_; false after the last one.
  auto read_next() const -> bool {
    auto more = reader_.next(record_);
    if (!more) throw spill_error(more.error());
    if (!*more) return false;
    if (record_.relation_index >= relations_.size() || !relations_[record_.relation_index]) {
      throw spill_error(make_error_code(errc::decode_failure));
    }
    const relation_info& relation = *relations_[record_.relation_index];
    if (record_.op == change_op::truncate) {
      current_.emplace(change::truncation(relation, record_.cascade, record_.restart_identity));
    } else {
      current_.emplace(record_.op, relation, record_.new_tuple, record_.old_kind, record_.old_tuple);
    }
    return true;
  }

  std::span<const change> changes_;
  const spill_part* spilled_ = nullptr;
  std::size_t spilled_records_ = 0;
  std::span<const std::shared_ptr<const relation_info>> relations_{};
  mutable detail::spill_reader reader_{};
  mutable detail::spill_reader::record record_{};
  mutable std::optional<change> current_{};
};

/**
 * A committed transaction: its changes and transactional messages, and its commit LSN.
 *
 * The commit LSN is the exactly-once watermark. Every change shares it; a sink that stores it
 * atomically with its data skips any transaction whose `commit_lsn()` is not above what it stored.
 *
 * Move-only. Its rows, values and messages are views into bytes the transaction owns, so they are
 * valid while the transaction is alive, which for a sink means during the callback.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: safe to read.
 */
class transaction {
 public:
  /// An empty transaction.
  transaction() = default;
  /// Moves the transaction with all it owns. Not copyable (see above).
  ///@{
  transaction(transaction&&) noexcept = default;
  auto operator=(transaction&&) noexcept -> transaction& = default;
  ///@}
  transaction(const transaction&) = delete;
  auto operator=(const transaction&) -> transaction& = delete;
  ~transaction() = default;

  /// The top-level transaction id on the source server.
  [[nodiscard]] auto xid() const noexcept -> transaction_id { return xid_; }
  /// The LSN of the commit record: the watermark (see the class comment).
  [[nodiscard]] auto commit_lsn() const noexcept -> lsn { return commit_lsn_; }
  /// The end of the commit record: the position the slot is acknowledged to once this is durable.
  [[nodiscard]] auto end_lsn() const noexcept -> lsn { return end_lsn_; }
  /// The commit time on the source server.
  [[nodiscard]] auto commit_time() const noexcept -> sys_microseconds { return commit_time_; }
  /// Where it came from, when the source server received it through replication itself.
  [[nodiscard]] auto origin() const noexcept -> const std::optional<origin_info>& { return origin_; }
  /// The changes, in order (see @ref change_range for the single-pass rule).
  [[nodiscard]] auto changes() const noexcept -> change_range {
    if (spill_) return change_range{changes_, spill_.get(), spilled_records_, relations_};
    return change_range{changes_};
  }
  /// The transactional logical messages (with the `messages` option), in order.
  [[nodiscard]] auto messages() const noexcept -> std::span<const logical_message> { return messages_; }
  /// Number of changes.
  [[nodiscard]] auto change_count() const noexcept -> std::size_t {
    return changes_.size() + (spill_ ? spilled_records_ : 0U);
  }
  /// Bytes it holds in memory: what counts against the resident budget, and a size for telemetry.
  [[nodiscard]] auto byte_size() const noexcept -> std::size_t { return arena_.size(); }
  /// Bytes of it the spill policy holds (in its @ref spill_part); 0 for a transaction held in memory.
  [[nodiscard]] auto spilled_bytes() const noexcept -> std::uint64_t { return spill_ ? spill_->size() : 0U; }
  /// True when it has neither changes nor messages.
  [[nodiscard]] auto empty() const noexcept -> bool { return change_count() == 0 && messages_.empty(); }
  /// True when the server sent it while it was still in progress (the `streaming` option).
  [[nodiscard]] auto streamed() const noexcept -> bool { return streamed_; }

 private:
  friend class assembler;

  transaction_id xid_ = 0;
  lsn commit_lsn_{};
  lsn end_lsn_{};
  sys_microseconds commit_time_{};
  std::optional<origin_info> origin_{};
  std::vector<change> changes_;
  std::vector<logical_message> messages_;
  // Keeps alive every relation description a change points at (one entry per switch of table).
  std::vector<std::shared_ptr<const relation_info>> relations_;
  detail::frame_arena arena_;
  // When spilled: the part holding the first spilled_records_ changes, those before changes_. Made by
  // the spill policy; destroyed with the transaction or when it is recycled.
  std::unique_ptr<spill_part> spill_;
  std::size_t spilled_records_ = 0;
  bool streamed_ = false;
};

}  // namespace replicant

#endif  // REPLICANT_MODEL_TRANSACTION_HPP
