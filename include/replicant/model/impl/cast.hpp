// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_IMPL_CAST_HPP
#define REPLICANT_MODEL_IMPL_CAST_HPP

// Out-of-line bodies of replicant::cast_text and replicant::cast_binary. Included at the bottom of
// <replicant/model/cast.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/model/src.hpp>, so that the type tables are
// parsed and compiled once per program rather than in every unit that reads a row.

#include <replicant/core/detail/config.hpp>
#include <replicant/model/detail/cast_binary.hpp>
#include <replicant/model/detail/cast_text.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace replicant {

REPLICANT_DECL auto cast_text(std::uint32_t type_oid, std::string_view text) -> result<value> {
  return detail::cast_text_value(type_oid, text);
}

REPLICANT_DECL auto cast_binary(std::uint32_t type_oid, std::span<const std::byte> bytes) -> result<value> {
  return detail::cast_binary_value(type_oid, bytes);
}

}  // namespace replicant

#endif  // REPLICANT_MODEL_IMPL_CAST_HPP
