// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_ASSEMBLER_ASSEMBLER_HPP
#define REPLICANT_ASSEMBLER_ASSEMBLER_HPP

/// @file
/// replicant::assembler: turns the stream of decoded messages into committed transactions.

#include <replicant/core/detail/visit_by_index.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/pgoutput_reader.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/spill_records.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/spill/policy.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace replicant {

/// A transaction committed with nothing published in it: nothing to deliver, but its end is a
/// position a state-mirror sink may acknowledge.
struct empty_commit {
  /// End of the commit record.
  lsn end_lsn{};
};

/// A two-phase transaction was prepared (protocol 3): it is delivered when COMMIT PREPARED
/// arrives, never on ROLLBACK PREPARED. Reported for an optional sink hook.
struct prepared_event {
  /// The transaction id.
  transaction_id xid = 0;
  /// Its global identifier (chosen by the application; an identifier, not row data).
  std::string_view gid{};
  /// The prepare record's LSN.
  lsn prepare_lsn{};
  /// The end of the prepare record.
  lsn end_lsn{};
  /// Number of changes prepared.
  std::size_t change_count = 0;
};

/// A prepared transaction was rolled back: it is discarded, never delivered.
struct rollback_prepared_event {
  /// The transaction id.
  transaction_id xid = 0;
  /// End of the rollback record: a position a state-mirror sink may acknowledge.
  lsn end_lsn{};
};

/// A streamed transaction (or one of its subtransactions) aborted; its changes were dropped.
struct stream_abort_event {
  /// The streamed top-level transaction.
  transaction_id xid = 0;
  /// The aborted (sub)transaction; equal to `xid` when the whole transaction aborted.
  transaction_id subxid = 0;
  /// Number of changes dropped.
  std::size_t dropped_changes = 0;
  /// Bytes of change data dropped (row images held in memory, and their spilled records).
  std::uint64_t dropped_bytes = 0;
};

/// Where the XLogData frame that carried a payload lies in the WAL. The frame of a Commit (or
/// Stream Commit) is the end of its commit record: the walsender's write location.
struct frame_position {
  /// The frame's `data_start`.
  lsn data_start{};
  /// The frame's `wal_end`.
  lsn wal_end{};
};

/**
 * What an assembler hands its caller: one overload per event.
 *
 * - `transaction&&`: a committed, non-empty transaction, ready for the sink (owned by the caller;
 *   give it back with `assembler::recycle` after delivery to reuse its memory);
 * - `const logical_message&`: a non-transactional logical message (valid during the call);
 * - `const schema_change&`: a relation was described again with another shape; changes that use
 *   the new shape follow. For a streamed transaction, reported when it commits, before it;
 * - `const empty_commit&`, `const prepared_event&`, `const rollback_prepared_event&`,
 *   `const stream_abort_event&`.
 *
 * Each overload returns `result<void>`; an error stops the push and is returned by it.
 */
template <class H>
concept assembler_handler = requires(H& h, transaction&& t) {
  { h(std::move(t)) } -> std::same_as<result<void>>;
  { h(std::declval<const logical_message&>()) } -> std::same_as<result<void>>;
  { h(std::declval<const schema_change&>()) } -> std::same_as<result<void>>;
  { h(std::declval<const empty_commit&>()) } -> std::same_as<result<void>>;
  { h(std::declval<const prepared_event&>()) } -> std::same_as<result<void>>;
  { h(std::declval<const rollback_prepared_event&>()) } -> std::same_as<result<void>>;
  { h(std::declval<const stream_abort_event&>()) } -> std::same_as<result<void>>;
};

/**
 * Assembles pgoutput messages into committed transactions.
 *
 * It owns the @ref pgoutput_reader. Each received XLogData payload goes to push(), which copies
 * the bytes of row changes and messages into the transaction they belong to (so the caller may
 * free the payload right after), decodes it, and reports to the handler whatever became complete:
 *
 * - **Ordinary transactions** (Begin ... Commit): delivered at Commit, changes in order, each sharing
 *   the commit LSN. Transactional messages ride along; non-transactional ones are reported alone.
 * - **Streamed transactions** (protocol 2+): kept per top-level xid across Stream Start/Stop blocks;
 *   a subtransaction's Stream Abort removes exactly that subtransaction's changes and everything
 *   after its first change (which can only belong to its own subtransactions), as PostgreSQL's own
 *   apply worker does; a top-level abort drops the whole transaction; Stream Commit delivers it.
 *   Transactional messages are cut by position as well, because inside a stream pgoutput labels a
 *   message with the top-level xid, never its subtransaction's (`pgoutput_message`): a message an
 *   aborted subtransaction emitted before its first row change (or a subtransaction that changed
 *   no row) cannot be told apart on the wire, and is kept.
 * - **Two-phase transactions** (protocol 3+): held from Begin Prepare (or Stream Prepare) until
 *   Commit Prepared delivers them, or Rollback Prepared drops them.
 *
 * After a reconnect call reset(): everything in progress is discarded, and the server re-sends it.
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class assembler {
 public:
  /// An assembler for a session that negotiated @p protocol.
  explicit assembler(pgoutput_protocol protocol = {}) noexcept : decoder_(protocol) {}

  /**
   * Feeds one XLogData payload (one pgoutput message).
   *
   * @return nothing, or the first error: `errc::decode_failure` / `errc::protocol_violation` from
   * decoding (value-free), `errc::protocol_violation` for a message out of place (a change outside
   * any transaction, a Commit without Begin, a Commit Prepared for an unknown transaction), or
   * whatever a handler returned. After an error, reset() before continuing.
   * @throws std::bad_alloc only.
   */
  template <assembler_handler Handler>
  [[nodiscard]] auto push(std::span<const std::byte> payload, Handler&& handler) -> result<void> {
    return push_message(payload, std::nullopt, handler);
  }

  /**
   * Feeds one pgoutput message that came in the frame at @p frame: as push(), and a Commit or
   * Stream Commit whose end LSN is not the frame's position is refused with
   * `errc::protocol_violation` before anything of it is delivered (it is damaged, and trusting it
   * would acknowledge a position that was never committed). A translating decoder's messages are
   * pushed with the position of the frame they were translated from.
   * @throws std::bad_alloc only.
   */
  template <assembler_handler Handler>
  [[nodiscard]] auto push(std::span<const std::byte> payload, frame_position frame, Handler&& handler) -> result<void> {
    return push_message(payload, frame, handler);
  }

  /// Discards every transaction in progress and starts a new session (see pgoutput_reader::reset).
  auto reset() noexcept -> void {
    current_.reset();
    streams_.clear();
    prepared_.clear();
    committed_prepares_.clear();
    decoder_.reset();
  }

  /// What enable_spill() makes a transaction's part with: a spill policy's `open`, bound to its
  /// session's context.
  using spill_opener = std::function<result<std::unique_ptr<spill_part>>()>;

  /**
   * Turns on spilling (for a spill policy whose `limits` returned @p limits): after each push, while
   * the transactions in progress hold more than `limits.threshold_bytes`, the largest one moves the
   * changes it holds to its @ref spill_part, made by @p open when it first spills. push() then
   * fails with `errc::spill_exhausted` once the parts together would hold more than
   * `limits.max_bytes`, and with `errc::io_failed` when a part cannot be made (an error, or a null
   * part) or written.
   *
   * @par Example
   * @code
   * replicant::disk_spill policy{.dir = "/var/lib/app/spill"};
   * const replicant::spill_context ctx{"orders_mirror", 64U << 20U};
   * if (auto ready = policy.prepare(ctx); !ready) return ready;
   * a.enable_spill(*policy.limits(ctx), [&policy, ctx] { return policy.open(ctx); });
   * @endcode
   */
  auto enable_spill(spill_limits limits, spill_opener open) -> void {
    spill_limits_ = limits;
    open_part_ = std::move(open);
  }

  /**
   * Makes every transaction this assembler delivers from now on also record a failed read-back of
   * its spilled changes in @p witness (the first one; see `transaction::read_error()`), so that
   * the caller learns of it whatever the code that iterated the transaction did with it. The
   * pipeline points it at its session's state; null turns it off. @p witness must outlive the
   * transactions delivered.
   */
  auto report_read_failures_to(std::error_code* witness) noexcept -> void { read_witness_ = witness; }

  /// Bytes the transactions in progress have spilled (what their parts hold).
  [[nodiscard]] auto spilled_bytes() const noexcept -> std::uint64_t {
    std::uint64_t n = current_ ? current_->txn.spilled_bytes() : 0;
    for (const auto& [xid, st] : streams_) n += st.txn.spilled_bytes();
    for (const auto& [xid, p] : prepared_) n += p.txn.spilled_bytes();
    return n;
  }

  /// Changes and bytes moved to spilled parts since the assembler was made (only ever grow): what a
  /// caller compares before and after a push to report spilling.
  [[nodiscard]] auto spill_totals() const noexcept -> std::pair<std::uint64_t, std::uint64_t> {
    return {spilled_changes_total_, spilled_bytes_total_};
  }

  /// Takes back a delivered transaction so the next one can reuse its memory.
  auto recycle(transaction&& t) noexcept -> void {
    t.spill_.reset();  // the part releases what it holds (disk_spill: the file vanishes)
    t.spilled_records_ = 0;
    t.read_status_ = {};
    t.streamed_ = false;
    t.changes_.clear();
    t.messages_.clear();
    t.relations_.clear();
    t.origin_.reset();
    t.arena_.reset();
    if (finishing_ != nullptr && &t == &finishing_->txn) {
      finishing_->recycled = true;  // back where it was assembled: the next Begin reuses it there
      return;
    }
    if (!spare_) spare_.emplace(std::move(t));
  }

  /// Bytes held for transactions not yet delivered (in progress, streamed or prepared): what counts
  /// against the resident budget besides the frames not yet pushed.
  [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t {
    std::size_t n = current_ ? current_->txn.byte_size() : 0;
    for (const auto& [xid, s] : streams_) n += s.txn.byte_size();
    for (const auto& [xid, p] : prepared_) n += p.txn.byte_size();
    return n;
  }

  /// The largest single transaction in progress, in bytes (for the `transaction_too_large` check).
  [[nodiscard]] auto largest_open_transaction_bytes() const noexcept -> std::size_t {
    std::size_t n = current_ ? current_->txn.byte_size() : 0;
    for (const auto& [xid, s] : streams_) n = std::max(n, s.txn.byte_size());
    for (const auto& [xid, p] : prepared_) n = std::max(n, p.txn.byte_size());
    return n;
  }

  /// True when a transaction is being received (between Begin and Commit, or inside a streamed block).
  [[nodiscard]] auto in_transaction() const noexcept -> bool { return current_ != nullptr || decoder_.in_stream(); }

  /// True when nothing at all is held: no open, streamed or prepared transaction.
  [[nodiscard]] auto idle() const noexcept -> bool {
    return !current_ && streams_.empty() && prepared_.empty() && !decoder_.in_stream();
  }

  /// The earliest PREPARE among the prepared transactions held, and among those committed since
  /// whose commit is not yet known durable, if any. An acknowledgement must not pass it: the server
  /// re-sends a prepared transaction's changes only if its PREPARE lies at or after the
  /// acknowledged position, and would otherwise send only its COMMIT PREPARED, whose changes a
  /// policy that still holds the transaction (or waits for its confirmation) would then lose.
  [[nodiscard]] auto oldest_prepare_lsn() const noexcept -> std::optional<lsn> {
    std::optional<lsn> oldest;
    for (const auto& [xid, p] : prepared_) {
      if (!oldest || p.prepare_lsn < *oldest) oldest = p.prepare_lsn;
    }
    for (const auto& c : committed_prepares_) {
      if (!oldest || c.prepare < *oldest) oldest = c.prepare;
    }
    return oldest;
  }

  /// Every transaction committing at or before @p commit is durable: the prepared ones among them
  /// no longer hold the acknowledgement back.
  auto prepares_durable_through(lsn commit) noexcept -> void {
    std::erase_if(committed_prepares_, [&](const committed_prepare& c) { return c.commit <= commit; });
  }

  /// Number of streamed transactions in progress.
  [[nodiscard]] auto open_streams() const noexcept -> std::size_t { return streams_.size(); }

  /// While a schema change is being reported to the handler: the commit LSN of the transaction whose
  /// changes are the first to use the new shape. None at other times, and for a change reported
  /// where no commit position is known yet (between transactions, or in a transaction being
  /// prepared for two-phase commit).
  [[nodiscard]] auto schema_change_position() const noexcept -> std::optional<lsn> { return schema_change_at_; }

  /// The wire reader (for its relation cache and negotiated protocol).
  [[nodiscard]] auto decoder() const noexcept -> const pgoutput_reader& { return decoder_; }

 private:
  template <class Handler>
  auto push_message(std::span<const std::byte> payload, std::optional<frame_position> frame, Handler& handler)
      -> result<void>;

  // One handler per pgoutput message. Those that complete something (a transaction, an event for
  // the caller) take the caller's handler; the others only change what is held.
  auto on(const pgoutput::begin_message& m) -> result<void>;
  auto on(const pgoutput::begin_prepare_message& m) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::commit_message& m, Handler& handler) -> result<void>;
  auto on(const pgoutput::origin_message& m) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::relation_message& m, Handler& handler) -> result<void>;
  auto on(const pgoutput::type_message& m) -> result<void>;
  auto on(const pgoutput::insert_message& m) -> result<void>;
  auto on(const pgoutput::update_message& m) -> result<void>;
  auto on(const pgoutput::delete_message& m) -> result<void>;
  auto on(const pgoutput::truncate_message& m) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::logical_message& m, Handler& handler) -> result<void>;
  auto on(const pgoutput::stream_start_message& m) -> result<void>;
  auto on(const pgoutput::stream_stop_message& m) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::stream_commit_message& m, Handler& handler) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::stream_abort_message& m, Handler& handler) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::prepare_message& m, Handler& handler) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::stream_prepare_message& m, Handler& handler) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::commit_prepared_message& m, Handler& handler) -> result<void>;
  template <class Handler>
  auto on(const pgoutput::rollback_prepared_message& m, Handler& handler) -> result<void>;

  // Whether @p m ends where its frame does: only a Commit or Stream Commit says where it ends.
  static auto ends_at(const pgoutput::message& m, frame_position frame) noexcept -> bool {
    lsn end{};
    if (const auto* c = std::get_if<pgoutput::commit_message>(&m)) {
      end = c->end_lsn;
    } else if (const auto* s = std::get_if<pgoutput::stream_commit_message>(&m)) {
      end = s->end_lsn;
    } else {
      return true;
    }
    return end == frame.wal_end && end == frame.data_start;
  }

  // A transaction being received, with what is needed until it completes.
  struct open_txn {
    transaction txn;
    // Streamed only: the (sub)transaction of each change and message, and each message's place
    // among the changes, so that a subtransaction abort can cut exactly its part.
    std::vector<transaction_id> change_xids;
    std::vector<transaction_id> message_xids;
    std::vector<std::size_t> message_positions;
    // Streamed only: schema changes seen inside the stream, reported at commit.
    std::vector<std::shared_ptr<const schema_change>> schema_changes;
    const relation_info* last_relation = nullptr;
    std::string gid;        // two-phase only
    lsn prepare_lsn{};      // two-phase only: where its PREPARE was decoded
    lsn final_lsn{};        // ordinary transactions: the commit LSN its Begin announced
    bool recycled = false;  // txn was handed back to recycle() in place, empty again

    // Empties what it holds beside txn, keeping the vectors' memory: as a new one, for reuse.
    void clear_beside_txn() noexcept {
      change_xids.clear();
      message_xids.clear();
      message_positions.clear();
      schema_changes.clear();
      last_relation = nullptr;
      gid.clear();
      prepare_lsn = lsn{};
      final_lsn = lsn{};
      recycled = false;
    }
  };

  // The spare transaction (a delivered one, recycled) to fill next, or a new one.
  [[nodiscard]] auto take_spare() noexcept -> transaction {
    transaction t = spare_ ? std::move(*spare_) : transaction{};
    spare_.reset();
    return t;
  }

  [[nodiscard]] auto start_transaction() -> open_txn {
    open_txn o;
    o.txn = take_spare();
    return o;
  }

  // Opens current_ for a Begin. It reuses the open transaction the last commit or prepare handed
  // back (so neither Begin nor Commit moves one: each moved a few dozen members), made empty again:
  // its transaction too when the delivery recycled it in place, and otherwise the spare one.
  auto open_current(transaction_id xid) -> open_txn& {
    current_ = spare_open_ ? std::move(spare_open_) : std::make_unique<open_txn>();
    open_txn& o = *current_;
    if (!o.recycled) o.txn = take_spare();
    o.clear_beside_txn();
    o.txn.xid_ = xid;
    return o;
  }

  // The transaction a change or message in the current position belongs to (null: none).
  [[nodiscard]] auto target() noexcept -> open_txn* {
    if (decoder_.in_stream()) {
      auto it = streams_.find(*decoder_.stream_xid());
      return it == streams_.end() ? nullptr : &it->second;
    }
    return current_ ? &*current_ : nullptr;
  }

  auto keep_relation(open_txn& o, const relation_info* rel, std::uint32_t oid) -> void {
    if (rel == o.last_relation) return;
    o.txn.relations_.push_back(decoder_.find_relation(oid));
    o.last_relation = rel;
  }

  auto add_change(open_txn& o, change c, std::optional<transaction_id> xid) -> void {
    o.txn.changes_.push_back(c);
    if (decoder_.in_stream()) o.change_xids.push_back(xid.value_or(*decoder_.stream_xid()));
  }

  // Moves the changes o holds in memory to its spilled part, and its remaining bytes (messages, the
  // origin's name) to a fresh arena, so that what it holds in memory drops to almost nothing.
  auto spill(open_txn& o) -> result<void> {
    transaction& t = o.txn;
    if (!t.spill_) {
      if (!open_part_) return fail(errc::io_failed);
      auto opened = open_part_();
      if (!opened) return unexpected(opened.error());
      if (!*opened) return fail(errc::io_failed);  // a policy that made no part
      t.spill_ = std::move(*opened);
      t.spilled_records_ = 0;
    }
    const auto bytes_before = t.spill_->size();
    spilled_changes_total_ += t.changes_.size();
    for (const change& c : t.changes_) {
      std::uint32_t index = 0;
      for (std::size_t i = t.relations_.size(); i-- > 0;) {
        if (t.relations_[i].get() == &c.relation()) {
          index = static_cast<std::uint32_t>(i);
          break;
        }
      }
      if (auto a = detail::append_spill_record(*t.spill_, c, index); !a) return a;
      ++t.spilled_records_;
    }
    spilled_bytes_total_ += t.spill_->size() - bytes_before;
    t.changes_.clear();
    detail::frame_arena fresh;
    for (auto& m : t.messages_) {
      const auto prefix = fresh.copy(std::as_bytes(std::span{m.prefix.data(), m.prefix.size()}));
      m.prefix = detail::as_chars(prefix);
      m.content = fresh.copy(m.content);
    }
    if (t.origin_) {
      const auto name = fresh.copy(std::as_bytes(std::span{t.origin_->name.data(), t.origin_->name.size()}));
      t.origin_->name = detail::as_chars(name);
    }
    t.arena_ = std::move(fresh);
    if (spilled_bytes() > spill_limits_->max_bytes) return fail(errc::spill_exhausted);
    return {};
  }

  // Spills the largest transactions in progress until they hold no more than the threshold.
  auto spill_over() -> result<void> {
    while (resident_bytes() > spill_limits_->threshold_bytes) {
      open_txn* largest = current_ ? &*current_ : nullptr;
      const auto consider = [&](open_txn& o) {
        if (largest == nullptr || o.txn.byte_size() > largest->txn.byte_size()) largest = &o;
      };
      for (auto& [xid, st] : streams_) consider(st);
      for (auto& [xid, p] : prepared_) consider(p);
      if (largest == nullptr || largest->txn.changes_.empty()) return {};  // nothing left to move
      if (auto r = spill(*largest); !r) return r;
    }
    return {};
  }

  // Removes the part of a streamed transaction that belongs to subtransaction subxid.
  // The change data a transaction holds: its resident row images and its spilled records. (Its
  // arena is not a measure here: cutting a subtransaction does not shrink it.)
  static auto held_bytes(const transaction& t) noexcept -> std::uint64_t {
    std::uint64_t bytes = t.spilled_bytes();
    for (const change& c : t.changes_) bytes += c.record_tuple().wire().size() + c.old_tuple().wire().size();
    return bytes;
  }

  static auto cut_subtransaction(open_txn& o, transaction_id subxid) -> result<std::size_t> {
    const auto first_change =
        static_cast<std::size_t>(std::find(o.change_xids.begin(), o.change_xids.end(), subxid) - o.change_xids.begin());
    const auto first_message = static_cast<std::size_t>(
        std::find(o.message_xids.begin(), o.message_xids.end(), subxid) - o.message_xids.begin());
    std::size_t change_cut = first_change;
    std::size_t message_cut = o.message_xids.size();
    if (first_message < o.message_xids.size() && o.message_positions[first_message] <= first_change) {
      // The subtransaction's first item is a message, placed before change number `position`.
      change_cut = o.message_positions[first_message];
      message_cut = first_message;
    } else {
      for (std::size_t m = 0; m < o.message_positions.size(); ++m) {
        if (o.message_positions[m] > change_cut) {
          message_cut = m;
          break;
        }
      }
    }
    const auto truncate = [](auto& items, std::size_t keep) {
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(std::min(keep, items.size())), items.end());
    };
    const std::size_t before = o.txn.change_count();
    const std::size_t spilled = o.txn.spill_ ? o.txn.spilled_records_ : 0U;
    if (change_cut >= spilled) {
      truncate(o.txn.changes_, change_cut - spilled);
    } else {
      o.txn.changes_.clear();
      if (auto r = detail::truncate_spill_records(*o.txn.spill_, spilled, change_cut); !r) return unexpected(r.error());
      o.txn.spilled_records_ = change_cut;
    }
    truncate(o.change_xids, change_cut);
    truncate(o.txn.messages_, message_cut);
    truncate(o.message_xids, message_cut);
    truncate(o.message_positions, message_cut);
    return before - o.txn.change_count();
  }

  // Hands @p change to the handler with schema_change_position() saying @p at meanwhile (and no
  // longer once it returns, or throws).
  template <class Handler>
  auto report(const schema_change& change, std::optional<lsn> at, Handler& handler) -> result<void> {
    struct forget {
      std::optional<lsn>& position;
      ~forget() { position.reset(); }
    } const reported{schema_change_at_ = at};
    return handler(change);
  }

  template <class Handler>
  auto finish(open_txn& o, lsn commit_lsn, lsn end_lsn, sys_microseconds commit_time, Handler& handler)
      -> result<void> {
    for (const auto& sc : o.schema_changes) {
      if (auto r = report(*sc, commit_lsn, handler); !r) return r;
    }
    o.txn.commit_lsn_ = commit_lsn;
    o.txn.end_lsn_ = end_lsn;
    o.txn.commit_time_ = commit_time;
    if (o.txn.spill_) {
      if (auto f = o.txn.spill_->flush(); !f) return f;  // the reader sees flushed bytes only
      o.txn.read_status_ = detail::read_status{{}, read_witness_};
    }
    if (o.txn.empty()) {
      const empty_commit e{end_lsn};
      recycle(std::move(o.txn));
      return handler(e);
    }
    return handler(std::move(o.txn));
  }

  pgoutput_reader decoder_;
  std::unique_ptr<open_txn> current_;     // the transaction between Begin and Commit, or none
  std::unique_ptr<open_txn> spare_open_;  // the one the last commit handed back, for the next Begin
  open_txn* finishing_ = nullptr;         // the one a Commit is delivering, while it does
  std::unordered_map<transaction_id, open_txn> streams_;
  std::unordered_map<transaction_id, open_txn> prepared_;
  // Prepared transactions committed, until their commit is known durable (oldest_prepare_lsn).
  struct committed_prepare {
    lsn commit;
    lsn prepare;
  };
  std::vector<committed_prepare> committed_prepares_;
  std::optional<transaction> spare_;
  std::optional<spill_limits> spill_limits_;  // set by enable_spill()
  spill_opener open_part_;
  std::error_code* read_witness_ = nullptr;  // set by report_read_failures_to()
  std::optional<lsn> schema_change_at_;      // while report() runs
  std::uint64_t spilled_changes_total_ = 0;
  std::uint64_t spilled_bytes_total_ = 0;
};

// ------------------------------------------------------------------------------------------------

template <class Handler>
auto assembler::push_message(std::span<const std::byte> payload, std::optional<frame_position> frame, Handler& handler)
    -> result<void> {
  if (payload.empty()) return fail(errc::decode_failure);

  // Row changes and messages are views into their payload; the payloads of those that belong to
  // a transaction are copied into it first, so they live exactly as long as the transaction.
  const char type = static_cast<char>(payload[0]);
  const bool keeps_bytes = type == 'I' || type == 'U' || type == 'D' || type == 'T' || type == 'M' || type == 'O';
  std::span<const std::byte> bytes = payload;
  if (keeps_bytes) {
    if (open_txn* o = target()) bytes = o->txn.arena_.copy(payload);
  }

  pgoutput::message decoded;
  if (const std::error_code ec = decoder_.decode(bytes, decoded)) return unexpected(ec);
  if (frame && !ends_at(decoded, *frame)) return fail(errc::protocol_violation);

  // One `on` per message type, dispatched by the variant's index (cheaper to compile than
  // std::visit). Only the messages that complete something see the caller's handler, so the others
  // are compiled once, not once per handler type.
  auto done = detail::visit_by_index(decoded, [&](const auto& m) -> result<void> {
    if constexpr (requires { on(m, handler); }) {
      return on(m, handler);
    } else {
      return on(m);
    }
  });
  if (done && spill_limits_) return spill_over();
  return done;
}

inline auto assembler::on(const pgoutput::begin_message& m) -> result<void> {
  if (current_) return fail(errc::protocol_violation);
  open_current(m.xid).final_lsn = m.final_lsn;
  return {};
}

inline auto assembler::on(const pgoutput::begin_prepare_message& m) -> result<void> {
  if (current_) return fail(errc::protocol_violation);
  open_current(m.xid).gid = m.gid;
  return {};
}

template <class Handler>
auto assembler::on(const pgoutput::commit_message& m, Handler& handler) -> result<void> {
  if (!current_) return fail(errc::protocol_violation);
  // Begin announced where the commit record is: a commit that says otherwise is damaged, and
  // trusting it would move the watermark to a position that was never committed.
  if (m.commit_lsn != current_->final_lsn) return fail(errc::protocol_violation);
  std::unique_ptr<open_txn> o = std::move(current_);
  struct finishing {
    open_txn*& at;
    ~finishing() { at = nullptr; }  // also when the handler throws
  } const delivering{finishing_ = o.get()};
  auto done = finish(*o, m.commit_lsn, m.end_lsn, m.commit_time, handler);
  spare_open_ = std::move(o);
  return done;
}

inline auto assembler::on(const pgoutput::origin_message& m) -> result<void> {
  if (open_txn* o = target()) o->txn.origin_ = origin_info{m.name, m.origin_lsn};
  return {};
}

template <class Handler>
auto assembler::on(const pgoutput::relation_message& m, Handler& handler) -> result<void> {
  if (!m.change) return {};
  if (m.xid) {  // inside a stream: reported when the streamed transaction commits
    if (open_txn* o = target()) o->schema_changes.push_back(m.change);
    return {};
  }
  // An ordinary transaction's Begin announced its commit LSN; a prepared one's is not known.
  const bool committing = current_ && current_->final_lsn.is_valid();
  return report(*m.change, committing ? std::optional<lsn>{current_->final_lsn} : std::nullopt, handler);
}

inline auto assembler::on(const pgoutput::type_message&) -> result<void> { return {}; }

// The row changes: each copied into the transaction it belongs to, refused outside any.
inline auto assembler::on(const pgoutput::insert_message& m) -> result<void> {
  open_txn* o = target();
  if (!o) return fail(errc::protocol_violation);
  keep_relation(*o, m.relation, m.relation_oid);
  add_change(*o, change{change_op::insert, *m.relation, m.new_tuple}, m.xid);
  return {};
}

inline auto assembler::on(const pgoutput::update_message& m) -> result<void> {
  open_txn* o = target();
  if (!o) return fail(errc::protocol_violation);
  keep_relation(*o, m.relation, m.relation_oid);
  add_change(*o, change{change_op::update, *m.relation, m.new_tuple, m.old_kind, m.old_tuple}, m.xid);
  return {};
}

inline auto assembler::on(const pgoutput::delete_message& m) -> result<void> {
  open_txn* o = target();
  if (!o) return fail(errc::protocol_violation);
  keep_relation(*o, m.relation, m.relation_oid);
  add_change(*o, change{change_op::delete_, *m.relation, {}, m.old_kind, m.old_tuple}, m.xid);
  return {};
}

inline auto assembler::on(const pgoutput::truncate_message& m) -> result<void> {
  open_txn* o = target();
  if (!o) return fail(errc::protocol_violation);
  for (const std::uint32_t oid : m.relation_oids) {
    auto rel = decoder_.find_relation(oid);
    if (!rel) return fail(errc::protocol_violation);
    keep_relation(*o, rel.get(), oid);
    add_change(*o, change::truncation(*rel, m.cascade, m.restart_identity), m.xid);
  }
  return {};
}

template <class Handler>
auto assembler::on(const pgoutput::logical_message& m, Handler& handler) -> result<void> {
  const replicant::logical_message out{m.transactional, m.message_lsn, m.prefix, m.content};
  if (!m.transactional) return handler(out);
  open_txn* o = target();
  if (!o) return fail(errc::protocol_violation);
  o->txn.messages_.push_back(out);
  if (decoder_.in_stream()) {
    o->message_xids.push_back(m.xid.value_or(*decoder_.stream_xid()));
    o->message_positions.push_back(o->txn.change_count());
  }
  return {};
}

inline auto assembler::on(const pgoutput::stream_start_message& m) -> result<void> {
  auto it = streams_.find(m.xid);
  if (it == streams_.end()) {
    it = streams_.emplace(m.xid, start_transaction()).first;
    it->second.txn.xid_ = m.xid;
  }
  return {};
}

inline auto assembler::on(const pgoutput::stream_stop_message&) -> result<void> { return {}; }

template <class Handler>
auto assembler::on(const pgoutput::stream_commit_message& m, Handler& handler) -> result<void> {
  auto it = streams_.find(m.xid);
  if (it == streams_.end()) {
    // Every change of it was in an aborted subtransaction, or it had none: nothing to deliver.
    const empty_commit e{m.end_lsn};
    return handler(e);
  }
  open_txn o = std::move(it->second);
  streams_.erase(it);
  o.txn.streamed_ = true;
  return finish(o, m.commit_lsn, m.end_lsn, m.commit_time, handler);
}

template <class Handler>
auto assembler::on(const pgoutput::stream_abort_message& m, Handler& handler) -> result<void> {
  auto it = streams_.find(m.xid);
  stream_abort_event e{m.xid, m.subxid, 0, 0};
  if (it != streams_.end()) {
    if (m.subxid == m.xid) {
      e.dropped_changes = it->second.txn.change_count();
      e.dropped_bytes = it->second.txn.byte_size() + it->second.txn.spilled_bytes();
      recycle(std::move(it->second.txn));
      streams_.erase(it);
    } else {
      const auto held = held_bytes(it->second.txn);
      auto cut = cut_subtransaction(it->second, m.subxid);
      if (!cut) return unexpected(cut.error());
      e.dropped_changes = *cut;
      e.dropped_bytes = held - held_bytes(it->second.txn);
    }
  }
  return handler(std::as_const(e));
}

template <class Handler>
auto assembler::on(const pgoutput::prepare_message& m, Handler& handler) -> result<void> {
  if (!current_) return fail(errc::protocol_violation);
  open_txn o = std::move(*current_);
  spare_open_ = std::move(current_);  // moved from: open_current() empties it for the next Begin
  const prepared_event e{m.xid, m.gid, m.prepare_lsn, m.end_lsn, o.txn.change_count()};
  o.prepare_lsn = m.prepare_lsn;
  prepared_.insert_or_assign(m.xid, std::move(o));
  return handler(e);
}

template <class Handler>
auto assembler::on(const pgoutput::stream_prepare_message& m, Handler& handler) -> result<void> {
  open_txn o;
  if (auto it = streams_.find(m.xid); it != streams_.end()) {
    o = std::move(it->second);
    streams_.erase(it);
  } else {
    o = start_transaction();
    o.txn.xid_ = m.xid;
  }
  o.gid = std::string{m.gid};
  o.prepare_lsn = m.prepare_lsn;
  o.txn.streamed_ = true;
  const prepared_event e{m.xid, m.gid, m.prepare_lsn, m.end_lsn, o.txn.change_count()};
  prepared_.insert_or_assign(m.xid, std::move(o));
  return handler(e);
}

template <class Handler>
auto assembler::on(const pgoutput::commit_prepared_message& m, Handler& handler) -> result<void> {
  auto it = prepared_.find(m.xid);
  if (it == prepared_.end()) return fail(errc::protocol_violation);
  open_txn o = std::move(it->second);
  prepared_.erase(it);
  committed_prepares_.push_back({m.commit_lsn, o.prepare_lsn});
  return finish(o, m.commit_lsn, m.end_lsn, m.commit_time, handler);
}

template <class Handler>
auto assembler::on(const pgoutput::rollback_prepared_message& m, Handler& handler) -> result<void> {
  if (auto it = prepared_.find(m.xid); it != prepared_.end()) {
    recycle(std::move(it->second.txn));
    prepared_.erase(it);
  }
  const rollback_prepared_event e{m.xid, m.rollback_end_lsn};
  return handler(e);
}

}  // namespace replicant

#endif  // REPLICANT_ASSEMBLER_ASSEMBLER_HPP
