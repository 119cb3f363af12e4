// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_SCHEMA_CHANGE_HPP
#define REPLICANT_MODEL_SCHEMA_CHANGE_HPP

/// @file
/// Classification of a table's shape change between two descriptions of the same relation:
/// additive changes (new columns, widened types) are applied automatically, destructive ones halt
/// the pipeline fail-closed unless the sink's `handle_schema_change` accepts them.

#include <replicant/core/detail/config.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/type_widening.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace replicant {

/**
 * How a relation's new description differs from the previous one.
 *
 * The classes are chosen for a sink that mirrors rows by column name: an added column or a widened
 * type cannot make an existing row wrong, while anything else can make rows incomplete,
 * misattributed or rewritten.
 */
enum class schema_change_kind : std::uint8_t {
  /// Identical shape. pgoutput re-describes relations routinely (after any relcache invalidation,
  /// a TRUNCATE, a new session), so this is the common case and carries no news.
  none,
  /// Only new columns appeared, or columns' types widened (see `column_change_kind::type_widened`).
  additive,
  /// A column disappeared, changed type or type modifier other than by widening, or changed key
  /// membership; the replica identity changed, or the table was renamed or moved to another schema.
  destructive,
};

/// What happened to one column (or, for the relation-level kinds, to the table itself).
enum class column_change_kind : std::uint8_t {
  /// The column is new. Additive.
  added,
  /// The column is gone (dropped, renamed away, or removed from the publication's column list).
  dropped,
  /// The column's type OID changed, other than by widening.
  type_changed,
  /// The column's type modifier changed, other than by widening (e.g. `varchar(20)` to `varchar(10)`).
  type_modifier_changed,
  /// The column's type or modifier widened: every old value fits the new type and reads the same
  /// (`int4` to `int8`, `varchar(10)` to `varchar(20)` or `text`, `numeric(10,2)` to
  /// `numeric(12,2)`; see `replicant::widens`). Additive.
  type_widened,
  /// The column joined or left the replica identity key.
  key_changed,
  /// The table's replica identity setting changed (relation level: the column name is empty).
  replica_identity_changed,
  /// The table's schema or name changed (relation level: the column name is empty).
  relation_renamed,
};

/// Stable snake_case names, e.g. `"additive"`. Never throws.
[[nodiscard]] constexpr auto to_string(schema_change_kind kind) noexcept -> std::string_view {
  switch (kind) {
    case schema_change_kind::none: return "none";
    case schema_change_kind::additive: return "additive";
    case schema_change_kind::destructive: return "destructive";
  }
  return "unknown";
}

/// Stable snake_case names, e.g. `"type_changed"`. Never throws.
[[nodiscard]] constexpr auto to_string(column_change_kind kind) noexcept -> std::string_view {
  switch (kind) {
    case column_change_kind::added: return "added";
    case column_change_kind::dropped: return "dropped";
    case column_change_kind::type_changed: return "type_changed";
    case column_change_kind::type_modifier_changed: return "type_modifier_changed";
    case column_change_kind::type_widened: return "type_widened";
    case column_change_kind::key_changed: return "key_changed";
    case column_change_kind::replica_identity_changed: return "replica_identity_changed";
    case column_change_kind::relation_renamed: return "relation_renamed";
  }
  return "unknown";
}

/// Whether a difference of kind @p kind leaves every existing row as it was (`added`,
/// `type_widened`): a schema change with only such differences is additive. Never throws.
[[nodiscard]] constexpr auto is_additive(column_change_kind kind) noexcept -> bool {
  return kind == column_change_kind::added || kind == column_change_kind::type_widened;
}

/// One difference, named by column. Column names are identifiers, never row values.
struct column_change {
  /// What changed.
  column_change_kind kind = column_change_kind::added;
  /// The column's name; empty for the relation-level kinds.
  std::string column{};

  /// Member-wise equality.
  friend auto operator==(const column_change&, const column_change&) -> bool = default;
};

/**
 * The classified difference between two descriptions of one relation.
 *
 * Holds identifiers only (schema, table and column names) and never a value, so it may be shown
 * to the sink's `handle_schema_change` hook and named in telemetry.
 *
 * @par Thread safety
 * A value type.
 */
struct schema_change {
  /// The relation's OID on the publishing server.
  std::uint32_t relation_oid = 0;
  /// Schema of the relation, as of the new description.
  std::string schema{};
  /// Table name, as of the new description.
  std::string table{};
  /// The overall class: destructive if any listed change is destructive.
  schema_change_kind kind = schema_change_kind::none;
  /// Every difference found: relation-level ones first, then the old columns in their order,
  /// then added columns in their new order. Empty exactly when `kind` is `none`.
  std::vector<column_change> changes{};

  /// Member-wise equality.
  friend auto operator==(const schema_change&, const schema_change&) -> bool = default;
};

/// Whether @p change widened the type of at least one column (a `type_widened` difference): what
/// a sink mirroring the table into typed columns must follow. Never throws.
[[nodiscard]] REPLICANT_DECL auto widens_a_type(const schema_change& change) noexcept -> bool;

/**
 * Compares two descriptions of the same relation and classifies the difference.
 *
 * Columns are matched by **name**, not position: a column whose name disappears is `dropped` and
 * a new name is `added`, so a rename shows up as both (and is therefore destructive). Column order
 * alone is not a change, because every row is decoded with the description current at the time.
 * A column whose type changed is `type_widened` when `replicant::widens` says the new type holds
 * every old value as it was, and `type_changed` / `type_modifier_changed` otherwise.
 *
 * @param before the description in use until now.
 * @param after the new description of the same relation OID.
 * @return the classification; `kind == none` and no changes for an identical re-send.
 * @throws std::bad_alloc only.
 * @par Example
 * @code
 * auto change = replicant::classify_schema_change(old_rel, new_rel);
 * if (change.kind == replicant::schema_change_kind::destructive) halt(change);
 * @endcode
 */
[[nodiscard]] REPLICANT_DECL auto classify_schema_change(const relation_info& before, const relation_info& after)
    -> schema_change;

}  // namespace replicant

// The classification's bodies: in every unit header-only, in the one unit that includes
// <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/model/impl/schema_change.hpp>
#endif

#endif  // REPLICANT_MODEL_SCHEMA_CHANGE_HPP
