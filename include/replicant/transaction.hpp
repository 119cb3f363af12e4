// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TRANSACTION_HPP
#define REPLICANT_TRANSACTION_HPP

/// @file
/// replicant::transaction: a committed transaction, the unit of delivery and of the exactly-once
/// watermark; and replicant::logical_message, a `pg_logical_emit_message` record.

#include <replicant/change.hpp>
#include <replicant/decoder/framing.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/detail/frame_arena.hpp>
#include <replicant/lsn.hpp>
#include <replicant/relation.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
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
 * The changes of one transaction, in the order they were made.
 *
 * Treat it as a **single-pass input range**: iterate it once, during the callback. Today every
 * transaction is held in memory and may be iterated again, but a transaction spilled to disk
 * (the `disk_spill` policy) is read back as it is iterated, so code that relies on a second pass
 * or on keeping iterators will not work with spilling.
 */
class change_range {
 public:
  /// The iterator type.
  using iterator = std::span<const change>::iterator;
  /// Changes held in memory.
  explicit change_range(std::span<const change> changes) noexcept : changes_(changes) {}
  [[nodiscard]] auto begin() const noexcept -> iterator { return changes_.begin(); }
  [[nodiscard]] auto end() const noexcept -> iterator { return changes_.end(); }
  /// Number of changes (known up front even for a spilled transaction).
  [[nodiscard]] auto size() const noexcept -> std::size_t { return changes_.size(); }
  /// True when there are none.
  [[nodiscard]] auto empty() const noexcept -> bool { return changes_.empty(); }

 private:
  std::span<const change> changes_;
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
  transaction() = default;
  transaction(transaction&&) noexcept = default;
  auto operator=(transaction&&) noexcept -> transaction& = default;
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
  [[nodiscard]] auto changes() const noexcept -> change_range { return change_range{changes_}; }
  /// The transactional logical messages (with the `messages` option), in order.
  [[nodiscard]] auto messages() const noexcept -> std::span<const logical_message> { return messages_; }
  /// Number of changes.
  [[nodiscard]] auto change_count() const noexcept -> std::size_t { return changes_.size(); }
  /// Bytes received for it: what it costs in memory, and a size for telemetry.
  [[nodiscard]] auto byte_size() const noexcept -> std::size_t { return arena_.size(); }
  /// True when it has neither changes nor messages.
  [[nodiscard]] auto empty() const noexcept -> bool { return changes_.empty() && messages_.empty(); }

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
};

}  // namespace replicant

#endif  // REPLICANT_TRANSACTION_HPP
