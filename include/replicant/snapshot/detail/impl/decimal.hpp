// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_IMPL_DECIMAL_HPP
#define REPLICANT_SNAPSHOT_DETAIL_IMPL_DECIMAL_HPP

// Out-of-line body of replicant::detail::parse_attnum_list. Included at the bottom of
// <replicant/snapshot/detail/decimal.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/snapshot/src.hpp>, which compiles it once.

#include <replicant/core/detail/config.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace replicant::detail {

[[nodiscard]] REPLICANT_DECL auto parse_attnum_list(std::string_view text) -> std::optional<std::vector<std::int16_t>> {
  std::vector<std::int16_t> out;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const auto n = parse_decimal<std::int16_t>(text.substr(0, space));
    if (!n || *n <= 0) return std::nullopt;
    out.push_back(*n);
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return out;
}

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_DETAIL_IMPL_DECIMAL_HPP
