// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_ROW_HPP
#define REPLICANT_MODEL_ROW_HPP

/// @file
/// replicant::row, a view of one row's columns that types each value on access, and
/// replicant::field, one of its columns. Reference page: docs/reference/values.md (fields and
/// values).

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

}  // namespace replicant

#endif  // REPLICANT_MODEL_ROW_HPP
