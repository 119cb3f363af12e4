// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_TRANSACTION_HPP
#define REPLICANT_MODEL_TRANSACTION_HPP

/// @file
/// replicant::transaction: a committed transaction, the unit of delivery and of the exactly-once
/// watermark; and replicant::logical_message, a `pg_logical_emit_message` record.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/detail/frame_arena.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/spill_part.hpp>
#include <replicant/model/spill_records.hpp>
#include <replicant/model/transaction_fwd.hpp>
#include <replicant/model/tuple.hpp>

#include <range/v3/range_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <ranges>
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

namespace detail {

/**
 * Where a failed read-back of a spilled transaction is recorded: in the transaction (what
 * `transaction::read_error()` returns), and in a witness the pipeline installs through the
 * assembler, so that the engine learns of it even from a sink that ignores it. The first failure
 * is kept: a transaction that could not be read back whole once is not trusted again.
 */
struct read_status {
  std::error_code error{};
  std::error_code* witness = nullptr;

  auto fail(std::error_code ec) noexcept -> void {
    if (!error) error = ec;
    if (witness != nullptr && !*witness) *witness = ec;
  }
};

}  // namespace detail

/**
 * The changes of one transaction, in the order they were made: a view, in the sense of both
 * `std::ranges::view` and range-v3's `ranges::view_`, so that it composes with either library's
 * adaptors.
 *
 * @code
 * auto big = txn.changes()
 *          | std::views::filter([](const replicant::change& c) { return c.op() == replicant::change_op::insert; })
 *          | std::views::transform([](const replicant::change& c) { return c.relation().table; });
 * for (std::string_view table : big) count(table);
 * if (auto ec = txn.read_error()) return replicant::unexpected(ec);  // a spilled part was unreadable
 * @endcode
 *
 * A **single-pass input range**: iterate it during the callback. For a transaction held in memory
 * that is all there is to it. For one spilled by the spill policy (`disk_spill`, or a user's) the
 * changes are read back from its @ref spill_part as the iteration goes, each one valid only until
 * the iterator moves on; the in-memory tail follows. The reading state lives in the range object
 * and its iterators point at it, as for `std::ranges::istream_view`: keep the range alive (and in
 * place) while iterating; a copy or a moved-to range starts afresh. Iterating again reads the part
 * again.
 *
 * **A failed read never throws.** It ends the iteration early (the iterator compares equal to
 * `end()`), and the error (`errc::io_failed` from the part, `errc::decode_failure` for bytes that
 * are not the records written) is kept in the transaction: @ref read_error() here and
 * `transaction::read_error()` return it. A sink returns it (or any error) instead of committing what
 * it read; the pipeline halts `spill_io_failed` either way, and acknowledges nothing from that
 * transaction on, even when the sink returned success.
 *
 * Not a sized range, on purpose: a failed read ends it short of the count, and adaptors such as
 * `views::take` trust a sized range's size instead of its end. `transaction::change_count()` is
 * the number of changes.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe (iterating changes the range's reading state).
 */
class change_range : public std::ranges::view_base, public ::ranges::view_base {
 public:
  /// An input iterator over the changes. Default-constructible and copyable (semiregular), as
  /// range-v3 requires; it points at its range.
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
    [[nodiscard]] auto operator*() const noexcept -> const change& {
      return from_disk_ != nullptr ? *from_disk_->cursor_.current : *at_;
    }
    /// Its address.
    [[nodiscard]] auto operator->() const noexcept -> const change* { return &**this; }
    /// Moves to the next change. A spilled part that cannot be read back ends the iteration: the
    /// iterator becomes `end()` and the range's read_error() says why. @throws std::bad_alloc only.
    auto operator++() -> iterator& {
      if (from_disk_ == nullptr) {
        ++at_;
      } else if (const step next = from_disk_->read_next(); next != step::read) {
        // On to the changes held in memory, or, after a failure, to the end.
        if (next == step::failed) at_ = from_disk_->changes_.data() + from_disk_->changes_.size();
        from_disk_ = nullptr;
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
    /// Moves to the next change, returning the one moved past. Fails as the prefix form.
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

  /// No changes (what a default-constructed view is).
  change_range() = default;
  /// Changes held in memory.
  explicit change_range(std::span<const change> changes) noexcept : changes_(changes) {}
  /// The @p spilled_records changes spilled to @p spilled (with the relations their records refer
  /// to), then @p changes; a failed read is recorded in @p status. @pre everything appended to
  /// @p spilled was flushed.
  change_range(std::span<const change> changes, const spill_part* spilled, std::size_t spilled_records,
               std::span<const std::shared_ptr<const relation_info>> relations, detail::read_status* status) noexcept
      : changes_(changes),
        spilled_(spilled),
        spilled_records_(spilled != nullptr ? spilled_records : 0U),
        relations_(relations),
        status_(status) {}

  /// The first change: reads the first spilled one, if any. A failed read gives `end()` (see
  /// read_error()). @throws std::bad_alloc only.
  [[nodiscard]] auto begin() const -> iterator {
    if (spilled_records_ > 0) {
      cursor_.reader = detail::spill_reader{spilled_, spilled_records_};
      switch (read_next()) {
        case step::read: return iterator{changes_.data(), this};
        case step::failed: return end();
        case step::done: break;
      }
    }
    return iterator{changes_.data(), nullptr};
  }
  /// Past the last change.
  [[nodiscard]] auto end() const noexcept -> iterator { return iterator{changes_.data() + changes_.size(), nullptr}; }
  /// True when the transaction has no change (known up front, also for a spilled transaction).
  [[nodiscard]] auto empty() const noexcept -> bool { return changes_.empty() && spilled_records_ == 0; }
  /// Why an iteration of these changes ended early: a spilled part that could not be read back
  /// (`errc::io_failed`, `errc::decode_failure`); empty when none did. The same as the transaction's
  /// `read_error()`: once set, it stays set.
  [[nodiscard]] auto read_error() const noexcept -> std::error_code {
    return status_ != nullptr ? status_->error : std::error_code{};
  }

 private:
  enum class step { read, done, failed };

  // Reads the next spilled change into the cursor: read, done after the last one, or failed (then
  // recorded in the status).
  auto read_next() const -> step;
  auto failed(std::error_code ec) const noexcept -> step {
    if (status_ != nullptr) status_->fail(ec);
    return step::failed;
  }

  // The reading state of a spilled transaction. Copying or moving a range does not carry it (a
  // copy starts afresh at begin()), so that a copy costs no buffer and no iterator of another
  // range ends up pointing at it.
  struct cursor {
    detail::spill_reader reader{};
    detail::spill_reader::record record{};
    std::optional<change> current{};

    cursor() = default;
    cursor(const cursor& /*other*/) noexcept {}
    cursor(cursor&& /*other*/) noexcept {}
    auto operator=(const cursor& /*other*/) noexcept -> cursor& { return *this; }
    auto operator=(cursor&& /*other*/) noexcept -> cursor& { return *this; }
    ~cursor() = default;
  };

  std::span<const change> changes_{};
  const spill_part* spilled_ = nullptr;
  std::size_t spilled_records_ = 0;
  std::span<const std::shared_ptr<const relation_info>> relations_{};
  detail::read_status* status_ = nullptr;
  mutable cursor cursor_{};
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
 * Distinct objects: safe. Shared objects: safe to read, except that the changes of a spilled
 * transaction are iterated from one thread at a time (a failed read records its error in it).
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
  /// The changes, in order: a view (see @ref change_range for the single-pass rule and read errors).
  [[nodiscard]] auto changes() const noexcept -> change_range {
    if (spill_) return change_range{changes_, spill_.get(), spilled_records_, relations_, &read_status_};
    return change_range{changes_};
  }
  /**
   * Why an iteration of changes() ended early: a spilled part that could not be read back
   * (`errc::io_failed`, or `errc::decode_failure` for bytes that are not the records written);
   * empty when none did, and always for a transaction held in memory. Once set it stays set.
   *
   * A sink that iterates a spilled transaction checks it before committing what it read, and
   * returns it: the pipeline then halts `spill_io_failed` (it would halt even if the sink returned
   * success, and acknowledges nothing from this transaction on), and the next run delivers the
   * transaction again.
   */
  [[nodiscard]] auto read_error() const noexcept -> std::error_code { return read_status_.error; }
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
  // What a failed read-back of the part recorded (mutable: iterating a const transaction records it).
  mutable detail::read_status read_status_{};
  bool streamed_ = false;
};

}  // namespace replicant

// The read-back of a spilled change: in every unit header-only, in the one unit that includes
// <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/model/impl/transaction.hpp>
#endif

#endif  // REPLICANT_MODEL_TRANSACTION_HPP
