// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_TYPE_WIDENING_HPP
#define REPLICANT_MODEL_TYPE_WIDENING_HPP

/// @file
/// Whether a column's new type holds every value of its old one, written the same way: the test
/// that tells a widening `ALTER COLUMN ... TYPE` (additive) from any other type change
/// (destructive). Decided from the catalog's `atttypid` and `atttypmod`, as pgoutput sends them.

#include <replicant/model/pg_type.hpp>
#include <replicant/model/relation.hpp>

#include <cstdint>
#include <optional>

namespace replicant {

/// `numeric(precision, scale)` as an `atttypmod` encodes it.
struct numeric_modifier {
  /// Total significant digits.
  std::int32_t precision = 0;
  /// Digits after the decimal point (negative since PostgreSQL 15: rounding to tens, hundreds...).
  std::int32_t scale = 0;

  /// Member-wise equality.
  friend auto operator==(const numeric_modifier&, const numeric_modifier&) -> bool = default;
};

/// The declared length of a `varchar(n)` (or `char(n)`) column from its `atttypmod`, which is `n + 4`
/// (the 4 is the varlena header, `VARHDRSZ`); none for `-1`, an unbounded `varchar`. Never throws.
[[nodiscard]] constexpr auto varchar_length(std::int32_t typmod) noexcept -> std::optional<std::int32_t> {
  if (typmod < 4) return std::nullopt;
  return typmod - 4;
}

/// The precision and scale of a `numeric(p, s)` column from its `atttypmod`, which is
/// `((p << 16) | (s & 0x7FF)) + 4`, the scale an 11-bit two's complement number; none for `-1`, an
/// unconstrained `numeric`. Never throws.
[[nodiscard]] constexpr auto numeric_typmod(std::int32_t typmod) noexcept -> std::optional<numeric_modifier> {
  if (typmod < 4) return std::nullopt;
  const auto packed = static_cast<std::uint32_t>(typmod - 4);
  const auto scale_bits = static_cast<std::int32_t>(packed & 0x7FFU);
  return numeric_modifier{static_cast<std::int32_t>(packed >> 16U), (scale_bits ^ 1024) - 1024};
}

namespace detail {

// The rank of an integer type by width; 0 for any other type.
[[nodiscard]] constexpr auto integer_rank(std::uint32_t type_oid) noexcept -> int {
  switch (type_oid) {
    case pg_type::int2: return 1;
    case pg_type::int4: return 2;
    case pg_type::int8: return 3;
    default: return 0;
  }
}

// varchar(n) to varchar(m > n), to an unbounded varchar, or to text.
[[nodiscard]] constexpr auto varchar_widens(const column_info& before, const column_info& after) noexcept -> bool {
  if (after.type_oid == pg_type::text) return true;
  if (after.type_oid != pg_type::varchar) return false;
  const auto old_length = varchar_length(before.type_modifier);
  const auto new_length = varchar_length(after.type_modifier);
  if (!new_length) return true;                    // unbounded holds anything
  return old_length && *new_length > *old_length;  // an unbounded one never shrinks into a bound
}

// numeric(p, s) to numeric(q > p, s), or to an unconstrained numeric. A scale change is not a
// widening: it rewrites every stored value's text (1.5 becomes 1.50).
[[nodiscard]] constexpr auto numeric_widens(const column_info& before, const column_info& after) noexcept -> bool {
  if (after.type_oid != pg_type::numeric) return false;
  const auto old_mod = numeric_typmod(before.type_modifier);
  const auto new_mod = numeric_typmod(after.type_modifier);
  if (!new_mod) return true;
  return old_mod && new_mod->scale == old_mod->scale && new_mod->precision > old_mod->precision;
}

}  // namespace detail

/**
 * Whether the column described by @p after holds every value the column described by @p before
 * could hold, each written the same way: a larger integer type (`int2` → `int4` → `int8`), a
 * longer or unbounded `varchar` (or `text`), a larger `numeric` precision with the same scale (or
 * an unconstrained `numeric`). False for an unchanged column, a narrowing, and every other change
 * of type or modifier, which the schema-change classification therefore keeps destructive.
 *
 * Only the type and modifier are compared; names and key membership are the caller's.
 * Never throws.
 *
 * @par Example
 * @code
 * const replicant::column_info before{"note", replicant::pg_type::varchar, 10 + 4};  // varchar(10)
 * const replicant::column_info after{"note", replicant::pg_type::varchar, 20 + 4};   // varchar(20)
 * if (replicant::widens(before, after)) accept();
 * @endcode
 */
[[nodiscard]] constexpr auto widens(const column_info& before, const column_info& after) noexcept -> bool {
  if (before.type_oid == after.type_oid && before.type_modifier == after.type_modifier) return false;
  switch (before.type_oid) {
    case pg_type::int2:
    case pg_type::int4: return detail::integer_rank(after.type_oid) > detail::integer_rank(before.type_oid);
    case pg_type::varchar: return detail::varchar_widens(before, after);
    case pg_type::numeric: return detail::numeric_widens(before, after);
    default: return false;
  }
}

}  // namespace replicant

#endif  // REPLICANT_MODEL_TYPE_WIDENING_HPP
