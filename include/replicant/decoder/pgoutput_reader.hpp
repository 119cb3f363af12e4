// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_PGOUTPUT_READER_HPP
#define REPLICANT_DECODER_PGOUTPUT_READER_HPP

/// @file
/// replicant::pgoutput_reader and the pgoutput messages: turn the payload of one XLogData message
/// from PostgreSQL's built-in `pgoutput` plugin (protocol versions 1 to 4) into a typed, zero-copy
/// message.
///
/// Wire layouts: PostgreSQL's "Logical Replication Message Formats"
/// (https://www.postgresql.org/docs/current/protocol-logicalrep-message-formats.html), checked
/// against the server's writer `src/backend/replication/logical/proto.c`; see PROTOCOL.md §2.

#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/core/sys_microseconds.hpp>
#include <replicant/decoder/detail/text_shape.hpp>
#include <replicant/decoder/pgoutput_protocol.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction_fwd.hpp>
#include <replicant/model/tuple.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace replicant {

class pgoutput_reader;

/// The pgoutput message types and their zero-copy building blocks.
namespace pgoutput {

/// The row encoding is the model's (model/tuple.hpp): pgoutput's TupleData is read as it is.
///@{
using replicant::column_kind;
using replicant::old_tuple_kind;
using replicant::parse_tuple_data;
using replicant::tuple_column;
using replicant::tuple_data;
///@}

/**
 * The relation OIDs of a Truncate message: a view of big-endian Int32 values with indexing and
 * forward iteration.
 *
 * @par Thread safety
 * A view: valid while the frame it was decoded from is alive and unchanged.
 */
class relid_list {
 public:
  /// Forward iterator yielding OIDs by value.
  class iterator {
   public:
    /// Iterator traits: a C++20 forward iterator that yields OIDs by value, so only an input
    /// iterator by the C++17 rules (whose forward iterators must yield references).
    ///@{
    using value_type = std::uint32_t;
    using reference = std::uint32_t;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    ///@}

    /// A singular iterator.
    iterator() = default;
    /// The current OID.
    [[nodiscard]] auto operator*() const noexcept -> std::uint32_t { return relid_list::load(at_); }
    /// Moves to the next OID.
    auto operator++() noexcept -> iterator& {
      at_ += 4;
      return *this;
    }
    /// Moves to the next OID, returning the previous position.
    auto operator++(int) noexcept -> iterator {
      iterator before = *this;
      at_ += 4;
      return before;
    }
    /// Same position.
    [[nodiscard]] friend auto operator==(const iterator& a, const iterator& b) noexcept -> bool {
      return a.at_ == b.at_;
    }

   private:
    friend class relid_list;
    explicit iterator(const std::byte* at) noexcept : at_(at) {}
    const std::byte* at_ = nullptr;
  };

  /// No relations.
  constexpr relid_list() noexcept = default;

  /// Number of relations.
  [[nodiscard]] constexpr auto size() const noexcept -> std::size_t { return bytes_.size() / 4; }
  /// True when there are none.
  [[nodiscard]] constexpr auto empty() const noexcept -> bool { return bytes_.empty(); }
  /// The @p i-th OID. Precondition: `i < size()` (checked in debug builds).
  [[nodiscard]] auto operator[](std::size_t i) const noexcept -> std::uint32_t {
    REPLICANT_ASSERT(i < size());
    return load(bytes_.data() + 4 * i);
  }
  /// The first OID.
  [[nodiscard]] auto begin() const noexcept -> iterator { return iterator{bytes_.data()}; }
  /// Past the last OID.
  [[nodiscard]] auto end() const noexcept -> iterator { return iterator{bytes_.data() + bytes_.size()}; }

 private:
  friend class ::replicant::pgoutput_reader;
  explicit relid_list(std::span<const std::byte> bytes) noexcept : bytes_(bytes) {}
  static auto load(const std::byte* p) noexcept -> std::uint32_t {
    return static_cast<std::uint32_t>(detail::load_big_endian<4>(p));
  }

  std::span<const std::byte> bytes_{};
};

/**
 * @name Messages
 * One struct per pgoutput message. Strings, tuples and contents are views into the frame the
 * message was decoded from: they are valid while that frame is alive and unchanged. Messages that
 * can be sent inside a streamed block (Relation, Type, Insert, Update, Delete, Truncate, Message)
 * have an `xid`, set exactly when the decoder was inside a stream (between Stream Start and Stream
 * Stop): the id of the (sub)transaction that made the change, which is not always the streamed
 * top-level transaction.
 * @{
 */

/// Begin 'B': a transaction's changes follow, up to its Commit. Never inside a stream.
struct begin_message {
  /// LSN of the transaction's commit record.
  lsn final_lsn{};
  /// Commit time on the server.
  sys_microseconds commit_time{};
  /// The top-level transaction id.
  transaction_id xid = 0;
};

/// Commit 'C': the transaction since Begin is complete. Its flags byte is checked to be zero.
struct commit_message {
  /// LSN of the commit record (the Begin's `final_lsn`).
  lsn commit_lsn{};
  /// End of the commit record: the position to acknowledge once the transaction is durable.
  lsn end_lsn{};
  /// Commit time on the server.
  sys_microseconds commit_time{};
};

/// Origin 'O': the transaction came from another node through a replication origin.
struct origin_message {
  /// Commit LSN on the origin node (0 after a Stream Start).
  lsn origin_lsn{};
  /// The origin's name.
  std::string_view name{};
};

/**
 * Relation 'R': describes (or re-describes) a relation; the decoder's cache now holds this shape.
 *
 * `relation` is the cached description itself, shared: keep the pointer to keep using the shape
 * after the relation is described again. pgoutput re-sends identical descriptions routinely; then
 * `change` is null and `relation` is the unchanged cached object.
 */
struct relation_message {
  /// The (sub)transaction id when sent inside a stream. A shape seen inside a stream belongs to
  /// that streamed transaction until it commits: act on its `change` only then.
  std::optional<transaction_id> xid{};
  /// The new description (never null in a decoded message).
  std::shared_ptr<const relation_info> relation{};
  /// How it differs from the previous description of the same OID; null when it is the first
  /// description seen or identical to the previous one.
  std::shared_ptr<const schema_change> change{};
};

/// Type 'Y': describes a non-built-in column type; the decoder's type cache now holds it.
struct type_message {
  /// The (sub)transaction id when sent inside a stream.
  std::optional<transaction_id> xid{};
  /// The column type's OID (a domain's own OID for a domain column).
  std::uint32_t oid = 0;
  /// Schema of the base type (`"pg_catalog"` spelled out).
  std::string_view schema{};
  /// Name of the base type.
  std::string_view name{};
};

/// Insert 'I'.
struct insert_message {
  /// The (sub)transaction id when sent inside a stream.
  std::optional<transaction_id> xid{};
  /// The relation's OID.
  std::uint32_t relation_oid = 0;
  /// The relation's description in force for this row (its column count matches `new_tuple`).
  /// Owned by the reader's cache; see @ref pgoutput_reader for how long it lives.
  const relation_info* relation = nullptr;
  /// The new row.
  tuple_data new_tuple{};
};

/// Update 'U': an optional old tuple ('K' key or 'O' full row), then the new row.
struct update_message {
  /// The (sub)transaction id when sent inside a stream.
  std::optional<transaction_id> xid{};
  /// The relation's OID.
  std::uint32_t relation_oid = 0;
  /// The relation's description in force for this row.
  const relation_info* relation = nullptr;
  /// Whether and which old values were sent.
  old_tuple_kind old_kind = old_tuple_kind::none;
  /// The old key or row; empty when `old_kind == none`.
  tuple_data old_tuple{};
  /// The new row; may contain `unchanged_toast` columns.
  tuple_data new_tuple{};
};

/// Delete 'D': the old key ('K') or full old row ('O').
struct delete_message {
  /// The (sub)transaction id when sent inside a stream.
  std::optional<transaction_id> xid{};
  /// The relation's OID.
  std::uint32_t relation_oid = 0;
  /// The relation's description in force for this row.
  const relation_info* relation = nullptr;
  /// `key` or `full`, never `none`.
  old_tuple_kind old_kind = old_tuple_kind::key;
  /// The old key or row.
  tuple_data old_tuple{};
};

/// Truncate 'T': one or more relations were truncated together.
struct truncate_message {
  /// The (sub)transaction id when sent inside a stream.
  std::optional<transaction_id> xid{};
  /// `TRUNCATE ... CASCADE`.
  bool cascade = false;
  /// `TRUNCATE ... RESTART IDENTITY`.
  bool restart_identity = false;
  /// The truncated relations (only those published with `truncate`).
  relid_list relation_oids{};
};

/// Message 'M': a `pg_logical_emit_message` record (needs the `messages` option).
struct logical_message {
  /// The (sub)transaction id when sent inside a stream.
  std::optional<transaction_id> xid{};
  /// Sent in its transaction's commit order (true) or as soon as decoded, outside any transaction.
  bool transactional = false;
  /// The **end** LSN of the message record: what `pg_logical_emit_message` returned.
  lsn message_lsn{};
  /// The prefix the emitter chose.
  std::string_view prefix{};
  /// The content, raw (not converted to the client encoding; may hold NUL bytes).
  std::span<const std::byte> content{};
};

/// Stream Start 'S': a block of an in-progress transaction's changes follows (protocol 2+).
struct stream_start_message {
  /// The streamed top-level transaction.
  transaction_id xid = 0;
  /// True for the first block of this transaction.
  bool first_segment = false;
};

/// Stream Stop 'E': the current streamed block ends (protocol 2+).
struct stream_stop_message {};

/// Stream Commit 'c': a streamed transaction committed (protocol 2+). Flags are checked to be zero.
struct stream_commit_message {
  /// The streamed top-level transaction.
  transaction_id xid = 0;
  /// LSN of the commit record.
  lsn commit_lsn{};
  /// End of the commit record: the position to acknowledge.
  lsn end_lsn{};
  /// Commit time on the server.
  sys_microseconds commit_time{};
};

/// Stream Abort 'A': a streamed transaction, or one of its subtransactions, aborted (protocol 2+).
struct stream_abort_message {
  /// The streamed top-level transaction.
  transaction_id xid = 0;
  /// The aborted (sub)transaction; equal to `xid` when the whole transaction aborted.
  transaction_id subxid = 0;
  /// True when the abort LSN and time were sent (`streaming = parallel` only).
  bool has_abort_info = false;
  /// LSN of the abort record (when `has_abort_info`).
  lsn abort_lsn{};
  /// Abort time on the server (when `has_abort_info`).
  sys_microseconds abort_time{};
};

/// What Begin Prepare, Prepare and Stream Prepare carry alike: the prepare record and the
/// transaction's global identifier.
struct prepare_fields {
  /// LSN of the prepare record.
  lsn prepare_lsn{};
  /// End of the prepare record.
  lsn end_lsn{};
  /// Prepare time on the server.
  sys_microseconds prepare_time{};
  /// The transaction id.
  transaction_id xid = 0;
  /// The global transaction identifier given to `PREPARE TRANSACTION`.
  std::string_view gid{};
};

/// Begin Prepare 'b': a two-phase transaction's changes follow, up to its Prepare (protocol 3+).
struct begin_prepare_message : prepare_fields {};

/// Prepare 'P': the two-phase transaction since Begin Prepare is prepared (protocol 3+).
struct prepare_message : prepare_fields {};

/// Commit Prepared 'K': a prepared transaction committed (protocol 3+).
struct commit_prepared_message {
  /// LSN of the commit-prepared record.
  lsn commit_lsn{};
  /// End of that record: the position to acknowledge.
  lsn end_lsn{};
  /// Commit time on the server.
  sys_microseconds commit_time{};
  /// The transaction id.
  transaction_id xid = 0;
  /// The global transaction identifier.
  std::string_view gid{};
};

/// Rollback Prepared 'r': a prepared transaction was rolled back (protocol 3+).
struct rollback_prepared_message {
  /// End of the prepare record.
  lsn prepare_end_lsn{};
  /// End of the rollback record: the position to acknowledge.
  lsn rollback_end_lsn{};
  /// Prepare time on the server.
  sys_microseconds prepare_time{};
  /// Rollback time on the server.
  sys_microseconds rollback_time{};
  /// The transaction id.
  transaction_id xid = 0;
  /// The global transaction identifier.
  std::string_view gid{};
};

/// Stream Prepare 'p': a streamed two-phase transaction is prepared (protocol 3+).
struct stream_prepare_message : prepare_fields {};

/** @} */

/**
 * Any decoded pgoutput message. Dispatch with `std::visit` or `std::get_if`; the alternatives are
 * listed in the order of PostgreSQL's message catalog.
 */
using message =
    std::variant<begin_message, commit_message, origin_message, relation_message, type_message, insert_message,
                 update_message, delete_message, truncate_message, logical_message, stream_start_message,
                 stream_stop_message, stream_commit_message, stream_abort_message, begin_prepare_message,
                 prepare_message, commit_prepared_message, rollback_prepared_message, stream_prepare_message>;

}  // namespace pgoutput

/**
 * Reads pgoutput messages (protocol 1 to 4), one XLogData payload at a time: the wire reader the
 * assembler decodes the stream with. The plugin policy a pipeline is given is @ref pgoutput_decoder
 * (decoder/pgoutput.hpp), which negotiates `START_REPLICATION` and holds no stream state.
 *
 * Stateful, because the wire format is: it caches relation descriptions by OID (from Relation)
 * and type descriptions by OID (from Type), and it tracks whether it is inside a streamed block,
 * which decides whether Relation, Type, Insert, Update, Delete, Truncate and Message carry an xid.
 *
 * **Zero-copy.** Decoding allocates nothing for data messages: strings, tuples and column values
 * are views into the payload. Only Relation and Type allocate (to own their strings in the caches;
 * an identical re-send allocates nothing), plus a little bookkeeping per streamed transaction.
 *
 * **Strictness.** Input is untrusted. Anything that does not fit its layout exactly (truncation,
 * trailing bytes, a string without NUL, an unknown message type, an unknown column kind, non-zero
 * Commit/Prepare flags, unknown flag bits) is `errc::decode_failure`. A well-formed message that
 * the session cannot produce at that point is `errc::protocol_violation`: a change for a relation
 * not described in this session, a tuple whose column count differs from its relation's, a
 * streaming message when streaming was not negotiated (or below protocol 2), a two-phase message
 * below protocol 3, Stream Start inside a stream, Stream Stop outside one, or a transaction-level
 * message (B, C, b, P, K, r, c, A, p) inside one. A failed decode leaves the reader unchanged
 * (unless memory ran out midway).
 * Errors never contain any byte of the input. Running out of memory while caching a relation is
 * reported as `std::errc::not_enough_memory` rather than thrown.
 *
 * **Streams.** A Relation or Type sent inside a stream describes the relation as the streamed
 * transaction sees it, which may differ from what concurrently committed transactions use. It is
 * therefore kept apart, per streamed top-level transaction: used for that transaction's changes,
 * merged into the main cache when it commits (Stream Commit, as pgoutput then considers the
 * schema sent), and dropped when it aborts entirely or is prepared.
 *
 * **Lifetimes.** Views in a message live as long as the payload. A change's `relation` pointer
 * stays valid until that relation OID is described again with a different shape, its streamed
 * transaction ends, or the reader is cleared or destroyed; a consumer that holds rows longer
 * keeps the `shared_ptr` from the preceding @ref pgoutput::relation_message (or from
 * @ref find_relation), which keeps that description alive and unchanged.
 *
 * @par Example
 * @code
 * replicant::pgoutput_reader reader{{.version = 4, .streaming = replicant::pgoutput_streaming::on}};
 * auto frame = replicant::parse_copy_data(bytes);
 * if (!frame) return frame.error();
 * if (auto* w = std::get_if<replicant::xlog_data>(&*frame)) {
 *   auto msg = reader.decode(w->data);
 *   if (!msg) return msg.error();
 *   if (auto* ins = std::get_if<replicant::pgoutput::insert_message>(&*msg)) {
 *     auto col = ins->relation->columns.begin();
 *     for (replicant::pgoutput::tuple_column value : ins->new_tuple) use(*col++, value);
 *   }
 * }
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe (decoding mutates the caches).
 */
class pgoutput_reader {
 public:
  /**
   * A reader for a session that negotiated @p negotiated.
   * @pre `negotiated.is_valid()` (checked in debug builds; pgoutput refuses anything else).
   */
  explicit pgoutput_reader(pgoutput_protocol negotiated = {}) noexcept : protocol_(negotiated) {
    REPLICANT_ASSERT(negotiated.is_valid());
  }

  /**
   * Decodes one pgoutput message: the `data` of one XLogData.
   *
   * @param payload exactly one message (PostgreSQL sends one per XLogData).
   * @return the message, with views into @p payload; or `errc::decode_failure`,
   *   `errc::protocol_violation` (see the class description) or `std::errc::not_enough_memory`.
   * @par Exceptions
   * Never throws.
   */
  [[nodiscard]] auto decode(std::span<const std::byte> payload) noexcept -> result<pgoutput::message>;

  /**
   * Decodes one pgoutput message into @p out, the allocation- and copy-free form for a loop that
   * reuses one message object (the result-returning overload is built on it).
   *
   * @param payload exactly one message, as for the other overload.
   * @param out receives the message; its content is unspecified when an error is returned.
   * @return no error on success; otherwise the same codes as the other overload.
   * @par Exceptions
   * Never throws.
   */
  [[nodiscard]] auto decode(std::span<const std::byte> payload, pgoutput::message& out) noexcept -> std::error_code;

  /// What this reader was told the session negotiated.
  [[nodiscard]] constexpr auto protocol() const noexcept -> pgoutput_protocol { return protocol_; }

  /// True between a Stream Start and its Stream Stop.
  [[nodiscard]] constexpr auto in_stream() const noexcept -> bool { return in_stream_; }

  /// The top-level xid of the current streamed block, when inside one.
  [[nodiscard]] constexpr auto stream_xid() const noexcept -> std::optional<transaction_id> {
    return in_stream_ ? std::optional<transaction_id>{stream_xid_} : std::nullopt;
  }

  /**
   * The description a change for relation @p oid would be decoded with now (inside a stream,
   * the streamed transaction's own description comes first), or null if there is none.
   */
  [[nodiscard]] auto find_relation(std::uint32_t oid) const noexcept -> std::shared_ptr<const relation_info>;

  /// The described type @p oid (inside a stream, the streamed transaction's first), or null.
  /// Valid until that OID is described again or the reader is cleared.
  [[nodiscard]] auto find_type(std::uint32_t oid) const noexcept -> const type_info*;

  /// The classification made by the most recent Relation message: null if it was the first
  /// description of its relation or an identical re-send.
  [[nodiscard]] auto last_schema_change() const noexcept -> const std::shared_ptr<const schema_change>& {
    return last_change_;
  }

  /**
   * Starts a new replication session (after a reconnect): forgets the stream state and every
   * streamed transaction's staged descriptions, and requires each relation to be described again
   * before changes for it are accepted, as pgoutput does at the start of every session.
   *
   * The last known shapes are kept as the baseline for classification, so a table changed while
   * disconnected is still reported as a schema change when it is first described again.
   * Never throws.
   */
  auto reset() noexcept -> void;

  /// Forgets everything: like a newly constructed decoder. Never throws.
  auto clear() noexcept -> void;

 private:
  struct cached_relation {
    std::shared_ptr<const relation_info> info;
    // False after reset(): kept only as the baseline for schema-change classification until
    // the server describes the relation again in the new session.
    bool current = true;
  };
  // What one streamed top-level transaction described inside its blocks (see the class notes).
  struct stream_scope {
    std::unordered_map<std::uint32_t, std::shared_ptr<const relation_info>> relations;
    std::unordered_map<std::uint32_t, type_info> types;
  };
  struct column_view {
    std::uint8_t flags;
    std::string_view name;
    std::uint32_t type_oid;
    std::int32_t type_modifier;
  };

  [[nodiscard]] auto decode_message(detail::byte_reader& in, pgoutput::message& out) -> std::error_code;
  [[nodiscard]] auto decode_row(std::uint8_t type, detail::byte_reader& in, pgoutput::message& out) -> std::error_code;
  [[nodiscard]] auto decode_other_change(std::uint8_t type, detail::byte_reader& in, pgoutput::message& out) noexcept
      -> std::error_code;
  [[nodiscard]] auto decode_relation(detail::byte_reader& in, pgoutput::message& out) -> std::error_code;
  [[nodiscard]] auto decode_type(detail::byte_reader& in, pgoutput::message& out) -> std::error_code;
  [[nodiscard]] auto decode_stream_control(std::uint8_t type, detail::byte_reader& in, pgoutput::message& out)
      -> std::error_code;
  [[nodiscard]] auto decode_two_phase(std::uint8_t type, detail::byte_reader& in, pgoutput::message& out) noexcept
      -> std::error_code;

  [[nodiscard]] auto read_xid(detail::byte_reader& in) const noexcept -> std::optional<transaction_id>;
  [[nodiscard]] auto lookup_relation(std::uint32_t oid) noexcept -> const relation_info*;
  [[nodiscard]] auto current_scope() noexcept -> stream_scope*;
  [[nodiscard]] auto current_scope() const noexcept -> const stream_scope*;
  [[nodiscard]] auto read_row(detail::byte_reader& in, const relation_info* relation) const -> tuple_data;
  auto forget_memo() noexcept -> void { memo_relation_ = nullptr; }

  pgoutput_protocol protocol_;
  bool in_stream_ = false;
  transaction_id stream_xid_ = 0;
  std::unordered_map<std::uint32_t, cached_relation> relations_;
  std::unordered_map<std::uint32_t, type_info> types_;
  std::unordered_map<transaction_id, stream_scope> streams_;
  std::shared_ptr<const schema_change> last_change_{};
  // One-entry memo for lookup_relation: consecutive changes nearly always hit the same table, and
  // this saves a hash lookup per row. Cleared whenever a cache or the stream state changes.
  std::uint32_t memo_oid_ = 0;
  const relation_info* memo_relation_ = nullptr;
  std::int64_t memo_strict_ = 0;  // detail::strict_columns(*memo_relation_): what read_row() checks
  // Reused for every Relation message so re-sends of known shapes allocate nothing.
  std::vector<column_view> columns_scratch_{};
};

}  // namespace replicant

#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/decoder/impl/pgoutput_reader.hpp>
#endif

#endif  // REPLICANT_DECODER_PGOUTPUT_READER_HPP
