// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_DECIMAL_HPP
#define REPLICANT_SNAPSHOT_DETAIL_DECIMAL_HPP

// Decimal numbers as the server prints them in catalog rows and in our own tokens: strict (the
// whole text, no sign unless the type has one, no spaces), never throwing.

#include <replicant/core/detail/config.hpp>

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

namespace replicant::detail {

// A decimal integer of type T filling all of @p text, or nothing.
template <class T>
[[nodiscard]] auto parse_decimal(std::string_view text) noexcept -> std::optional<T> {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// The attribute numbers of a list spelled "1 2 5" (positive, as in column lists and index keys).
[[nodiscard]] REPLICANT_DECL auto parse_attnum_list(std::string_view text) -> std::optional<std::vector<std::int16_t>>;

}  // namespace replicant::detail

// The bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp> with
// REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/detail/impl/decimal.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_DETAIL_DECIMAL_HPP
