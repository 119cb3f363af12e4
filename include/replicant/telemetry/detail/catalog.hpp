// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TELEMETRY_DETAIL_CATALOG_HPP
#define REPLICANT_TELEMETRY_DETAIL_CATALOG_HPP

// Type traits behind the compile-time checks of replicant/telemetry/telemetry.hpp. Private.

#include <chrono>
#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace replicant::telemetry::detail {

// Anything that reads as text. Telemetry refuses all of it: a string is how a row value would
// travel, and names have their own types (table_ref, slot_name).
template <class V>
inline constexpr bool is_string_like =
    std::is_convertible_v<V, std::string_view> || std::is_convertible_v<V, std::u8string_view> ||
    std::is_convertible_v<V, std::u16string_view> || std::is_convertible_v<V, std::u32string_view> ||
    std::is_convertible_v<V, std::wstring_view>;

// A count, size or attempt number: an integer that is not bool and not a character type (a `char`
// is a byte of text, not a number).
template <class V>
concept count = std::integral<V> && !std::same_as<V, bool> && !std::same_as<V, char> && !std::same_as<V, wchar_t> &&
                !std::same_as<V, char8_t> && !std::same_as<V, char16_t> && !std::same_as<V, char32_t>;

template <class V>
inline constexpr bool is_duration = false;
template <class Rep, class Period>
inline constexpr bool is_duration<std::chrono::duration<Rep, Period>> = true;

// How often T occurs in the pack, and whether every type of a pack occurs once (a key given twice
// to emit() is refused).
template <class T, class... Ts>
inline constexpr std::size_t occurrences = (std::size_t{std::is_same_v<T, Ts>} + ... + 0);

template <class... Ts>
inline constexpr bool distinct = ((occurrences<Ts, Ts...> == 1) && ...);

}  // namespace replicant::telemetry::detail

#endif  // REPLICANT_TELEMETRY_DETAIL_CATALOG_HPP
