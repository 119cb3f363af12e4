// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_WAL2JSON_HPP
#define REPLICANT_DECODER_WAL2JSON_HPP

/// @file
/// replicant::wal2json_decoder: translates the output of the `wal2json` plugin (format version 2,
/// one JSON object per XLogData payload) into pgoutput messages, which replicant::assembler then
/// consumes exactly as it consumes pgoutput itself.
///
/// The plugin's options and object shapes: PROTOCOL.md §4 and wal2json's README
/// (https://github.com/eulerto/wal2json), checked against `wal2json.c` of releases 2.5 and 2.6.
/// JSON is parsed with simdjson's On-Demand API (https://simdjson.org), so a program that uses this
/// header links simdjson: it links `replicant::wal2json` (from
/// `find_package(replicant COMPONENTS wal2json)`, or the build tree), which brings it along.

#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/catalog.hpp>
#include <replicant/decoder/detail/pgoutput_writer.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/model/relation.hpp>

#include <simdjson.h>

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
 * What a @ref wal2json_decoder asks the plugin for, and what it delivers.
 *
 * @par Example
 * @code
 * replicant::wal2json_options options;
 * options.tables = {{"public", "orders"}, {"sales", "invoices"}};
 * replicant::wal2json_decoder decoder{options};
 * auto start = decoder.start_options();   // the "(...)" of START_REPLICATION ... LOGICAL x/x
 * @endcode
 */
struct wal2json_options {
  /// The tables to decode, schema-qualified; each part must pass identifier::validate. wal2json
  /// has no publications: it decodes every table of the database unless told otherwise, so this
  /// list (wal2json's `add-tables`) is what stands in for a publication, and it may not be empty.
  std::vector<table_name> tables{};
  /// Deliver logical messages (`pg_logical_emit_message`). wal2json always sends them; without
  /// this they are dropped. Their content reaches wal2json as a C string: it ends at the first NUL
  /// byte, and content that is not UTF-8 cannot be read from the JSON (`errc::decode_failure`).
  /// In a replication pipeline, also whether the sink's `handle_message` is called.
  bool messages = false;
  /// The documented lossy mode for wal2json builds without `numeric-data-types-as-string` (before
  /// 2.6; Debian's 2.5 is one). By default the decoder asks for that option, because without it
  /// wal2json prints `NaN`, `Infinity` and `-Infinity` of numeric and floating-point columns as JSON
  /// `null`, which cannot be told from SQL NULL: a plugin that refuses the option then halts the
  /// pipeline `decoder_option_unsupported` at connect rather than let such values turn into NULL.
  /// Set this to accept exactly that loss: the option is then never asked for (whatever the
  /// plugin's version), and those three values of those columns arrive as NULL. Every other value
  /// is exact either way (replicant keeps the digits as printed and never goes through a binary
  /// floating-point number).
  bool allow_special_numbers_as_null = false;
  /// Accept tables that have neither a replica identity index nor `REPLICA IDENTITY FULL`. wal2json
  /// drops the updates and deletes of such a table with nothing but a server WARNING, so a
  /// pipeline halts `table_keyless` at connect for one, unless it is declared insert-only here.
  bool allow_keyless_tables = false;
  /// How often a pipeline reads the catalog again while streaming (0: never). wal2json sends no
  /// relation messages, and an UPDATE leaves out an unchanged TOASTed column exactly as it leaves
  /// out a dropped one; a dropped column of a variable-width type on a table that only sees
  /// updates is therefore found by this check, within one interval, and reported as the
  /// destructive schema change it is. A configured table dropped, or left without a key, halts
  /// `decoder_table_missing` or `table_keyless` the same way.
  std::chrono::milliseconds schema_check_interval = std::chrono::seconds(30);
};

namespace detail {
template <>
inline constexpr bool is_decoder_options<wal2json_options> = true;
}  // namespace detail

/**
 * Translates the output of the `wal2json` logical decoding plugin (format version 2) into pgoutput
 * messages, one XLogData payload at a time.
 *
 * **Why a translator.** Everything downstream of the decoder (transaction assembly, spilling,
 * casting, the sink contract, the exactly-once watermark) is written against pgoutput. Translating
 * each wal2json object into the pgoutput messages the same change would have produced keeps that
 * code unchanged and keeps the pgoutput path free of any cost for the other plugins.
 *
 * **What it produces.** For `{"action":"B"}` a Begin, for `"C"` a Commit (its commit LSN is the
 * `lsn` that `include-lsn` adds: the exactly-once watermark; a Begin or Commit without it halts with
 * `errc::lsn_missing`, which halts `decoder_lsn_missing`), for `"I"`/`"U"`/`"D"` an Insert, Update or Delete, for `"T"`
 * a Truncate of that one table, for `"M"` a Message. Values keep the text the server's output
 * function printed: JSON strings are unescaped (bytea gets back the `\x` wal2json strips), numbers
 * keep their literal digits, booleans become `t`/`f`, `null` is NULL; so casting a translated value
 * gives what casting pgoutput's gives.
 *
 * **Relations.** wal2json sends no relation messages, so the decoder describes each table with a
 * synthesized Relation message before its first change in a session and whenever the column list
 * a change carries differs from the last description (a column added, dropped or retyped): the
 * assembler then reports a schema change as it does for pgoutput. The column types are the
 * `typeoid`s wal2json sends (`include-type-oids`), the type modifiers are read back from the type
 * names (`varchar(20)`, `numeric(12,4)`, ...). An UPDATE leaves out unchanged TOASTed columns: they
 * become unchanged (`'u'`) columns; a fixed-width column missing from an UPDATE cannot be TOASTed,
 * so it means the column was dropped.
 *
 * **Seeding from the catalog.** wal2json does not say what a table's replica identity is, and an
 * UPDATE cannot show a column it left out. With a @ref relation_catalog (query_for_tables()), the
 * decoder describes each table exactly as pgoutput would: the table's real OID, replica identity
 * and key flags, and every column even when the first change seen is an UPDATE. Without one, a
 * table gets a synthetic OID (counting down from 4294967295), its key is the primary key wal2json
 * reports (`include-pk`), a table without primary key is taken as `REPLICA IDENTITY FULL`, and a
 * table first seen in an UPDATE or DELETE is described with the columns seen so far, then
 * described again (an additive schema change) when a change shows more.
 *
 * **Old values.** An UPDATE whose key kept its values carries no old tuple, as with pgoutput; one
 * that changed its key carries the old key (`'K'`); a `REPLICA IDENTITY FULL` table's UPDATEs and
 * DELETEs carry the whole old row (`'O'`). wal2json itself drops UPDATEs and DELETEs of tables
 * with no replica identity (only a server WARNING tells), which is why such tables must be checked
 * at connect (`halt_reason::table_keyless`).
 *
 * **Differences from pgoutput that remain.** wal2json sends a Begin/Commit pair for every
 * transaction, also those that changed none of the tables (they reach the caller as empty
 * commits); Truncate has no CASCADE / RESTART IDENTITY flags; transactions carry no origin name;
 * no Type messages are sent (casting needs none); generated columns are included (pgoutput before
 * PostgreSQL 18 leaves them out); under `allow_special_numbers_as_null`, NaN and infinities of
 * numeric and floating-point columns arrive as NULL. Text is in the database's encoding, which must
 * be UTF-8 (JSON that is not UTF-8 is `errc::decode_failure`).
 *
 * **Strictness.** Input is untrusted: a payload that is not one JSON object of wal2json's shape
 * (a missing field, a value of the wrong JSON type, an unknown action, a number that is not one, a
 * NUL byte in a name) is `errc::decode_failure`; a well-formed object out of place (a change
 * outside Begin ... Commit, a Begin inside one, a Commit whose LSN is not the one its Begin
 * announced) is `errc::protocol_violation`. Errors never contain
 * any byte of the input. After an error, call reset() (and reset the assembler) before continuing.
 *
 * @par Example
 * @code
 * replicant::wal2json_decoder decoder{options, std::move(catalog)};
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
class wal2json_decoder {
 public:
  /// The output plugin name for `CREATE_REPLICATION_SLOT ... LOGICAL`.
  static constexpr std::string_view plugin_name = "wal2json";

  /// Logical messages, and tables described from the catalog; no publications (the table set is
  /// wal2json_options::tables), streaming, two-phase, origin filter, failover, binary values,
  /// protocol choice or snapshot start mode.
  static constexpr decoder_capabilities capabilities{.messages = true, .catalog = true};

  /// What a decoder is made from (its table set above all).
  using options_type = wal2json_options;

  /**
   * A decoder for @p options, optionally seeded with the tables' current shapes.
   * @throws std::bad_alloc only.
   */
  explicit wal2json_decoder(wal2json_options options = {}, relation_catalog catalog = {})
      : options_(std::move(options)), catalog_(std::move(catalog)) {}

  /**
   * The option list for `START_REPLICATION SLOT s LOGICAL x/x (<options>)`: format version 2,
   * every transaction's Begin and Commit with xid, commit time and LSNs, types with type OIDs and
   * modifiers, primary keys, the four actions, the `add-tables` filter built from
   * `options().tables` (each name escaped as wal2json's list syntax requires), and
   * `numeric-data-types-as-string` unless `allow_special_numbers_as_null`.
   *
   * @return the options, or an `identifier_error` for a table name part that fails
   *   identifier::validate, or `errc::invalid_options` when no table is given. Value-free.
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
   * @param payload the `data` of one XLogData (one JSON object).
   * @param emit receives each pgoutput message; an error it returns stops the translation.
   * @return nothing, or `errc::decode_failure`, `errc::protocol_violation`,
   *   `errc::lsn_missing`, `std::errc::not_enough_memory`, or @p emit's error.
   * @throws whatever @p emit throws; nothing else.
   */
  template <pgoutput_emitter Emit>
  [[nodiscard]] auto translate(std::span<const std::byte> payload, Emit&& emit) -> result<void>;

  /// @name As the replication pipeline's Decoder (@ref replicant::decoder_policy)
  /// @{

  /**
   * Checks the options before a pipeline connects: at least one table, every name part of an
   * allowed shape, and a non-negative schema check interval.
   * @return nothing, or `halt_reason::config_invalid` or `halt_reason::invalid_identifier`.
   * Never throws.
   */
  [[nodiscard]] auto validate() const noexcept -> halt_or<void>;

  /// What the pipeline reads of the options: `messages` (the rest of `plugin_settings` is
  /// pgoutput's and stays off). Never throws.
  [[nodiscard]] auto settings() const noexcept -> plugin_settings { return {.messages = options_.messages}; }

  /**
   * start_options() as the pipeline asks for them, with `fallback_options` (the same list without
   * `numeric-data-types-as-string`) when that option is asked for, i.e. unless
   * `allow_special_numbers_as_null`: wal2json before 2.6 refuses it, and the pipeline's probe with
   * the fallback tells that refusal apart from other failures to start.
   * @return the request, or start_options()'s error. Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto negotiate(const decoder_context& ctx) const -> result<start_request>;

  /// A new session: reset(). Never throws.
  auto begin_session(const decoder_context&) noexcept -> void { reset(); }

  /**
   * At connect: reads the configured tables' shapes (relation_catalog::query_for_tables) through
   * @p query, checks that every table exists and, unless `allow_keyless_tables`, has a replica
   * identity wal2json can send updates and deletes with, and makes the result the catalog.
   *
   * @return no halt; or a halt `decoder_table_missing` or `table_keyless` naming the table; or the
   *   query's error (or `errc::decode_failure` for a catalog row of the wrong shape). Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto prepare(const query_function& query) -> result<std::optional<halt>>;

  /// `schema_check_interval`: how often a pipeline calls recheck(). Never throws.
  [[nodiscard]] auto recheck_interval() const noexcept -> std::chrono::milliseconds {
    return options_.schema_check_interval;
  }

  /// wal2json is checked on its timer only: false. Never throws.
  [[nodiscard]] auto recheck_due() const noexcept -> bool { return false; }

  /**
   * The periodic catalog check: reads the tables' shapes again, halts as prepare() does for a
   * table dropped or left without a key, and describes again (through @p emit, a Relation
   * message) every table described in this session that has lost a column since: the assembler
   * then reports the destructive schema change as it would have from pgoutput. wal2json itself
   * shows no such drop where the column was of a variable-width type and the table only sees
   * updates (an unchanged TOASTed column is left out alike).
   *
   * @return as prepare(), or @p emit's error.
   * @throws std::bad_alloc, and whatever @p emit throws.
   */
  template <pgoutput_emitter Emit>
  [[nodiscard]] auto recheck(const query_function& query, Emit&& emit) -> result<std::optional<halt>>;
  /// @}

  /**
   * Replaces the catalog the decoder consults for tables it has not described yet (e.g. after
   * reading the catalog again at a reconnect). Tables already described keep their shape.
   */
  auto set_catalog(relation_catalog catalog) noexcept -> void { catalog_ = std::move(catalog); }

  /**
   * Starts a new replication session (after a reconnect): leaves any transaction in progress and
   * describes every table again before its next change, as pgoutput does in a new session. The
   * shapes and synthetic OIDs are kept, so a table that did not change is described identically.
   * Never throws.
   */
  auto reset() noexcept -> void;

  /// True between a Begin and its Commit.
  [[nodiscard]] auto in_transaction() const noexcept -> bool { return in_transaction_; }

  /// The options given at construction.
  [[nodiscard]] auto options() const noexcept -> const wal2json_options& { return options_; }

  /// The catalog in use.
  [[nodiscard]] auto catalog() const noexcept -> const relation_catalog& { return catalog_; }

  /// The last description sent for `schema.table`, or null if none was. Valid until the next
  /// translate() or set_catalog().
  [[nodiscard]] auto find_relation(std::string_view schema, std::string_view table) const -> const relation_info*;

 private:
  // One value as wal2json printed it.
  struct json_value {
    // `json_null`, not `null`: that would shadow replicant::null of <replicant/model/value.hpp>.
    enum class kind : std::uint8_t { json_null, string, number, yes, no };
    kind type = kind::json_null;
    std::string_view text{};  // the unescaped string, or the number's literal
  };
  // One element of "columns" or "identity" (or "pk", which has no value).
  struct json_column {
    std::string_view name{};
    std::string_view type_name{};
    std::uint32_t type_oid = 0;
    json_value value{};
  };
  // Everything one wal2json object may carry; views into the parser or the input buffer.
  struct document {
    char action = 0;
    std::optional<std::uint32_t> xid{};
    std::optional<std::string_view> timestamp{};
    std::optional<std::string_view> lsn{};
    std::optional<std::string_view> next_lsn{};
    std::optional<std::string_view> schema{};
    std::optional<std::string_view> table{};
    bool has_columns = false;
    bool has_identity = false;
    bool has_pk = false;
    std::vector<json_column> columns{};
    std::vector<json_column> identity{};
    std::vector<json_column> pk{};
    std::optional<bool> transactional{};
    std::optional<std::string_view> prefix{};
    std::optional<std::string_view> content{};
  };
  struct table_state {
    std::uint32_t oid = 0;
    std::optional<relation_info> shape{};
    bool described = false;
  };

  [[nodiscard]] auto build_start_options(bool numeric_as_string) const -> result<std::string>;
  [[nodiscard]] auto translate_payload(std::span<const std::byte> payload) -> std::error_code;
  [[nodiscard]] auto parse(std::span<const std::byte> payload) -> std::error_code;
  [[nodiscard]] auto parse_columns(simdjson::ondemand::value& v, std::vector<json_column>& out, bool with_values)
      -> std::error_code;
  [[nodiscard]] static auto parse_value(simdjson::ondemand::value& v, json_value& out) -> std::error_code;
  [[nodiscard]] auto transaction_boundary() -> std::error_code;
  [[nodiscard]] auto row_change() -> std::error_code;
  [[nodiscard]] auto truncation() -> std::error_code;
  [[nodiscard]] auto message() -> std::error_code;
  [[nodiscard]] auto table_for(std::string_view schema, std::string_view table) -> table_state&;
  [[nodiscard]] auto fits(const relation_info& shape) const -> bool;
  [[nodiscard]] auto read_catalog(const query_function& query, relation_catalog& out) const -> result<void>;
  [[nodiscard]] auto check_tables(const relation_catalog& catalog) const -> std::optional<halt>;
  [[nodiscard]] auto build_shape(const table_state& state) const -> relation_info;
  [[nodiscard]] auto write_value(const json_value& v, std::uint32_t type_oid) -> bool;

  wal2json_options options_;
  relation_catalog catalog_;
  bool in_transaction_ = false;
  lsn final_lsn_{};  // the commit LSN the open transaction's Begin announced
  std::unordered_map<std::string, table_state> tables_{};
  std::uint32_t next_synthetic_oid_ = 0xFFFF'FFFFU;
  simdjson::ondemand::parser parser_{};
  std::vector<char> input_{};  // the payload plus simdjson's padding
  document doc_{};
  std::string key_{};  // scratch for table lookups
  detail::pgoutput_writer out_{};
};

}  // namespace replicant

#include <replicant/decoder/impl/wal2json.hpp>

#endif  // REPLICANT_DECODER_WAL2JSON_HPP
