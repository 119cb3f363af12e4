// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_MAPPING_HPP
#define REPLICANT_MODEL_MAPPING_HPP

/// @file
/// Rows onto structs: `replicant::as<T>(row)` (and `change::as<T>()`, model/change.hpp, through it)
/// fill a struct adapted with Boost.Hana from the row's columns, member by member, matching member
/// names to column names.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/row.hpp>
#include <replicant/model/value.hpp>

#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace replicant {

/**
 * Why a row did not fit a struct: the error, and the names of the struct member and of the column
 * it was read from (names, never values, so the whole of it may be logged).
 *
 * It converts to `std::error_code`, so a sink that returns `result<...>` returns it as it is:
 * `if (!o) return replicant::unexpected(o.error());`. It compares equal to the @ref errc it holds.
 *
 * @par Thread safety
 * `member` views the struct's member name (static storage); `column` the relation's column name,
 * valid while the change is (during the callback). Copy them to keep them longer.
 */
struct mapping_error {
  /// `errc::column_missing`, `errc::column_unchanged`, `errc::type_mismatch`, or a casting error.
  std::error_code code;
  /// The struct member that could not be filled.
  std::string_view member;
  /// The column it was to be filled from (the column of the same name), as the relation names it;
  /// the member's name when the relation has no such column.
  std::string_view column;

  /// The error alone, for a sink's own `result`.
  // NOLINTNEXTLINE(google-explicit-constructor): a mapping error is returned as the sink's error
  operator std::error_code() const noexcept { return code; }  // NOLINT(hicpp-explicit-conversions)

  /// Whether the error is @p e.
  friend auto operator==(const mapping_error& m, errc e) noexcept -> bool { return m.code == e; }

  /// `member <name> (column <name>): <what the error code says>`.
  [[nodiscard]] auto message() const -> std::string {
    std::string out = "member ";
    out.append(member);
    out.append(" (column ");
    out.append(column);
    out.append("): ");
    out.append(code.message());
    return out;
  }

  /// Writes message().
  friend auto operator<<(std::ostream& os, const mapping_error& m) -> std::ostream& { return os << m.message(); }
};

/// What mapping a row onto a struct returns: the struct, or why it did not fit.
template <class T>
using mapping_result = detail::expected<T, mapping_error>;

namespace detail {

template <class T>
inline constexpr bool is_optional_v = false;
template <class T>
inline constexpr bool is_optional_v<std::optional<T>> = true;

template <class T>
inline constexpr bool is_vector_v = false;
template <class T, class A>
inline constexpr bool is_vector_v<std::vector<T, A>> = true;

template <class T>
inline constexpr bool is_value_alternative_v = is_variant_alternative<T, value::variant_type>;

/**
 * A struct member's name as a template argument, so that the diagnostic of a member whose type no
 * column can fill names it. GCC prints it as a string literal,
 * `member_name<boost::hana::string<'i', 'd'>, 3>{"id"}`; Clang 14 prints the characters of an array
 * as numbers, and reads the name from @p Key, the accessor's compile-time string.
 */
template <class Key, std::size_t N>
struct member_name {
  char chars[N];  // NOLINT(*-avoid-c-arrays): GCC prints it as a string literal, std::array not
};

/// The @ref member_name of a Boost.Hana compile-time string (what an accessor's key is).
template <class HanaString>
struct member_name_of;
template <char... C>
struct member_name_of<boost::hana::string<C...>> {
  static constexpr member_name<boost::hana::string<C...>, sizeof...(C) + 1> value{{C..., '\0'}};
};

// False: a member type convert() has no branch for. Its arguments make the compilers name the
// member where the static_assert fails (Clang in the failed requirement, GCC in the instantiation
// of convert() just above the error).
template <auto Member, class T>
inline constexpr bool member_type_supported = false;

// A value as member @p Member (a member_name) of type T; type_mismatch when it does not fit.
template <auto Member, class T>
auto convert(const value& v) -> result<T> {
  if constexpr (std::same_as<T, value>) {
    return v;
  } else if constexpr (is_optional_v<T>) {
    if (v.is_null()) return T{};
    auto inner = convert<Member, typename T::value_type>(v);
    if (!inner) return unexpected(inner.error());
    return T{std::move(*inner)};
  } else {
    if (v.is_null()) return fail(errc::type_mismatch);
    if constexpr (std::same_as<T, bool>) {
      if (const auto* b = v.get_if<bool>()) return *b;
    } else if constexpr (std::integral<T>) {
      if (const auto* i = v.get_if<std::int64_t>()) {
        if (std::in_range<T>(*i)) return static_cast<T>(*i);
      }
    } else if constexpr (std::floating_point<T>) {
      if (const auto* d = v.get_if<double>()) return static_cast<T>(*d);
    } else if constexpr (std::same_as<T, std::string> || std::same_as<T, std::string_view>) {
      // Text-like values only: a number or a timestamp is not silently turned into a string.
      std::string_view chars;
      bool owned = false;
      if (const auto* t = v.get_if<text>()) {
        chars = t->view();
        owned = t->is_owned();
      } else if (const auto* j = v.get_if<json>()) {
        chars = j->view();
        owned = j->is_owned();
      } else if (const auto* n = v.get_if<numeric>()) {
        chars = n->view();
        owned = n->is_owned();
      } else {
        return fail(errc::type_mismatch);
      }
      // A view may only point into the received bytes, which outlive the mapping. Characters the
      // cast had to produce (binary numeric, interval or "char", money with separators, an array
      // element with escapes) live in `v`, which dies when the mapping returns: no view of those.
      if constexpr (std::same_as<T, std::string_view>) {
        if (owned && !chars.empty()) return fail(errc::type_mismatch);
      }
      return T{chars};
    } else if constexpr (std::same_as<T, std::chrono::sys_time<std::chrono::microseconds>>) {
      if (const auto* t = v.get_if<timestamptz>()) {
        if (const auto at = t->to_sys_time()) return *at;
      }
    } else if constexpr (is_vector_v<T>) {
      if (const auto* a = v.get_if<array>()) {
        T out;
        out.reserve(a->size());
        for (const value& element : *a) {
          auto e = convert<Member, typename T::value_type>(element);
          if (!e) return unexpected(e.error());
          out.push_back(std::move(*e));
        }
        return out;
      }
    } else if constexpr (is_value_alternative_v<T>) {
      if (const auto* x = v.get_if<T>()) return *x;
    } else {
      static_assert(member_type_supported<Member, T>,
                    "replicant: as<T>(): a member type must be bool, an integer or floating-point type, "
                    "std::string, std::string_view, std::chrono::sys_time<std::chrono::microseconds>, a "
                    "replicant::value alternative (numeric, text, date, timestamptz, ...), replicant::value, or "
                    "std::optional / std::vector of those");
    }
    return fail(errc::type_mismatch);
  }
}

}  // namespace detail

/**
 * Fills a `T` from @p r: each member of `T` takes the value of the column of the same name.
 *
 * `T` must be a Boost.Hana Struct (`BOOST_HANA_DEFINE_STRUCT` inside it, or `BOOST_HANA_ADAPT_STRUCT`
 * after it). Member types: `bool`; integer types (range-checked); `float`/`double`; `std::string`
 * and `std::string_view` (from text, json and numeric columns; a view is valid during the callback
 * only, and exists only for a value that is in the received bytes as sent: a numeric, interval or
 * `"char"` in binary mode, a money amount with separators or an array element with escapes is
 * rendered by replicant, so a view of it is `errc::type_mismatch`: use `std::string` for those);
 * `std::chrono::sys_time<std::chrono::microseconds>` (finite `timestamptz`); any alternative of
 * @ref replicant::value (`numeric`, `date`, `timestamptz`, `uuid`, `bytea`, `array`, ...);
 * `replicant::value` itself; `std::optional<M>`, which takes SQL NULL; `std::vector<M>` from an array.
 * Columns without a member are ignored.
 *
 * @par Example
 * @code
 * struct order {
 *   BOOST_HANA_DEFINE_STRUCT(order, (std::int32_t, id), (std::string, customer),
 *                            (std::optional<replicant::numeric>, total));
 * };
 * auto o = change.as<order>();
 * if (!o) return replicant::unexpected(o.error());
 * @endcode
 *
 * @return the struct, or a @ref mapping_error naming the member and its column:
 * `errc::column_missing` when a member has no column, `errc::column_unchanged` when its column is an
 * unchanged TOAST value, `errc::type_mismatch` when a value does not fit its member (NULL into a
 * non-optional member included), or a casting error. It never holds a value.
 * @throws std::bad_alloc only.
 */
template <class T>
[[nodiscard]] auto as(const row& r) -> mapping_result<T> {
  static_assert(boost::hana::Struct<T>::value,
                "replicant: as<T>() needs T adapted with BOOST_HANA_DEFINE_STRUCT or BOOST_HANA_ADAPT_STRUCT");
  static_assert(std::is_default_constructible_v<T>, "replicant: as<T>() needs a default-constructible T");
  T out{};
  std::optional<mapping_error> failure;
  boost::hana::for_each(boost::hana::accessors<T>(), [&](auto accessor) {
    if (failure) return;
    constexpr const char* name = boost::hana::to<const char*>(boost::hana::first(accessor));
    auto& member = boost::hana::second(accessor)(out);
    using member_type = std::remove_cvref_t<decltype(member)>;
    using name_type = std::remove_cvref_t<decltype(boost::hana::first(accessor))>;
    const auto f = r.find(name);
    if (!f) {
      failure = mapping_error{make_error_code(errc::column_missing), name, name};
      return;
    }
    auto v = f->value();
    if (!v) {
      failure = mapping_error{v.error(), name, f->name()};
      return;
    }
    auto converted = detail::convert<detail::member_name_of<name_type>::value, member_type>(*v);
    if (!converted) {
      failure = mapping_error{converted.error(), name, f->name()};
      return;
    }
    member = std::move(*converted);
  });
  if (failure) return unexpected(*failure);
  return out;
}

}  // namespace replicant

#endif  // REPLICANT_MODEL_MAPPING_HPP
