// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_CHANGE_HPP
#define REPLICANT_MODEL_CHANGE_HPP

/// @file
/// replicant::change: one row change of a committed transaction, its rows (replicant::row,
/// model/row.hpp) mapped onto structs on request (model/mapping.hpp). Reference page:
/// docs/reference/changes.md (the change, its old values, unchanged TOAST).

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/mapping.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/row.hpp>
#include <replicant/model/tuple.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace replicant {

/// What a change did.
enum class change_op : std::uint8_t {
  /// A row was inserted: `record()` is the new row.
  insert,
  /// A row was updated: `record()` is the new row (minus `unchanged()` columns), `old()` the old
  /// key or row when the server sent one.
  update,
  /// A row was deleted: `old()` is its key (or the whole row under `REPLICA IDENTITY FULL`).
  delete_,
  /// The table was truncated: no row; see `truncate_cascade()` and `truncate_restart_identity()`.
  truncate,
  /// A row read by a snapshot: `record()` is the row as of the snapshot.
  snapshot,
};

/// `"insert"`, `"update"`, `"delete"`, `"truncate"` or `"snapshot"`. Never throws.
[[nodiscard]] constexpr auto to_string(change_op op) noexcept -> std::string_view {
  switch (op) {
    case change_op::insert: return "insert";
    case change_op::update: return "update";
    case change_op::delete_: return "delete";
    case change_op::truncate: return "truncate";
    case change_op::snapshot: return "snapshot";
  }
  return "unknown";
}

/**
 * One change of a committed transaction (or one snapshot row).
 *
 * @par Example
 * @code
 * switch (c.op()) {
 *   case replicant::change_op::insert:
 *   case replicant::change_op::update: upsert(c.relation().table, c.record(), c.unchanged()); break;
 *   case replicant::change_op::delete_: remove(c.relation().table, c.old()); break;
 *   default: break;
 * }
 * @endcode
 *
 * @par Thread safety
 * A view, valid during the sink callback that received it: its rows point into the transaction's
 * received bytes. Copy what you keep (`value::own()`).
 */
class change {
 public:
  /// A row change. Used by decoders and the assembler.
  change(change_op op, const relation_info& relation, tuple_data record, old_tuple_kind old_kind = old_tuple_kind::none,
         tuple_data old = {}) noexcept
      : relation_(&relation), record_(record), old_(old), op_(op), old_kind_(old_kind) {}

  /// A truncation of @p relation.
  static auto truncation(const relation_info& relation, bool cascade, bool restart_identity) noexcept -> change {
    change c{change_op::truncate, relation, {}};
    c.cascade_ = cascade;
    c.restart_identity_ = restart_identity;
    return c;
  }

  /// What happened.
  [[nodiscard]] constexpr auto op() const noexcept -> change_op { return op_; }
  /// The table it happened to, as described by the server when the change was made.
  [[nodiscard]] constexpr auto relation() const noexcept -> const relation_info& { return *relation_; }
  /// The new row (insert, update, snapshot); empty for delete and truncate.
  [[nodiscard]] auto record() const noexcept -> row { return record_.empty() ? row{} : row{*relation_, record_}; }
  /// The old key or row (update, delete) when the server sent one; empty otherwise.
  [[nodiscard]] auto old() const noexcept -> row { return old_.empty() ? row{} : row{*relation_, old_}; }
  /// The new row as the server sent it (a TupleData view), for code that stores or forwards changes
  /// without decoding them; empty when there is none.
  [[nodiscard]] constexpr auto record_tuple() const noexcept -> const tuple_data& { return record_; }
  /// The old key or row as the server sent it; empty when there is none.
  [[nodiscard]] constexpr auto old_tuple() const noexcept -> const tuple_data& { return old_; }
  /// Whether `old()` holds the replica-identity key (non-key columns NULL) or the whole old row.
  [[nodiscard]] constexpr auto old_kind() const noexcept -> old_tuple_kind { return old_kind_; }

  /**
   * The names of the columns whose value the server did not send because it is TOASTed and did
   * not change (updates only). Never a value: a sink must leave these columns as they are.
   * Allocates only when there are such columns. @throws std::bad_alloc
   */
  [[nodiscard]] auto unchanged() const -> std::vector<std::string_view> {
    std::vector<std::string_view> names;
    if (record_.unchanged_toast_count() == 0) return names;
    names.reserve(record_.unchanged_toast_count());
    for (const field f : record()) {
      if (f.is_unchanged()) names.push_back(f.name());
    }
    return names;
  }

  /// `TRUNCATE ... CASCADE` (truncate only).
  [[nodiscard]] constexpr auto truncate_cascade() const noexcept -> bool { return cascade_; }
  /// `TRUNCATE ... RESTART IDENTITY` (truncate only).
  [[nodiscard]] constexpr auto truncate_restart_identity() const noexcept -> bool { return restart_identity_; }

  /**
   * The new row mapped onto a struct adapted with Boost.Hana (`BOOST_HANA_DEFINE_STRUCT` or
   * `BOOST_HANA_ADAPT_STRUCT`), member by member, by column name. Defined in
   * replicant/model/mapping.hpp (included below); the member types it accepts are listed there and
   * in docs/casting.md.
   *
   * @return the struct, or a @ref mapping_error naming the member and its column (never a value):
   * `errc::column_missing`, `errc::column_unchanged`, `errc::type_mismatch` or a casting error.
   */
  template <class T>
  [[nodiscard]] auto as() const -> mapping_result<T>;

  /**
   * The old row mapped onto a struct, as as() maps the new one: the replica-identity key of an
   * update or delete (a struct of the key columns), or the whole old row under `REPLICA IDENTITY
   * FULL`. An update that changed no key column carries no old row: every member is then
   * `errc::column_missing`.
   */
  template <class T>
  [[nodiscard]] auto old_as() const -> mapping_result<T>;

 private:
  const relation_info* relation_;
  tuple_data record_;
  tuple_data old_;
  change_op op_;
  old_tuple_kind old_kind_;
  bool cascade_ = false;
  bool restart_identity_ = false;
};

template <class T>
auto change::as() const -> mapping_result<T> {
  return replicant::as<T>(record());
}

template <class T>
auto change::old_as() const -> mapping_result<T> {
  return replicant::as<T>(old());
}

}  // namespace replicant

#endif  // REPLICANT_MODEL_CHANGE_HPP
