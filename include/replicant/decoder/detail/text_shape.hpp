// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_DETAIL_TEXT_SHAPE_HPP
#define REPLICANT_DECODER_DETAIL_TEXT_SHAPE_HPP

// The decode-time check of the text values that can only be corrupt when they do not have their
// type's shape: `numeric` and `bytea`, and arrays of them (docs/casting.md, rule 2). Casting would
// find such a value only when the sink asked for it, after the transaction had reached the sink;
// checked while the row is decoded, the transaction halts before any of it is delivered. Every
// other type's odd text is delivered as a string, so it needs no check here.
//
// The scalar checks allocate nothing and run for every numeric and bytea field, so they are kept to
// one pass over the text; an array of either type goes through the caster itself (it allocates, but
// such columns are rare and their elements need the array reader anyway).

#include <replicant/core/detail/pg_parse.hpp>
#include <replicant/model/cast.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/model/relation.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace replicant::detail {

// Whether text values of @p type_oid must have their type's one shape.
[[nodiscard]] constexpr auto has_strict_text(std::uint32_t type_oid) noexcept -> bool {
  return type_oid == pg_type::numeric || type_oid == pg_type::bytea || type_oid == pg_type::numeric_array ||
         type_oid == pg_type::bytea_array;
}

// Which columns of @p relation hold values of such a type, as the mask detail::read_tuple watches:
// bit i for column i, and bit 63 for any column from the 64th on. Worked out once per relation, so
// that a row of a relation without such a column costs nothing, and one with costs a shift per
// column.
[[nodiscard]] inline auto strict_columns(const relation_info& relation) noexcept -> std::int64_t {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < relation.columns.size(); ++i) {
    if (has_strict_text(relation.columns[i].type_oid)) mask |= std::uint64_t{1} << (i < 63 ? i : 63);
  }
  return static_cast<std::int64_t>(mask);
}

// An even number of hex digits: bytea_out's text after its `\x`.
[[nodiscard]] constexpr auto is_hex_pairs(std::string_view s) noexcept -> bool {
  int bad = 0;
  for (const char c : s) bad |= hex_of(c);  // any -1 sets the sign bit
  return bad >= 0 && s.size() % 2 == 0;
}

// bytea_out with bytea_output=hex: `\x` and an even number of hex digits; what cast_bytea_hex
// accepts, without decoding into a buffer.
[[nodiscard]] constexpr auto is_bytea_hex_text(std::string_view s) noexcept -> bool {
  return s.size() >= 2 && s[0] == '\\' && s[1] == 'x' && is_hex_pairs(s.substr(2));
}

// Whether the text @p s of a column of @p type_oid casts without errc::decode_failure.
// @throws std::bad_alloc only (arrays).
[[nodiscard]] inline auto has_its_shape(std::uint32_t type_oid, std::string_view s) -> bool {
  switch (type_oid) {
    case pg_type::numeric: return is_numeric_text(s);
    case pg_type::bytea: return is_bytea_hex_text(s);
    case pg_type::numeric_array:
    case pg_type::bytea_array: return cast_text(type_oid, s).has_value();
    default: return true;
  }
}

}  // namespace replicant::detail

#endif  // REPLICANT_DECODER_DETAIL_TEXT_SHAPE_HPP
