// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PG_MIRROR_STATEMENTS_HPP
#define REPLICANT_EXAMPLES_PG_MIRROR_STATEMENTS_HPP

/// @file
/// The SQL that applies one change to the target: an upsert, an update or a delete by key (or, for
/// a table without a key, by its whole old row), with every value passed as a text parameter and
/// every name quoted.

#include "mirror_error.hpp"
#include "target.hpp"

#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/relation.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The position of @p f among the columns of @p r, the relation of the row it came from.
[[nodiscard]] inline auto position(const relation_info& r, const field& f) noexcept -> std::size_t {
  return static_cast<std::size_t>(&f.column() - r.columns.data());
}

}  // namespace detail

/**
 * How the mirror finds a published table's row in the target: by the columns of a key, or, for a
 * `REPLICA IDENTITY FULL` table without a primary key, by the whole old row.
 *
 * @par Thread safety
 * A value type.
 */
class row_identity {
 public:
  /**
   * The identity of @p r's rows. `DEFAULT` (with a primary key) and `USING INDEX`: the columns the
   * server flags as key. `FULL`, which flags every column: the columns named in @p primary_key,
   * the target table's primary key, or the whole row when it is empty, unless @p replays (a
   * transaction applied twice would insert its rows twice, with no key to notice).
   *
   * @return the identity, or `mirror_errc::no_usable_key` (`NOTHING`, no key column, a key column
   *         that is not published, or a keyless table where transactions may be applied again).
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] static auto of(const relation_info& r, const std::vector<std::string>& primary_key, bool replays)
      -> result<row_identity> {
    row_identity id;
    if (r.identity == replica_identity::full) {
      if (primary_key.empty()) {
        if (replays) return fail(mirror_errc::no_usable_key);
        return id;
      }
      id.key_.assign(r.columns.size(), false);
      for (const std::string& name : primary_key) {
        const auto at = r.column_index(name);
        if (!at) return fail(mirror_errc::no_usable_key);
        id.key_[*at] = true;
      }
      return id;
    }
    if (r.identity != replica_identity::default_key && r.identity != replica_identity::index) {
      return fail(mirror_errc::no_usable_key);
    }
    id.key_.reserve(r.columns.size());
    bool any = false;
    for (const auto& c : r.columns) {
      id.key_.push_back(c.key);
      any = any || c.key;
    }
    if (!any) return fail(mirror_errc::no_usable_key);
    return id;
  }

  /// Whether rows are matched by their whole old row (there is no key). Never throws.
  [[nodiscard]] auto whole_row() const noexcept -> bool { return key_.empty(); }
  /// Whether column @p column (a position among the relation's columns) is part of the key.
  /// Never throws.
  [[nodiscard]] auto is_key(std::size_t column) const noexcept -> bool { return column < key_.size() && key_[column]; }

 private:
  std::vector<bool> key_;  // per column; empty: the whole row
};

namespace detail {

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

// ` WHERE "k1" = $n AND "k2" = $m` with the key values of @p key_row (a row of @p r), each name
// prefixed with @p qualifier (e.g. `alias.`) when given.
[[nodiscard]] inline auto append_key_condition(statement& s, const relation_info& r, const row_identity& id,
                                               const row& key_row, std::string_view qualifier = {}) -> result<void> {
  bool first = true;
  for (const field f : key_row) {
    if (!id.is_key(position(r, f))) continue;
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

// ` WHERE (tableoid, ctid) = (SELECT tableoid, ctid FROM t WHERE "c1" IS NOT DISTINCT FROM $n AND
// ... LIMIT 1)`: one row of @p table equal to @p old_row in every column, NULLs included. One, not
// all: identical rows are interchangeable, and the source changed just one of them. The tableoid
// is compared too because ctids repeat across the partitions of a partitioned table.
[[nodiscard]] inline auto append_row_match(statement& s, const std::string& table, const row& old_row) -> result<void> {
  if (old_row.empty()) return fail(mirror_errc::old_value_missing);
  s.sql += " WHERE (tableoid, ctid) = (SELECT tableoid, ctid FROM " + table;
  bool first = true;
  for (const field f : old_row) {
    // The server inlines every TOASTed value of a FULL old row, so this is a stream that breaks
    // that promise. Matching without the column could pick a different row: refuse instead.
    if (f.is_unchanged()) return fail(mirror_errc::old_value_missing);
    auto name = quote_identifier(f.name());
    if (!name) return unexpected(name.error());
    s.sql += first ? " WHERE " : " AND ";
    first = false;
    s.sql += *name + " IS NOT DISTINCT FROM ";
    if (auto v = add_value(s.params, f); !v) return v;
    append_placeholder(s.sql, s.params.size());
  }
  s.sql += " LIMIT 1)";
  return {};
}

}  // namespace detail

/**
 * Whether update @p c moved its row to another key: the server sent an old row (for `DEFAULT` and
 * `USING INDEX` only when the key changed), and under `FULL`, which always sends the whole old
 * row, a key column's text differs between the old and the new row. Never throws.
 */
[[nodiscard]] inline auto moves_key(const change& c, const row_identity& id) noexcept -> bool {
  const row old = c.old();
  if (old.empty()) return false;
  if (c.relation().identity != replica_identity::full) return true;
  auto now = c.record().begin();
  for (const field before : old) {
    const field after = *now;
    ++now;
    if (!id.is_key(detail::position(c.relation(), before)) || after.is_unchanged()) continue;
    if (before.raw().kind != after.raw().kind || before.raw().text() != after.raw().text()) return true;
  }
  return false;
}

/**
 * `INSERT INTO t (c...) VALUES ($1...) ON CONFLICT (key...) DO UPDATE SET c = EXCLUDED.c ...` for
 * the new row of an insert or update: the row ends up as sent whether or not the target had it.
 * Columns the server left out as unchanged TOAST are named nowhere, so their stored values stay.
 * The key is @p id's; a table without one (@ref row_identity::whole_row) gets a plain `INSERT`.
 *
 * @return the statement, or a @ref mirror_errc / @ref replicant::identifier_error. Value-free.
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto upsert(const change& c, const row_identity& id) -> result<statement> {
  const auto& rel = c.relation();
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
    const bool key = id.is_key(detail::position(rel, f));
    if (key && f.is_null()) return fail(mirror_errc::key_value_missing);
    if (auto v = detail::add_value(s.params, f); !v) return unexpected(v.error());
    if (!columns.empty()) {
      columns += ", ";
      values += ", ";
    }
    columns += *name;
    detail::append_placeholder(values, s.params.size());
    std::string& list = key ? keys : updates;
    if (!list.empty()) list += ", ";
    list += *name;
    if (!key) list += " = EXCLUDED." + *name;
  }
  s.sql = "INSERT INTO " + *table + " (" + columns + ") VALUES (" + values + ")";
  if (id.whole_row()) return s;
  if (keys.empty()) return fail(mirror_errc::key_value_missing);
  s.sql += " ON CONFLICT (" + keys + ") DO ";
  s.sql += updates.empty() ? std::string{"NOTHING"} : "UPDATE SET " + updates;
  return s;
}

/**
 * `UPDATE t SET c = $1 ... WHERE key = $n ...`: the sent columns of an update's new row, applied
 * to the row found by @p key_row's key (the old key when the key changed, see moves_key(); else the
 * new row's). Unchanged TOAST columns are left out, and with @p include_key false so are the key
 * columns (they did not change).
 *
 * For a table without a key (@ref row_identity::whole_row), @p key_row is the old row: every sent
 * column is set, on one row equal to the old row in every column (`IS NOT DISTINCT FROM`, so NULLs
 * match), chosen with `WHERE (tableoid, ctid) = (SELECT ... LIMIT 1)`. An old row lacking a value
 * is refused (`mirror_errc::old_value_missing`).
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
[[nodiscard]] inline auto update_by_key(const change& c, const row_identity& id, const row& key_row, bool include_key,
                                        bool unless_key_taken = false) -> result<std::optional<statement>> {
  const auto& rel = c.relation();
  auto table = detail::qualified_name(rel);
  if (!table) return unexpected(table.error());
  statement s;
  // Aliases for the guard; unqualified column names still resolve to the updated table.
  s.sql = "UPDATE " + *table + (unless_key_taken ? " AS replicant_old SET " : " SET ");
  bool any = false;
  for (const field f : c.record()) {
    if (f.is_unchanged() || (id.is_key(detail::position(rel, f)) && !include_key)) continue;
    auto name = quote_identifier(f.name());
    if (!name) return unexpected(name.error());
    if (auto v = detail::add_value(s.params, f); !v) return unexpected(v.error());
    if (any) s.sql += ", ";
    any = true;
    s.sql += *name + " = ";
    detail::append_placeholder(s.sql, s.params.size());
  }
  if (!any) return std::optional<statement>{};
  if (id.whole_row()) {
    if (auto w = detail::append_row_match(s, *table, key_row); !w) return unexpected(w.error());
    return std::optional<statement>{std::move(s)};
  }
  if (auto w = detail::append_key_condition(s, rel, id, key_row); !w) return unexpected(w.error());
  if (unless_key_taken) {
    statement taken;
    taken.params = std::move(s.params);
    taken.sql = " AND NOT EXISTS (SELECT 1 FROM " + *table + " AS replicant_new";
    if (auto w = detail::append_key_condition(taken, rel, id, c.record(), "replicant_new."); !w) {
      return unexpected(w.error());
    }
    // The row being moved is not "another row" (tableoid: ctids repeat across partitions).
    taken.sql += " AND (replicant_new.tableoid, replicant_new.ctid) <> (replicant_old.tableoid, replicant_old.ctid))";
    s.sql += taken.sql;
    s.params = std::move(taken.params);
  }
  return std::optional<statement>{std::move(s)};
}

/**
 * `DELETE FROM t WHERE key = $1 ...` for a delete, by the old key the server sent; for a table
 * without a key, of one row equal to the old row, as update_by_key() finds it.
 * @return the statement; errors as update_by_key(). @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto delete_by_key(const change& c, const row_identity& id) -> result<statement> {
  const auto& rel = c.relation();
  auto table = detail::qualified_name(rel);
  if (!table) return unexpected(table.error());
  statement s;
  s.sql = "DELETE FROM " + *table;
  auto w =
      id.whole_row() ? detail::append_row_match(s, *table, c.old()) : detail::append_key_condition(s, rel, id, c.old());
  if (!w) return unexpected(w.error());
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
