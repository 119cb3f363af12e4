// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_PGLOGICAL_HPP
#define REPLICANT_DECODER_PGLOGICAL_HPP

/// @file
/// replicant::pglogical_decoder: translates the native protocol of pglogical's output plugin
/// (`pglogical_output`, protocol version 1, pglogical 2.x) into pgoutput messages, which
/// replicant::assembler then consumes exactly as it consumes pgoutput itself.
///
/// Wire layouts: PROTOCOL.md §3, checked against pglogical 2.4's `pglogical_proto_native.c`
/// (writers), `pglogical_output_config.c` (parameters, startup message) and
/// `pglogical_output_plugin.c` (callbacks, the queue table), https://github.com/2ndQuadrant/pglogical.

#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/catalog.hpp>
#include <replicant/decoder/detail/pgoutput_writer.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/model/relation.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

namespace replicant {

/**
 * What a @ref pglogical_decoder asks the plugin for.
 *
 * @par Example
 * @code
 * replicant::pglogical_options options;
 * options.replication_sets = {"default", "default_insert_only"};
 * @endcode
 */
struct pglogical_options {
  /// The replication sets to decode (`pglogical.replication_set_names`); each must pass
  /// identifier::validate and name a set of the provider's local node. pglogical sends changes of
  /// the tables in these sets only (with each set's row, column and action filters), so this list
  /// is what stands in for a publication, and it may not be empty.
  std::vector<std::string> replication_sets{};
  /// Also deliver transactions that were replicated into this database from elsewhere (those with
  /// a replication origin), as pgoutput does by default. Off: pglogical filters them out, like
  /// pgoutput's `origin 'none'`.
  bool forward_origins = true;
};

namespace detail {
template <>
inline constexpr bool is_decoder_options<pglogical_options> = true;
}  // namespace detail

/**
 * What the plugin announced in its startup message (the first message of every session, sent
 * with the first transaction).
 *
 * @par Thread safety
 * A value type.
 */
struct pglogical_startup {
  /// The lowest and highest protocol versions the plugin speaks (pglogical 2.x: both 1).
  std::uint32_t min_proto_version = 0;
  /// See min_proto_version.
  std::uint32_t max_proto_version = 0;
  /// `pglogical_version`, e.g. `"2.4.2"`.
  std::string pglogical_version{};
  /// `pg_version`: the PostgreSQL version pglogical was **built** against, not the running server's.
  std::string pg_version{};
  /// `encoding`: the encoding of the text values sent (the database encoding).
  std::string encoding{};
};

/**
 * Translates pglogical's native output protocol into pgoutput messages, one XLogData payload at a
 * time.
 *
 * **Why a translator.** Everything downstream of the decoder (transaction assembly, spilling,
 * casting, the sink contract, the exactly-once watermark) is written against pgoutput. pglogical's
 * messages are close relatives of pgoutput's (Begin, Commit, Origin, Relation, Insert, Update,
 * Delete with key and new tuples), so each becomes the pgoutput message it corresponds to and the
 * pgoutput path pays nothing for this plugin.
 *
 * **Startup.** Every session begins with a startup message (sent along with the first decoded
 * transaction, so an idle server sends nothing at all). It must offer protocol version 1 (otherwise
 * `errc::protocol_unsupported`, which halts `decoder_protocol_unsupported`) and text in UTF-8 (otherwise
 * `errc::unsupported_server`); a transaction before it is `errc::protocol_violation`.
 *
 * **Column types.** pglogical's Relation message carries column names and the replica identity
 * flag, but no types (its startup message says `coltypes=f`). The types, type modifiers and the
 * replica identity setting come from a @ref relation_catalog (query_for_replication_sets()): with
 * it every value is cast exactly as pgoutput's. A column the catalog does not know (added after the
 * catalog was read) is described with type OID 0 and delivered as text: read the catalog again
 * when reconnecting (set_catalog()). Without a catalog the key flags still come from pglogical, and
 * a table without any flagged column is taken as `REPLICA IDENTITY FULL` (pglogical puts such
 * tables only in insert-only sets, or they are FULL: its key tuple is then the whole old row).
 *
 * **Values.** pglogical sends each value as its type's text output, with a trailing NUL that is
 * dropped; NULL and unchanged TOAST (`'u'`) carry over as they are. The decoder asks for text only
 * (`binary.want_internal_basetypes` and `binary.want_binary_basetypes` off), so an internal or
 * binary value is `errc::protocol_violation`.
 *
 * **Truncate.** pglogical has no truncate message: its TRUNCATE trigger queues a row in
 * `pglogical.queue`, which reaches the stream as an insert into that table. Such a row becomes a
 * pgoutput Truncate of the table it names (without CASCADE / RESTART IDENTITY flags, which
 * pglogical does not record); the queue's other rows (DDL commands, table synchronisation,
 * sequences) are pglogical's own business and are dropped, and so is the queue's Relation message.
 *
 * **Differences from pgoutput that remain.** Every decoded transaction has a Begin and a Commit,
 * also those that changed none of the tables (they reach the caller as empty commits); there are
 * no logical messages, no streaming and no two-phase transactions; generated columns are included.
 *
 * **Strictness.** Input is untrusted: anything that does not fit pglogical's layouts exactly
 * (truncation, trailing bytes, a string without its NUL, an unknown message or column kind, non-zero
 * flags) is `errc::decode_failure`; a well-formed message out of place (a change outside Begin ...
 * Commit, a Commit whose LSN is not the one its Begin announced, a change for a relation not
 * described in this session, a tuple whose width differs from its relation's) is
 * `errc::protocol_violation`. Errors never contain any byte of the input. After
 * an error, call reset() (and reset the assembler) before continuing.
 *
 * @par Example
 * @code
 * replicant::pglogical_decoder decoder{options, std::move(catalog)};
 * replicant::assembler assembler;
 * auto r = decoder.translate(xlog.data, [&](std::span<const std::byte> message) {
 *   return assembler.push(message, handler);
 * });
 * if (!r) return r.error();
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class pglogical_decoder {
 public:
  /// The output plugin name for `CREATE_REPLICATION_SLOT ... LOGICAL`. (The server must preload
  /// the `pglogical` library, and the database must have a pglogical node.)
  static constexpr std::string_view plugin_name = "pglogical_output";

  /// The only protocol version pglogical's native protocol has.
  static constexpr std::uint32_t protocol_version = 1;

  /// Tables described from the catalog, and nothing else: no publications (the table set is
  /// pglogical_options::replication_sets), logical messages, streaming, two-phase, origin filter
  /// (pglogical_options::forward_origins instead), failover, binary values, protocol choice or
  /// snapshot start mode.
  static constexpr decoder_capabilities capabilities{.catalog = true};

  /// What a decoder is made from (its replication sets above all).
  using options_type = pglogical_options;

  /**
   * A decoder for @p options, optionally with the tables' current shapes.
   * @throws std::bad_alloc only.
   */
  explicit pglogical_decoder(pglogical_options options = {}, relation_catalog catalog = {})
      : options_(std::move(options)), catalog_(std::move(catalog)) {}

  /**
   * The parameter list for `START_REPLICATION SLOT s LOGICAL x/x (<options>)`: startup parameter
   * format and protocol version 1, native format, UTF-8 text only, the replication sets, and
   * `pglogical.forward_origins 'all'` when `forward_origins` is set (PROTOCOL.md §3.1).
   *
   * @return the parameters, or an `identifier_error` for a set name that fails
   *   identifier::validate, or `errc::invalid_options` when no set is given. Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto start_options() const -> result<std::string>;

  /**
   * Translates one XLogData payload of the plugin into zero or more pgoutput messages.
   *
   * Every message is handed to @p emit in order; the bytes are valid only during that call. All of
   * the decoder's own work for the payload is done before the first call, so an error of its own
   * means nothing was emitted.
   *
   * @param payload the `data` of one XLogData (one pglogical message).
   * @param emit receives each pgoutput message; an error it returns stops the translation.
   * @return nothing, or `errc::decode_failure`, `errc::protocol_violation`,
   *   `errc::unsupported_server`, `errc::protocol_unsupported`,
   *   `std::errc::not_enough_memory`, or @p emit's error.
   * @throws whatever @p emit throws; nothing else.
   */
  template <pgoutput_emitter Emit>
  [[nodiscard]] auto translate(std::span<const std::byte> payload, Emit&& emit) -> result<void>;

  /// @name As the replication pipeline's Decoder (@ref replicant::decoder_policy)
  /// @{

  /**
   * Checks the options before a pipeline connects: at least one replication set, each name of an
   * allowed shape.
   * @return nothing, or the halt `config_invalid` or `invalid_identifier` (see @ref replicant::refuse).
   * Never throws.
   */
  [[nodiscard]] auto validate() const noexcept -> halt_or<void>;

  /// pglogical is asked for none of `plugin_settings`: all at their defaults. Never throws.
  [[nodiscard]] auto settings() const noexcept -> plugin_settings { return {}; }

  /**
   * start_options() as the pipeline asks for them. pglogical ignores parameters it does not know,
   * so there is nothing to fall back from; what it refuses (a protocol or encoding it does not
   * speak, an unknown set) it refuses at START_REPLICATION, and prepare() checks the sets first.
   * @return the request, or `errc::invalid_identifier`. Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto negotiate(const decoder_context& ctx) const -> result<start_request>;

  /// A new session: reset(). Never throws.
  auto begin_session(const decoder_context&) noexcept -> void { reset(); }

  /**
   * At connect: checks that the server can run pglogical's output plugin here (the `pglogical`
   * library preloaded, the extension installed, a local node), that every configured replication
   * set exists on the local node, and reads the shapes of the sets' tables
   * (relation_catalog::query_for_replication_sets) as the catalog.
   *
   * @return no halt; or a halt `decoder_unsupported_on_server` or `publication_missing` (a
   *   replication set is pglogical's publication); or the query's error (or
   *   `errc::decode_failure` for a catalog row of the wrong shape). Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto prepare(const query_function& query) -> result<std::optional<halt>>;
  /// @}

  /// pglogical is not checked on a timer: 0. (Its catalog is read again when recheck_due().)
  [[nodiscard]] auto recheck_interval() const noexcept -> std::chrono::milliseconds { return {}; }

  /**
   * Whether the catalog must be read again before the next payload is translated. pglogical sends
   * a table's Relation message before its first change in a session and again after anything
   * invalidated the table's definition (DDL, a truncate), with column names but no types; the
   * types must come from the catalog as it is when the description arrives, not as it was at
   * connect. Never throws.
   */
  [[nodiscard]] auto recheck_due() const noexcept -> bool { return recheck_due_; }

  /**
   * Reads the catalog again and hands @p emit the description of every table pglogical described
   * since the last recheck, typed from the catalog as it is now, so that a changed type reaches
   * the assembler as pgoutput's Relation would, and is judged the same way. The catalog may be
   * ahead of the stream (when the stream is behind, a later change's types are seen early); it is
   * never behind it.
   *
   * @return no halt; or the query's error (the pipeline then reconnects, and the catalog is read
   *   again at connect), or the emitter's. Value-free.
   * @throws std::bad_alloc only.
   */
  template <pgoutput_emitter Emit>
  [[nodiscard]] auto recheck(const query_function& query, Emit&& emit) -> result<std::optional<halt>>;

  /// Replaces the catalog (e.g. read again at a reconnect); used from the next Relation message on.
  auto set_catalog(relation_catalog catalog) noexcept -> void { catalog_ = std::move(catalog); }

  /**
   * Starts a new replication session (after a reconnect): a new startup message is expected, any
   * transaction in progress is left, and every relation must be described again, as pglogical does
   * in a new session. Never throws.
   */
  auto reset() noexcept -> void;

  /// True between a Begin and its Commit.
  [[nodiscard]] auto in_transaction() const noexcept -> bool { return in_transaction_; }

  /// The startup message of this session, once received.
  [[nodiscard]] auto startup() const noexcept -> const std::optional<pglogical_startup>& { return startup_; }

  /// The options given at construction.
  [[nodiscard]] auto options() const noexcept -> const pglogical_options& { return options_; }

  /// The catalog in use.
  [[nodiscard]] auto catalog() const noexcept -> const relation_catalog& { return catalog_; }

  /// The description sent for relation @p oid in this session, or null. Valid until the next
  /// translate(), reset() or set_catalog().
  [[nodiscard]] auto find_relation(std::uint32_t oid) const noexcept -> const relation_info*;

 private:
  struct relation_state {
    relation_info shape{};
    // pglogical.queue: read for its truncate rows, never forwarded.
    bool queue = false;
    // pglogical flagged key columns (else the identity is FULL or none).
    bool key_flagged = false;
    // Received, not yet sent to the assembler: waiting for the catalog to be read (recheck()).
    bool pending = false;
    std::optional<std::size_t> message_type_column{};
    std::optional<std::size_t> message_column{};
  };

  [[nodiscard]] auto translate_payload(std::span<const std::byte> payload) -> std::error_code;
  [[nodiscard]] auto read_startup(detail::byte_reader& in) -> std::error_code;
  [[nodiscard]] auto read_begin(detail::byte_reader& in) -> std::error_code;
  [[nodiscard]] auto read_commit(detail::byte_reader& in) -> std::error_code;
  [[nodiscard]] auto read_origin(detail::byte_reader& in) -> std::error_code;
  [[nodiscard]] auto read_relation(detail::byte_reader& in) -> std::error_code;
  [[nodiscard]] auto read_change(std::uint8_t type, detail::byte_reader& in) -> std::error_code;
  [[nodiscard]] auto read_tuple(detail::byte_reader& in, std::size_t columns) -> std::error_code;
  [[nodiscard]] auto queued_row(const relation_state& queue, detail::byte_reader& in) -> std::error_code;
  [[nodiscard]] auto describe_from_catalog(const relation_info& known) -> std::uint32_t;
  [[nodiscard]] auto read_catalog(const query_function& query) const -> result<relation_catalog>;
  auto describe_with_catalog(relation_state& state) const -> void;
  auto describe_if_pending(relation_state& state) -> void;

  pglogical_options options_;
  relation_catalog catalog_;
  std::optional<pglogical_startup> startup_{};
  bool in_transaction_ = false;
  bool recheck_due_ = false;  // a table of this session was described again
  lsn final_lsn_{};           // the commit LSN the open transaction's Begin announced
  std::unordered_map<std::uint32_t, relation_state> relations_{};
  std::vector<std::string_view> queue_values_{};  // scratch for a queue row
  detail::pgoutput_writer out_{};
};

}  // namespace replicant

#include <replicant/decoder/impl/pglogical.hpp>

#endif  // REPLICANT_DECODER_PGLOGICAL_HPP
