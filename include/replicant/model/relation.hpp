// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_RELATION_HPP
#define REPLICANT_MODEL_RELATION_HPP

/// @file
/// What the server tells a consumer about the shape of a published table (replicant::relation_info)
/// and about a non-built-in column type (replicant::type_info). Decoders build these from the
/// plugin's schema messages (pgoutput's Relation 'R' and Type 'Y') and own their strings, so a
/// description outlives the network buffer it came from. Reference page: docs/reference/relations.md.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace replicant {

/**
 * A table's `REPLICA IDENTITY`: which old values UPDATE and DELETE carry (`pg_class.relreplident`).
 *
 * The enumerator values are the catalog's letters, which are also the wire bytes.
 * @see https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-REPLICA-IDENTITY
 */
enum class replica_identity : char {
  /// `DEFAULT` ('d'): the primary key's columns, if the table has a primary key.
  default_key = 'd',
  /// `NOTHING` ('n'): no old values at all.
  nothing = 'n',
  /// `FULL` ('f'): the whole old row; every column is flagged as part of the key.
  full = 'f',
  /// `USING INDEX` ('i'): the columns of a chosen unique index.
  index = 'i',
};

/// The SQL spelling of @p identity: `"default"`, `"nothing"`, `"full"` or `"index"`. Never throws.
[[nodiscard]] constexpr auto to_string(replica_identity identity) noexcept -> std::string_view {
  switch (identity) {
    case replica_identity::default_key: return "default";
    case replica_identity::nothing: return "nothing";
    case replica_identity::full: return "full";
    case replica_identity::index: return "index";
  }
  return "unknown";
}

/**
 * One published column, in the order the plugin sends its values.
 *
 * @par Thread safety
 * A value type.
 */
struct column_info {
  /// The column's name (an identifier, never a value).
  std::string name{};
  /// `pg_attribute.atttypid`. For a domain this is the domain's OID, not its base type's.
  std::uint32_t type_oid = 0;
  /// `pg_attribute.atttypmod`, e.g. `varchar(n)` length + 4; -1 when the type has none.
  std::int32_t type_modifier = -1;
  /// Part of the replica identity (every column is, under `REPLICA IDENTITY FULL`).
  bool key = false;

  /// Member-wise equality.
  friend auto operator==(const column_info&, const column_info&) -> bool = default;
};

/**
 * A published table as described by the server: name, replica identity and published columns.
 *
 * Decoders keep one per relation OID and replace it (never edit it in place) when the server
 * describes the relation again, so a `const relation_info&` obtained earlier keeps describing the
 * rows that were decoded with it.
 *
 * @par Thread safety
 * A value type; a shared `const` instance may be read from any thread.
 */
struct relation_info {
  /// The table's OID on the publishing server (`pg_class.oid`): the key change messages use.
  std::uint32_t oid = 0;
  /// Schema name. pgoutput abbreviates `pg_catalog` to an empty string on the wire; decoders
  /// spell it out, so this is never empty for a described relation.
  std::string schema{};
  /// Table name.
  std::string table{};
  /// The table's replica identity setting.
  replica_identity identity = replica_identity::default_key;
  /// Published columns in wire order (dropped columns and columns outside the publication's
  /// column list are not included).
  std::vector<column_info> columns{};

  /// The position of the column named @p name, if there is one. Never throws.
  [[nodiscard]] auto column_index(std::string_view name) const noexcept -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (columns[i].name == name) return i;
    }
    return std::nullopt;
  }

  /// Member-wise equality: same OID, names, identity, and columns in the same order.
  friend auto operator==(const relation_info&, const relation_info&) -> bool = default;
};

/**
 * A column type the server described because it is not a built-in type (OID >= 10000).
 *
 * For a domain, `oid` is the domain's OID while `schema` and `name` are its **base** type's
 * (PROTOCOL.md §7 gotcha #15): a value of the domain is cast like a value of `schema.name`.
 */
struct type_info {
  /// The column's `atttypid` (the domain's OID for a domain).
  std::uint32_t oid = 0;
  /// Schema of the base type (`pg_catalog` spelled out).
  std::string schema{};
  /// Name of the base type.
  std::string name{};

  /// Member-wise equality.
  friend auto operator==(const type_info&, const type_info&) -> bool = default;
};

namespace detail {

// One of the `relreplident` values a Relation message or the catalog may carry (default, nothing,
// full, index).
[[nodiscard]] inline auto is_replica_identity(std::uint8_t byte) noexcept -> bool {
  return byte == 'd' || byte == 'n' || byte == 'f' || byte == 'i';
}

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_MODEL_RELATION_HPP
