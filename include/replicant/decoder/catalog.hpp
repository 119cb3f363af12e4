// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_CATALOG_HPP
#define REPLICANT_DECODER_CATALOG_HPP

/// @file
/// replicant::relation_catalog: table shapes read from the server's catalog, for the decoders that
/// translate `wal2json` and `pglogical_output` into pgoutput. Those plugins describe tables less
/// completely than pgoutput's Relation message does (pglogical sends no column types at all,
/// wal2json no replica identity and no column an UPDATE left unchanged), so a decoder seeded with
/// the catalog can describe each table exactly as pgoutput would.

#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/detail/pgoutput_writer.hpp>
#include <replicant/model/relation.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace replicant {

/**
 * The shapes of a set of tables as the server's catalog describes them now: OID, schema, name,
 * replica identity, and every live column with its type, type modifier and key flag, exactly the
 * fields of a pgoutput Relation message.
 *
 * Filled either from the result of one of the two catalog queries (query_for_tables() for wal2json,
 * query_for_replication_sets() for pglogical), row by row with add_row(), or directly with add().
 * The catalog describes the tables *now*, which may be later than the WAL being decoded: the
 * decoders therefore use it only for what their plugin does not say (types, typmods, key flags,
 * columns an UPDATE left out), and always follow the column list the plugin sends.
 *
 * @par Example
 * @code
 * auto sql = replicant::relation_catalog::query_for_tables(tables);   // run it on an ordinary connection
 * replicant::relation_catalog catalog;
 * for (int r = 0; r < result.rows(); ++r) {
 *   std::array<std::string_view, replicant::relation_catalog::query_columns> row;
 *   for (int c = 0; c < 8; ++c) row[c] = result.get(r, c);
 *   if (auto ok = catalog.add_row(row); !ok) return ok.error();
 * }
 * replicant::wal2json_decoder decoder{options, std::move(catalog)};
 * @endcode
 *
 * @par Thread safety
 * A value type: distinct objects are safe, shared objects are safe to read.
 */
class relation_catalog {
 public:
  /// The number of columns in a row of either query: `oid`, `schema`, `table`, `relreplident`,
  /// `attname`, `atttypid`, `atttypmod`, `is_key` (as text: digits, names, one letter, `t`/`f`).
  static constexpr std::size_t query_columns = 8;

  /**
   * The SQL that describes @p tables: one row per live column, in column order, tables by OID.
   *
   * @param tables schema-qualified table names; each part must pass identifier::validate.
   * @return the query, or the first part's `identifier_error`, or `errc::invalid_options` when
   *   @p tables is empty. Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] static auto query_for_tables(std::span<const table_name> tables) -> result<std::string>;

  /**
   * The SQL that describes every table of the pglogical replication sets @p sets on the local
   * pglogical node (`pglogical.replication_set_table`), with the same columns as query_for_tables().
   *
   * @param sets replication set names; each must pass identifier::validate.
   * @return the query, or the first name's `identifier_error`, or `errc::invalid_options` when
   *   @p sets is empty. Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] static auto query_for_replication_sets(std::span<const std::string> sets) -> result<std::string>;

  /**
   * Adds one row of a catalog query's result. A row for the same OID as the previous row adds a
   * column to that table; rows of one table must be consecutive and in column order, as the
   * queries return them.
   *
   * @return nothing, or `errc::decode_failure` for a row of the wrong width, a non-numeric OID,
   *   type or modifier, an unknown replica identity letter, a key flag other than `t`/`f`, or a
   *   name with a NUL byte; the catalog is unchanged then. Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto add_row(std::span<const std::string_view> row) -> result<void>;

  /**
   * Adds (or replaces, by OID) a whole description.
   *
   * @return nothing, or `errc::invalid_options` for a description no table can have (an empty
   *   schema, table or column name, a name with a NUL byte, two columns of one name, more columns
   *   than PostgreSQL allows), which the decoders could not describe to the assembler. Value-free.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto add(relation_info relation) -> result<void>;

  /// The description of the table with OID @p oid, or null. Never throws.
  [[nodiscard]] auto find(std::uint32_t oid) const noexcept -> const relation_info* {
    for (const relation_info& r : relations_) {
      if (r.oid == oid) return &r;
    }
    return nullptr;
  }

  /// The description of `schema.table`, or null. Never throws.
  [[nodiscard]] auto find(std::string_view schema, std::string_view table) const noexcept -> const relation_info* {
    for (const relation_info& r : relations_) {
      if (r.schema == schema && r.table == table) return &r;
    }
    return nullptr;
  }

  /// Every description, in the order added. Never throws.
  [[nodiscard]] auto relations() const noexcept -> std::span<const relation_info> { return relations_; }

  /// True when nothing was added. Never throws.
  [[nodiscard]] auto empty() const noexcept -> bool { return relations_.empty(); }

 private:
  std::vector<relation_info> relations_;
};

namespace detail {

// The select list and joins shared by both queries; `%SELECTOR%` is replaced by a subquery that
// yields the OIDs of the wanted tables. The key flag follows pgoutput's rule (proto.c,
// logicalrep_write_attrs): every column under FULL, otherwise the columns of the identity index,
// which is the primary key under DEFAULT.
inline constexpr std::string_view catalog_query_head =
    "SELECT c.oid, n.nspname, c.relname, c.relreplident, a.attname, a.atttypid, a.atttypmod,"
    " CASE c.relreplident"
    " WHEN 'f' THEN true"
    " WHEN 'd' THEN EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND i.indisprimary"
    " AND a.attnum = ANY (i.indkey))"
    " WHEN 'i' THEN EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND i.indisreplident"
    " AND a.attnum = ANY (i.indkey))"
    " ELSE false END"
    " FROM pg_catalog.pg_class c"
    " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    " JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid"
    " WHERE a.attnum > 0 AND NOT a.attisdropped AND c.oid IN (";
inline constexpr std::string_view catalog_query_tail = ") ORDER BY c.oid, a.attnum";

template <class Int>
[[nodiscard]] auto parse_decimal(std::string_view text, Int& out) noexcept -> bool {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

}  // namespace detail

inline auto relation_catalog::query_for_tables(std::span<const table_name> tables) -> result<std::string> {
  if (tables.empty()) return fail(errc::invalid_options);
  std::string sql{detail::catalog_query_head};
  sql +=
      "SELECT c2.oid FROM pg_catalog.pg_class c2 JOIN pg_catalog.pg_namespace n2 ON n2.oid = c2.relnamespace"
      " WHERE (n2.nspname, c2.relname) IN (";
  bool first = true;
  for (const table_name& t : tables) {
    for (const std::string* part : {&t.schema, &t.name}) {
      if (auto ok = identifier::validate(*part); !ok) return unexpected(ok.error());
    }
    // Validated names hold no quote or backslash, so quote_literal cannot refuse them.
    sql += first ? "(" : ", (";
    sql += quote_literal(t.schema).value();
    sql += ", ";
    sql += quote_literal(t.name).value();
    sql += ")";
    first = false;
  }
  sql += ")";
  sql += detail::catalog_query_tail;
  return sql;
}

inline auto relation_catalog::query_for_replication_sets(std::span<const std::string> sets) -> result<std::string> {
  if (sets.empty()) return fail(errc::invalid_options);
  std::string sql{detail::catalog_query_head};
  // The sets of the local node only, as pglogical's own output plugin resolves them
  // (get_replication_sets with the local node's id).
  sql +=
      "SELECT r.set_reloid FROM pglogical.replication_set_table r"
      " JOIN pglogical.replication_set s ON s.set_id = r.set_id"
      " JOIN pglogical.local_node l ON l.node_id = s.set_nodeid"
      " WHERE s.set_name IN (";
  bool first = true;
  for (const std::string& set : sets) {
    if (auto ok = identifier::validate(set); !ok) return unexpected(ok.error());
    if (!first) sql += ", ";
    sql += quote_literal(set).value();
    first = false;
  }
  sql += ")";
  sql += detail::catalog_query_tail;
  return sql;
}

inline auto relation_catalog::add_row(std::span<const std::string_view> row) -> result<void> {
  if (row.size() != query_columns) return fail(errc::decode_failure);
  std::uint32_t oid = 0;
  std::uint32_t type_oid = 0;
  std::int32_t type_modifier = 0;
  if (!detail::parse_decimal(row[0], oid) || !detail::parse_decimal(row[5], type_oid) ||
      !detail::parse_decimal(row[6], type_modifier)) {
    return fail(errc::decode_failure);
  }
  const std::string_view identity = row[3];
  if (identity.size() != 1 || (identity[0] != 'd' && identity[0] != 'n' && identity[0] != 'f' && identity[0] != 'i')) {
    return fail(errc::decode_failure);
  }
  if (row[7] != "t" && row[7] != "f") return fail(errc::decode_failure);
  for (const std::size_t i : {1U, 2U, 4U}) {
    if (row[i].empty() || row[i].find('\0') != std::string_view::npos) return fail(errc::decode_failure);
  }
  column_info column{std::string{row[4]}, type_oid, type_modifier, row[7] == "t"};
  if (!relations_.empty() && relations_.back().oid == oid) {
    std::vector<column_info>& columns = relations_.back().columns;
    if (columns.size() == detail::max_columns || detail::find_named(columns, column.name) != nullptr) {
      return fail(errc::decode_failure);
    }
    columns.push_back(std::move(column));
    return {};
  }
  relation_info r;
  r.oid = oid;
  r.schema = std::string{row[1]};
  r.table = std::string{row[2]};
  r.identity = static_cast<replica_identity>(identity[0]);
  r.columns.push_back(std::move(column));
  if (!add(std::move(r))) return fail(errc::decode_failure);
  return {};
}

inline auto relation_catalog::add(relation_info relation) -> result<void> {
  const auto bad_name = [](const std::string& name) { return name.empty() || detail::has_nul(name); };
  if (bad_name(relation.schema) || bad_name(relation.table) || relation.columns.size() > detail::max_columns ||
      detail::has_duplicate_names(relation.columns)) {
    return fail(errc::invalid_options);
  }
  for (const column_info& c : relation.columns) {
    if (bad_name(c.name)) return fail(errc::invalid_options);
  }
  for (relation_info& r : relations_) {
    if (r.oid == relation.oid) {
      r = std::move(relation);
      return {};
    }
  }
  relations_.push_back(std::move(relation));
  return {};
}

}  // namespace replicant

#endif  // REPLICANT_DECODER_CATALOG_HPP
