// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_CAST_HPP
#define REPLICANT_MODEL_CAST_HPP

/// @file
/// From a column's wire data to a typed replicant::value: cast_text for pgoutput's text columns
/// ('t'), cast_binary for its binary columns ('b', with the `binary 'true'` option).
///
/// The decoder calls these for every non-NULL column; they are public so that a user-written decoder
/// (for another output plugin) can type its values the same way. The full type table and the edge
/// cases are in docs/casting.md.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/model/value.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace replicant {

/**
 * Types a column's text output by its type OID.
 *
 * @p text is what the server's output function printed inside the walsender session, whose settings
 * replicant pins (`client_encoding=UTF8`, `DateStyle=ISO`, `IntervalStyle=postgres`,
 * `TimeZone=UTC`, `extra_float_digits=3`, `bytea_output=hex`), so each type has one known shape.
 *
 * The rules, in short (docs/casting.md has the table):
 * - **Lenient.** A value that does not have its type's shape is delivered as the original string
 *   (a @ref replicant::text), never dropped: e.g. a `money` amount printed under a non-C/en_US
 *   `lc_monetary`, or a type replicant does not know (user types, enums, domains, ranges,
 *   geometric types, `box[]` with its `;` delimiter).
 * - **Except** malformed `numeric` text and `bytea` that is not `\x` plus hex digits: the stream is
 *   corrupt, and the result is `errc::decode_failure`, also when such a value is an array element.
 * - `interval` and `timetz` (and their arrays' elements) are delivered as their raw text.
 * - Arrays nest to any depth, with NULL elements at any depth and each element cast like its scalar
 *   type; an array whose structure is not array_out's is delivered whole as its string.
 *
 * The result *borrows* @p text where it can (strings, JSON, numeric digits), so it is valid only as
 * long as @p text is; call value::own() to detach it. Integers, floats, dates, times and
 * timestamps never allocate.
 *
 * @param type_oid the column's type OID (from the Relation message); see @ref replicant::pg_type.
 * @param text the column's text, exactly as received (no terminator).
 * @return the value, or `errc::decode_failure`. Errors never include any part of @p text.
 * @throws std::bad_alloc only (for the types that need to allocate: bytea, arrays, some money).
 *
 * @par Example
 * @code
 * auto v = replicant::cast_text(replicant::pg_type::timestamptz, "2024-05-01 12:00:00.25+00");
 * assert(v && v->get<replicant::timestamptz>().to_sys_time().has_value());
 * @endcode
 *
 * @par Thread safety
 * Safe: a pure function.
 */
[[nodiscard]] REPLICANT_DECL auto cast_text(std::uint32_t type_oid, std::string_view text) -> result<value>;

/**
 * Types a column's binary (typsend) output by its type OID; the counterpart of cast_text for
 * pgoutput's `binary 'true'` mode.
 *
 * Every type cast_text casts yields the **same value** here as from its text form: `numeric` the
 * same canonical digits, `money` the same decimal (assuming the C locale's two fraction digits), and
 * `interval`, `timetz` and `"char"` the very text the server's output function would have printed.
 *
 * Binary data has no legitimately odd shapes, so anything malformed (a wrong length, an array with
 * more than six dimensions or a wrong element type, numeric digits out of range, trailing bytes) is
 * `errc::decode_failure`. The send form of a type replicant does not know cannot be read, so it is
 * delivered as @ref replicant::bytea holding the bytes as sent: prefer text mode for tables with
 * user-defined types.
 *
 * Text-like results (text, json, bytea) borrow @p bytes; see cast_text. The server sends text
 * values of binary columns in `client_encoding` like text mode does.
 *
 * @param type_oid the column's type OID.
 * @param bytes the column's bytes, exactly as received.
 * @return the value, or `errc::decode_failure`. Errors never include any of the bytes.
 * @throws std::bad_alloc only.
 *
 * @par Thread safety
 * Safe: a pure function.
 */
[[nodiscard]] REPLICANT_DECL auto cast_binary(std::uint32_t type_oid, std::span<const std::byte> bytes)
    -> result<value>;

}  // namespace replicant

// The bodies, and the type tables behind them: in every unit header-only, in the one unit that
// includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/model/impl/cast.hpp>
#endif

#endif  // REPLICANT_MODEL_CAST_HPP
