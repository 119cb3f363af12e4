// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_PG_TYPE_HPP
#define REPLICANT_MODEL_PG_TYPE_HPP

/// @file
/// OIDs of the built-in PostgreSQL types replicant casts, and the element type of each array type.
///
/// Built-in OIDs are fixed in PostgreSQL's catalog (`src/include/catalog/pg_type.dat`) and identical
/// in every version replicant supports (15 to 18); each number below was checked against a live
/// server's `pg_type`. A column's type OID arrives in pgoutput's Relation message. A column of a
/// *domain* type carries the domain's own OID, which is not in this list, so its values are delivered
/// as text (see docs/casting.md).

#include <cstdint>

/// Built-in PostgreSQL type OIDs, named after the types, and the element type of each array type.
namespace replicant::pg_type {

/// A PostgreSQL type OID.
using oid_type = std::uint32_t;

// Scalars. The names are PostgreSQL's type names, except `internal_char` for the one-byte type
// spelled "char" in SQL and `boolean` for bool.
inline constexpr oid_type boolean = 16;        ///< `bool`
inline constexpr oid_type bytea = 17;          ///< `bytea`
inline constexpr oid_type internal_char = 18;  ///< `"char"` (single byte)
inline constexpr oid_type name = 19;           ///< `name`
inline constexpr oid_type int8 = 20;           ///< `int8` / `bigint`
inline constexpr oid_type int2 = 21;           ///< `int2` / `smallint`
inline constexpr oid_type int4 = 23;           ///< `int4` / `integer`
inline constexpr oid_type text = 25;           ///< `text`
inline constexpr oid_type oid = 26;            ///< `oid`
inline constexpr oid_type json = 114;          ///< `json`
inline constexpr oid_type xml = 142;           ///< `xml`
inline constexpr oid_type float4 = 700;        ///< `float4` / `real`
inline constexpr oid_type float8 = 701;        ///< `float8` / `double precision`
inline constexpr oid_type money = 790;         ///< `money`
inline constexpr oid_type bpchar = 1042;       ///< `bpchar` / `char(n)`
inline constexpr oid_type varchar = 1043;      ///< `varchar`
inline constexpr oid_type date = 1082;         ///< `date`
inline constexpr oid_type time = 1083;         ///< `time`
inline constexpr oid_type timestamp = 1114;    ///< `timestamp`
inline constexpr oid_type timestamptz = 1184;  ///< `timestamptz`
inline constexpr oid_type interval = 1186;     ///< `interval`
inline constexpr oid_type timetz = 1266;       ///< `timetz`
inline constexpr oid_type numeric = 1700;      ///< `numeric`
inline constexpr oid_type uuid = 2950;         ///< `uuid`
inline constexpr oid_type jsonb = 3802;        ///< `jsonb`

// Arrays of the scalars above (pg_type.typarray).
inline constexpr oid_type boolean_array = 1000;        ///< `bool[]`
inline constexpr oid_type bytea_array = 1001;          ///< `bytea[]`
inline constexpr oid_type internal_char_array = 1002;  ///< `"char"[]`
inline constexpr oid_type name_array = 1003;           ///< `name[]`
inline constexpr oid_type int2_array = 1005;           ///< `int2[]`
inline constexpr oid_type int4_array = 1007;           ///< `int4[]`
inline constexpr oid_type text_array = 1009;           ///< `text[]`
inline constexpr oid_type bpchar_array = 1014;         ///< `bpchar[]`
inline constexpr oid_type varchar_array = 1015;        ///< `varchar[]`
inline constexpr oid_type int8_array = 1016;           ///< `int8[]`
inline constexpr oid_type float4_array = 1021;         ///< `float4[]`
inline constexpr oid_type float8_array = 1022;         ///< `float8[]`
inline constexpr oid_type oid_array = 1028;            ///< `oid[]`
inline constexpr oid_type timestamp_array = 1115;      ///< `timestamp[]`
inline constexpr oid_type date_array = 1182;           ///< `date[]`
inline constexpr oid_type time_array = 1183;           ///< `time[]`
inline constexpr oid_type timestamptz_array = 1185;    ///< `timestamptz[]`
inline constexpr oid_type interval_array = 1187;       ///< `interval[]`
inline constexpr oid_type numeric_array = 1231;        ///< `numeric[]`
inline constexpr oid_type timetz_array = 1270;         ///< `timetz[]`
inline constexpr oid_type json_array = 199;            ///< `json[]`
inline constexpr oid_type xml_array = 143;             ///< `xml[]`
inline constexpr oid_type money_array = 791;           ///< `money[]`
inline constexpr oid_type uuid_array = 2951;           ///< `uuid[]`
inline constexpr oid_type jsonb_array = 3807;          ///< `jsonb[]`

/**
 * The element type of a built-in array type replicant casts, or 0 when @p array_oid is not one.
 *
 * Every array listed here uses `,` between elements. Arrays of other types (`box[]` uses `;`, and
 * user types are unknown) are delivered as text.
 *
 * @par Exceptions
 * Never throws.
 */
[[nodiscard]] constexpr auto element_of(oid_type array_oid) noexcept -> oid_type {
  switch (array_oid) {
    case boolean_array: return boolean;
    case bytea_array: return bytea;
    case internal_char_array: return internal_char;
    case name_array: return name;
    case int2_array: return int2;
    case int4_array: return int4;
    case text_array: return text;
    case bpchar_array: return bpchar;
    case varchar_array: return varchar;
    case int8_array: return int8;
    case float4_array: return float4;
    case float8_array: return float8;
    case oid_array: return oid;
    case timestamp_array: return timestamp;
    case date_array: return date;
    case time_array: return time;
    case timestamptz_array: return timestamptz;
    case interval_array: return interval;
    case numeric_array: return numeric;
    case timetz_array: return timetz;
    case json_array: return json;
    case xml_array: return xml;
    case money_array: return money;
    case uuid_array: return uuid;
    case jsonb_array: return jsonb;
    default: return 0;
  }
}

}  // namespace replicant::pg_type

#endif  // REPLICANT_MODEL_PG_TYPE_HPP
