// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_STATEMENTS_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_STATEMENTS_HPP

/// @file
/// The SQL that applies one change to the target: an upsert, an update or a delete by key, with
/// every value passed as a text parameter and every name quoted.

#include "mirror_error.hpp"
#include "target.hpp"

#include <replicant/model/change.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/core/result.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace replicant::examples::pg_mirror {

/// One statement and its parameters.
struct statement {
  /// The SQL text, with `$n` placeholders.
  std::string sql;
  /// The values for the placeholders.
  parameters params;
};

namespace detail {

// `"schema"."table"`: the same name in the target as in the source.
[[nodiscard]] inline auto qualified_name(const relation_info& r) -> result<std::string> {
  auto schema = quote_identifier(r.schema);
  if (!schema) return unexpected(schema.error());
  auto table = quote_identifier(r.table);
  if (!table) return unexpected(table.error());
  return *schema + '.' + *table;
}

// The relation must name its row by a key: DEFAULT with a primary key, or USING INDEX. FULL flags
// every column as key, which is no key at all for an upsert (ON CONFLICT needs a unique index).
[[nodiscard]] inline auto check_key(const relation_info& r) -> result<void> {
  if (r.identity != replica_identity::default_key && r.identity != replica_identity::index) {
    return fail(mirror_errc::no_usable_key);
  }
  for (const auto& c : r.columns) {
    if (c.key) return {};
  }
  return fail(mirror_errc::no_usable_key);
}

// Adds a field's value as the next parameter. pgoutput's text form is the type's output function,
// which the same type's input function reads back: the target parses it as the column's own type.
[[nodiscard]] inline auto add_value(parameters& p, const field& f) -> result<void> {
  const auto raw = f.raw();
  if (raw.is_null()) {
    p.add_null();
    return {};
  }
  if (raw.kind != replicant::column_kind::text) return fail(mirror_errc::binary_value);
  p.add(raw.text());
  return {};
}

inline auto append_placeholder(std::string& sql, std::size_t n) -> void {
  sql += '$';
  sql += std::to_string(n);
}

// ` WHERE "k1" = $n AND "k2" = $m` with the key values of @p key_row, each name prefixed with
// @p qualifier (e.g. `alias.`) when given.
[[nodiscard]] inline auto append_key_condition(statement& s, const row& key_row, std::string_view qualifier = {})
    -> result<void> {
  bool first = true;
  for (const field f : key_row) {
    if (!f.column().key) continue;
    if (f.is_null() || f.is_unchanged()) return fail(mirror_errc::key_value_missing);
    auto name = quote_identifier(f.name());
    if (!name) return unexpected(name.error());
    s.sql += first ? " WHERE " : " AND ";
    first = false;
    s.sql += qualifier;
    s.sql += *name;
    s.sql += " = ";
    if (auto v = add_value(s.params, f); !v) return v;
    append_placeholder(s.sql, s.params.size());
  }
  if (first) return fail(mirror_errc::key_value_missing);
  return {};
}

}  // namespace detail

/**
 * `INSERT INTO t (c...) VALUES ($1...) ON CONFLICT (key...) DO UPDATE SET c = EXCLUDED.c ...` for
 * the new row of an insert or update: the row ends up as sent whether or not the target had it.
 * Columns the server left out as unchanged TOAST are named nowhere, so their stored values stay.
 *
 * @return the statement, or a @ref mirror_errc / @ref replicant::identifier_error. Value-free.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto upsert(const change& c) -> result<statement> {
  const auto& rel = c.relation();
  if (auto k = detail::check_key(rel); !k) return unexpected(k.error());
  auto table = detail::qualified_name(rel);
  if (!table) return unexpected(table.error());
  statement s;
  std::string columns;
  std::string values;
  std::string keys;
  std::string updates;
  for (const field f : c.record()) {
    if (f.is_unchanged()) continue;
    auto name = quote_identifier(f.name());
    if (!name) return unexpected(name.error());
    if (f.column().key && f.is_null()) return fail(mirror_errc::key_value_missing);
    if (auto v = detail::add_value(s.params, f); !v) return unexpected(v.error());
    if (!columns.empty()) {
      columns += ", ";
      values += ", ";
    }
    columns += *name;
    detail::append_placeholder(values, s.params.size());
    std::string& list = f.column().key ? keys : updates;
    if (!list.empty()) list += ", ";
    list += *name;
    if (!f.column().key) list += " = EXCLUDED." + *name;
  }
  if (keys.empty()) return fail(mirror_errc::key_value_missing);
  s.sql = "INSERT INTO " + *table + " (" + columns + ") VALUES (" + values + ") ON CONFLICT (" + keys + ") DO ";
  s.sql += updates.empty() ? std::string{"NOTHING"} : "UPDATE SET " + updates;
  return s;
}

/**
 * `UPDATE t SET c = $1 ... WHERE key = $n ...`: the sent columns of an update's new row, applied
 * to the row found by @p key_row's key (the old key when the server sent one, because the key
 * changed; else the new row's). Unchanged TOAST columns are left out, and with @p include_key false
 * so are the key columns (they did not change).
 *
 * With @p unless_key_taken, for a key change applied by a mirror that may see transactions again
 * (the library-owned checkpoint modes), the row moves only if no *other* row holds the new key
 * already: `... AND NOT EXISTS (SELECT 1 FROM t n WHERE n.key = new key AND n is not this row)`. A
 * taken new key means the move was applied before, and the row now at the old key came later:
 * moving it would violate the key. The caller then deals with both keys itself (the mirror's
 * mirror_target::apply() deletes the old key's row and updates the new key's).
 *
 * @return the statement, or an empty result when there is nothing to set; errors as upsert().
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto update_by_key(const change& c, const row& key_row, bool include_key,
                                        bool unless_key_taken = false) -> result<std::optional<statement>> {
  const auto& rel = c.relation();
  if (auto k = detail::check_key(rel); !k) return unexpected(k.error());
  auto table = detail::qualified_name(rel);
  if (!table) return unexpected(table.error());
  statement s;
  // Aliases for the guard; unqualified column names still resolve to the updated table.
  s.sql = "UPDATE " + *table + (unless_key_taken ? " AS replicant_old SET " : " SET ");
  bool any = false;
  for (const field f : c.record()) {
    if (f.is_unchanged() || (f.column().key && !include_key)) continue;
    auto name = quote_identifier(f.name());
    if (!name) return unexpected(name.error());
    if (auto v = detail::add_value(s.params, f); !v) return unexpected(v.error());
    if (any) s.sql += ", ";
    any = true;
    s.sql += *name + " = ";
    detail::append_placeholder(s.sql, s.params.size());
  }
  if (!any) return std::optional<statement>{};
  if (auto w = detail::append_key_condition(s, key_row); !w) return unexpected(w.error());
  if (unless_key_taken) {
    statement taken;
    taken.params = std::move(s.params);
    taken.sql = " AND NOT EXISTS (SELECT 1 FROM " + *table + " AS replicant_new";
    if (auto w = detail::append_key_condition(taken, c.record(), "replicant_new."); !w) return unexpected(w.error());
    // The row being moved is not "another row" (tableoid: ctids repeat across partitions).
    taken.sql += " AND (replicant_new.tableoid, replicant_new.ctid) <> (replicant_old.tableoid, replicant_old.ctid))";
    s.sql += taken.sql;
    s.params = std::move(taken.params);
  }
  return std::optional<statement>{std::move(s)};
}

/**
 * `DELETE FROM t WHERE key = $1 ...` for a delete, by the old key the server sent.
 * @return the statement; errors as upsert(). @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto delete_by_key(const change& c) -> result<statement> {
  const auto& rel = c.relation();
  if (auto k = detail::check_key(rel); !k) return unexpected(k.error());
  auto table = detail::qualified_name(rel);
  if (!table) return unexpected(table.error());
  statement s;
  s.sql = "DELETE FROM " + *table;
  if (auto w = detail::append_key_condition(s, c.old()); !w) return unexpected(w.error());
  return s;
}

/**
 * Consecutive truncations, to be applied as one `TRUNCATE t1, t2, ...`: the server reports one
 * TRUNCATE of several tables as one change per table, and truncating them together keeps foreign
 * keys between them satisfied. `RESTART IDENTITY` when the source used it. `CASCADE` is never used:
 * the source already reports every published table it emptied, and cascading in the target could
 * empty tables that are not mirrored.
 *
 * Keeps the quoted names, not the changes, so it does not rely on a second pass over them.
 *
 * @par Thread safety
 * A value type.
 */
class truncate_batch {
 public:
  /// Adds the table of truncation @p c. @return an identifier error for a name that cannot be
  /// quoted. @throws std::bad_alloc only.
  [[nodiscard]] auto add(const change& c) -> result<void> {
    auto table = detail::qualified_name(c.relation());
    if (!table) return unexpected(table.error());
    tables_ += tables_.empty() ? "TRUNCATE " : ", ";
    tables_ += *table;
    restart_ = restart_ || c.truncate_restart_identity();
    return {};
  }
  /// Whether no table was added since the last take(). Never throws.
  [[nodiscard]] auto empty() const noexcept -> bool { return tables_.empty(); }
  /// The statement for the tables added so far; the batch is empty afterwards.
  /// @throws std::bad_alloc only.
  [[nodiscard]] auto take() -> statement {
    statement s;
    s.sql = std::exchange(tables_, std::string{});
    if (std::exchange(restart_, false)) s.sql += " RESTART IDENTITY";
    return s;
  }

 private:
  std::string tables_;
  bool restart_ = false;
};

}  // namespace replicant::examples::pg_mirror

#endif  // REPLICANT_EXAMPLES_PG_MIRROR_STATEMENTS_HPP
