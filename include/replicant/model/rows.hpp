// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_ROWS_HPP
#define REPLICANT_MODEL_ROWS_HPP

/// @file
/// Typed views: `replicant::rows<T>(txn, table)` yields each new row of one table mapped onto the
/// struct `T` (a `mapping_result<T>`), and `replicant::deleted_rows<K>(txn, table)` each deleted
/// row's old key mapped onto `K`. Both are views of std::ranges and of range-v3 alike, over a
/// transaction's changes, a snapshot batch, or any view of changes. Next to the mapping header,
/// because they map (Boost.Hana stays out of the headers that do not).

#include <replicant/core/identifier.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/mapping.hpp>
#include <replicant/model/transaction.hpp>

#include <range/v3/range/access.hpp>
#include <range/v3/range/concepts.hpp>
#include <range/v3/range/primitives.hpp>
#include <range/v3/range/traits.hpp>
#include <range/v3/range_fwd.hpp>

#include <concepts>
#include <cstddef>
#include <iterator>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>

namespace replicant {

/// Which rows of its table a @ref replicant::table_rows_view "table_rows_view" yields, and from which
/// side of the change.
enum class row_side {
  /// The new row (`change::record()`) of every insert, update and snapshot row: what the table
  /// holds after the change.
  current,
  /// The old row (`change::old()`) of every delete: the replica-identity key, or the whole row
  /// under `REPLICA IDENTITY FULL`.
  deleted,
};

// The typed views are built on range-v3's concepts and accessors, not std::ranges': both see the
// same ranges, and range-v3's also compile where the standard library's do not (Clang 14 with
// libstdc++ 12 cannot instantiate std::ranges::begin of any range).
namespace detail {

/// A view of changes a typed view can read: a semiregular view (as range-v3 asks) whose elements
/// are `const change&`, with begin() and end() of one type, also when const.
template <class V>
concept change_view =
    ::ranges::view_<V> && std::semiregular<V> && ::ranges::common_range<const V> && ::ranges::input_range<const V> &&
    std::same_as<::ranges::range_reference_t<const V>, const change&>;

/// What a typed view reads from @p source: a transaction's changes(), a view of changes as it is
/// (a change_range, a snapshot_batch), or a contiguous range of changes through a span.
template <class Source>
auto changes_of(Source&& source) noexcept {
  using plain = std::remove_cvref_t<Source>;
  if constexpr (std::same_as<plain, transaction>) {
    return source.changes();
  } else if constexpr (change_view<plain>) {
    return plain{source};
  } else {
    return std::span<const change>{::ranges::data(source), ::ranges::size(source)};
  }
}

/// What a typed view accepts: a view of changes, or an lvalue transaction or contiguous range of
/// changes (an rvalue one would die before the view is iterated).
template <class Source>
concept change_source =
    change_view<std::remove_cvref_t<Source>> ||
    (std::is_lvalue_reference_v<Source> && (std::same_as<std::remove_cvref_t<Source>, transaction> ||
                                            (::ranges::contiguous_range<Source> && ::ranges::sized_range<Source> &&
                                             std::same_as<std::remove_cv_t<::ranges::range_value_t<Source>>, change>)));

}  // namespace detail

/**
 * The rows of one table in a range of changes, each mapped onto the struct @p T (adapted with
 * Boost.Hana, see replicant/model/mapping.hpp): an input view yielding `mapping_result<T>` by value,
 * forward when the changes it reads are (a snapshot batch). Made by @ref rows and
 * @ref deleted_rows.
 *
 * It skips the changes of other tables and of other kinds (see @ref row_side), and truncates: a
 * sink that mirrors a table also handles `change_op::truncate`, which neither view yields. A row
 * that does not map gives its @ref mapping_error, never a skip: the sink decides.
 *
 * Over a spilled transaction it reads the changes as it goes, like `transaction::changes()`: a
 * failed read ends it early, and `transaction::read_error()` says why; check it before committing.
 *
 * @tparam T the struct each row maps onto.
 * @tparam V the view of changes it reads.
 * @tparam Side which rows it yields, and from which side of the change.
 *
 * @par Thread safety
 * As the view it reads: a view over a spilled transaction must not be iterated from two threads.
 */
template <class T, detail::change_view V, row_side Side>
class table_rows_view : public std::ranges::view_base, public ::ranges::view_base {
 public:
  /// An iterator over the rows: semiregular, pointing at its view.
  class iterator {
   public:
    /// Iterator traits: yields a mapping result by value; forward when the changes are.
    ///@{
    using value_type = mapping_result<T>;
    using reference = mapping_result<T>;
    using difference_type = std::ptrdiff_t;
    using iterator_concept =
        std::conditional_t<::ranges::forward_range<const V>, std::forward_iterator_tag, std::input_iterator_tag>;
    using iterator_category = std::input_iterator_tag;  // its reference is no reference: no more for C++17
    ///@}

    /// A singular iterator.
    iterator() = default;
    /// The row mapped onto @p T, or why it does not map.
    [[nodiscard]] auto operator*() const -> mapping_result<T> {
      const change& c = *at_;
      return Side == row_side::current ? c.template as<T>() : c.template old_as<T>();
    }
    /// Moves to the next row of the table. @throws std::bad_alloc only (reading spilled changes).
    auto operator++() -> iterator& {
      ++at_;
      skip();
      return *this;
    }
    /// Moves to the next row: returns the iterator before, when the view is forward.
    auto operator++(int) {
      if constexpr (::ranges::forward_range<const V>) {
        auto before = *this;
        ++*this;
        return before;
      } else {
        ++*this;
      }
    }
    /// Equal when at the same change.
    [[nodiscard]] friend auto operator==(const iterator& a, const iterator& b) -> bool { return a.at_ == b.at_; }

   private:
    friend class table_rows_view;
    using base_iterator = ::ranges::iterator_t<const V>;
    iterator(const table_rows_view* view, base_iterator at) : view_(view), at_(std::move(at)) { skip(); }

    // Moves on to the next change this view yields (or the end).
    auto skip() -> void {
      const auto end = ::ranges::end(view_->base_);
      while (at_ != end && !view_->yields(*at_)) ++at_;
    }

    const table_rows_view* view_ = nullptr;
    base_iterator at_{};
  };

  /// Nothing (what a default-constructed view is).
  table_rows_view() = default;
  /// The rows of @p table in @p base. The names @p table views must outlive the view.
  table_rows_view(V base, table_ref table) : base_(std::move(base)), table_(table) {}

  /// The first row of the table (reading spilled changes up to it).
  [[nodiscard]] auto begin() const -> iterator { return iterator{this, ::ranges::begin(base_)}; }
  /// Past the last change.
  [[nodiscard]] auto end() const -> iterator { return iterator{this, ::ranges::end(base_)}; }
  /// The table whose rows it yields.
  [[nodiscard]] auto table() const noexcept -> table_ref { return table_; }
  /// The changes it reads.
  [[nodiscard]] auto base() const -> const V& { return base_; }

 private:
  // Whether change c is one of the rows this view yields.
  [[nodiscard]] auto yields(const change& c) const noexcept -> bool {
    const relation_info& r = c.relation();
    if (r.table != table_.name || r.schema != table_.schema) return false;
    switch (c.op()) {
      case change_op::insert:
      case change_op::update:
      case change_op::snapshot: return Side == row_side::current;
      case change_op::delete_: return Side == row_side::deleted;
      case change_op::truncate: return false;
    }
    return false;
  }

  V base_{};
  table_ref table_{{}, {}};
};

/**
 * The new rows of @p table among @p source's changes (inserts, updates and snapshot rows, in
 * order), each mapped onto @p T: a view yielding `mapping_result<T>`.
 *
 * @p source is a `const transaction&` (its changes(), spilled or not), a snapshot batch or another
 * view of changes (copied: a view is cheap to copy), or a contiguous range of changes (viewed:
 * it must outlive the view). @p table names a table as the relation does (`relation_info::schema`
 * and `relation_info::table`); the strings it views must outlive the view.
 *
 * @par Example
 * @code
 * struct order { BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::string_view, status)); };
 * constexpr replicant::table_ref orders{"public", "orders"};
 *
 * auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
 *   for (const auto& o : replicant::rows<order>(txn, orders) | std::views::filter(&is_paid)) {
 *     if (!o) return replicant::unexpected(o.error().code);
 *     upsert(*o);
 *   }
 *   for (const auto& key : replicant::deleted_rows<order_key>(txn, orders)) { ... }
 *   if (auto ec = txn.read_error()) return replicant::unexpected(ec);  // spilled, and unreadable
 *   return txn.commit_lsn();
 * }
 * @endcode
 *
 * @throws std::bad_alloc only (when iterated).
 * @see deleted_rows, as, change::as
 */
template <class T, detail::change_source Source>
[[nodiscard]] auto rows(Source&& source, table_ref table)
    -> table_rows_view<T, decltype(detail::changes_of(std::forward<Source>(source))), row_side::current> {
  return {detail::changes_of(std::forward<Source>(source)), table};
}

/**
 * The deleted rows of @p table among @p source's changes, each old key (the replica identity; the
 * whole old row under `REPLICA IDENTITY FULL`) mapped onto @p K: a view yielding
 * `mapping_result<K>`. @p K names only columns the old key carries, or its mapping fails with
 * `errc::column_missing`. Sources and lifetimes as for @ref rows.
 *
 * @throws std::bad_alloc only (when iterated).
 * @see rows, change::old_as
 */
template <class K, detail::change_source Source>
[[nodiscard]] auto deleted_rows(Source&& source, table_ref table)
    -> table_rows_view<K, decltype(detail::changes_of(std::forward<Source>(source))), row_side::deleted> {
  return {detail::changes_of(std::forward<Source>(source)), table};
}

}  // namespace replicant

#endif  // REPLICANT_MODEL_ROWS_HPP
