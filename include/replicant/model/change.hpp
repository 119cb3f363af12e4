// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_CHANGE_HPP
#define REPLICANT_MODEL_CHANGE_HPP

/// @file
/// replicant::change: one row change of a committed transaction, and replicant::row, a view of the
/// row's columns that types each value on access. Reference pages: docs/reference/changes.md (the
/// change, its old values, unchanged TOAST) and docs/reference/values.md (fields and values).

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/cast.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/tuple.hpp>
#include <replicant/model/value.hpp>

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
 * One column of a row: its description and its data, typed on request.
 *
 * @par Thread safety
 * A view, valid during the sink callback that received it (see @ref replicant::transaction).
 */
class field {
 public:
  /// A field for @p column holding @p data.
  constexpr field(const column_info& column, tuple_column data) noexcept : column_(&column), data_(data) {}

  /// The column's description (name, type OID, type modifier, key flag).
  [[nodiscard]] constexpr auto column() const noexcept -> const column_info& { return *column_; }
  /// The column's name.
  [[nodiscard]] auto name() const noexcept -> std::string_view { return column_->name; }
  /// True for SQL NULL.
  [[nodiscard]] constexpr auto is_null() const noexcept -> bool { return data_.is_null(); }
  /// True when the server did not send the value because it is TOASTed and unchanged: the stored
  /// value must be left alone. Such a field has no value.
  [[nodiscard]] constexpr auto is_unchanged() const noexcept -> bool { return data_.is_unchanged_toast(); }
  /// The data as received (kind and bytes).
  [[nodiscard]] constexpr auto raw() const noexcept -> tuple_column { return data_; }

  /**
   * The value, typed by the column's type OID (docs/casting.md).
   *
   * @return the value (NULL for SQL NULL), borrowing the received bytes; `errc::decode_failure`
   * for malformed `numeric` or `bytea` text or malformed binary data; `errc::column_unchanged` for
   * an unchanged TOAST column, which has no value. Errors never contain the data.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto value() const -> result<replicant::value> {
    switch (data_.kind) {
      case column_kind::null_value: return replicant::value{};
      case column_kind::unchanged_toast: return fail(errc::column_unchanged);
      case column_kind::text: return cast_text(column_->type_oid, data_.text());
      case column_kind::binary: return cast_binary(column_->type_oid, data_.bytes);
    }
    return fail(errc::decode_failure);
  }

 private:
  const column_info* column_;
  tuple_column data_;
};

/**
 * A row: a relation's columns paired with the values the server sent, in column order.
 *
 * A forward range of @ref field. Nothing is typed until asked for (`field::value()`), so a sink
 * pays only for the columns it reads. Lookups by name are linear in the number of columns.
 *
 * @par Example
 * @code
 * for (const replicant::field f : change.record()) {
 *   if (f.is_unchanged()) continue;             // leave the stored value alone
 *   auto v = f.value();
 *   if (!v) return replicant::unexpected(v.error());
 *   store(f.name(), *v);
 * }
 * @endcode
 *
 * @par Thread safety
 * A view, valid during the sink callback that received it.
 */
class row {
 public:
  /// Iterator over the fields.
  class iterator {
   public:
    /// Iterator traits: a C++20 forward iterator that yields fields by value, so only an input
    /// iterator by the C++17 rules (whose forward iterators must yield references).
    ///@{
    using value_type = field;
    using reference = field;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    ///@}

    /// A singular iterator.
    iterator() = default;
    /// The current field.
    [[nodiscard]] auto operator*() const noexcept -> field { return field{*column_, *data_}; }
    /// Moves to the next field.
    auto operator++() noexcept -> iterator& {
      ++column_;
      ++data_;
      return *this;
    }
    /// Moves to the next field, returning the previous position.
    auto operator++(int) noexcept -> iterator {
      iterator before = *this;
      ++*this;
      return before;
    }
    /// Same position (meaningful for iterators of the same row).
    [[nodiscard]] friend auto operator==(const iterator& a, const iterator& b) noexcept -> bool {
      return a.data_ == b.data_;
    }

   private:
    friend class row;
    iterator(const column_info* column, tuple_data::iterator data) noexcept : column_(column), data_(data) {}
    const column_info* column_ = nullptr;
    tuple_data::iterator data_;
  };

  /// An empty row (a delete's record, an insert's old row).
  constexpr row() noexcept = default;
  /// The row of @p relation holding @p data. @pre `data` has one column per relation column
  /// (decoders check this).
  row(const relation_info& relation, tuple_data data) noexcept : relation_(&relation), data_(data) {}

  /// Number of columns (0 for an empty row).
  [[nodiscard]] constexpr auto size() const noexcept -> std::size_t { return data_.size(); }
  /// True for an empty row.
  [[nodiscard]] constexpr auto empty() const noexcept -> bool { return data_.empty(); }
  /// The first field, in column order.
  [[nodiscard]] auto begin() const noexcept -> iterator {
    return relation_ ? iterator{relation_->columns.data(), data_.begin()} : iterator{};
  }
  /// Past the last field.
  [[nodiscard]] auto end() const noexcept -> iterator {
    return relation_ ? iterator{relation_->columns.data() + data_.size(), data_.end()} : iterator{};
  }

  /// The field of the column named @p name, if the row has one.
  [[nodiscard]] auto find(std::string_view name) const noexcept -> std::optional<field> {
    for (const field f : *this) {
      if (f.name() == name) return f;
    }
    return std::nullopt;
  }

  /// The typed value of the column named @p name: as field::value(), or `errc::column_missing`.
  [[nodiscard]] auto value(std::string_view name) const -> result<replicant::value> {
    const auto f = find(name);
    if (!f) return fail(errc::column_missing);
    return f->value();
  }

  /// The data as received (for a decoder-aware consumer, or to copy the row when spilling).
  [[nodiscard]] constexpr auto raw() const noexcept -> tuple_data { return data_; }

 private:
  const relation_info* relation_ = nullptr;
  tuple_data data_{};
};

struct mapping_error;

/// What mapping a row onto a struct returns: the struct, or why it did not fit (replicant/model/mapping.hpp).
template <class T>
using mapping_result = detail::expected<T, mapping_error>;

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

}  // namespace replicant

#include <replicant/model/mapping.hpp>

#endif  // REPLICANT_MODEL_CHANGE_HPP
