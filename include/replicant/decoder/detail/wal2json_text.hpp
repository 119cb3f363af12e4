// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_DETAIL_WAL2JSON_TEXT_HPP
#define REPLICANT_DECODER_DETAIL_WAL2JSON_TEXT_HPP

// The pieces of text handling the wal2json translator needs besides JSON itself: escaping a table
// name for the `add-tables` option, recovering `atttypmod` from the type name wal2json prints
// (format_type_with_typemod), telling fixed-width types apart from TOASTable ones, and checking
// that a bare JSON number token is one (simdjson's On-Demand API hands out raw tokens unchecked).

#include <replicant/core/detail/pg_parse.hpp>
#include <replicant/model/pg_type.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace replicant::detail {

// Escapes one part of a `schema.table` entry of wal2json's `add-tables` option: wal2json splits the
// list at unescaped commas and white space and the entry at the first unescaped period, treats a
// leading `*` as a wildcard, and drops one backslash before any character (wal2json.c,
// string_to_SelectTable and parse_table_identifier). A backslash before each of those characters
// makes any name literal.
[[nodiscard]] inline auto wal2json_escape_name(std::string_view part) -> std::string {
  std::string out;
  out.reserve(part.size());
  for (const char c : part) {
    if (c == '\\' || c == '.' || c == ',' || c == '*' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
        c == '\f' || c == '\'') {
      out.push_back('\\');
    }
    out.push_back(c);
  }
  return out;
}

// True for a complete JSON number token (RFC 8259 §6): -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
[[nodiscard]] constexpr auto is_json_number(std::string_view s) noexcept -> bool {
  std::size_t i = 0;
  const auto digits = [&]() noexcept {
    const std::size_t from = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i > from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// Types whose values are stored inline at a fixed width and therefore never TOASTed: an UPDATE can
// leave out only TOASTable (varlena) columns, so a fixed-width column missing from an UPDATE means
// the column is gone. Types not listed (user types, enums, ranges, ...) are assumed TOASTable, the
// conservative reading: a missing value is then taken as unchanged rather than as a dropped column.
[[nodiscard]] constexpr auto is_fixed_width_type(std::uint32_t oid) noexcept -> bool {
  switch (oid) {
    case pg_type::boolean:
    case pg_type::internal_char:
    case pg_type::name:
    case pg_type::int8:
    case pg_type::int2:
    case pg_type::int4:
    case pg_type::oid:
    case pg_type::float4:
    case pg_type::float8:
    case pg_type::money:
    case pg_type::date:
    case pg_type::time:
    case pg_type::timestamp:
    case pg_type::timestamptz:
    case pg_type::interval:
    case pg_type::timetz:
    case pg_type::uuid:
    case 24:    // regproc
    case 27:    // tid
    case 28:    // xid
    case 29:    // cid
    case 600:   // point
    case 601:   // lseg
    case 603:   // box
    case 628:   // line
    case 718:   // circle
    case 774:   // macaddr8
    case 829:   // macaddr
    case 2202:  // regprocedure
    case 2203:  // regoper
    case 2204:  // regoperator
    case 2205:  // regclass
    case 2206:  // regtype
    case 3220:  // pg_lsn
    case 5069:  // xid8
      return true;
    default: return false;
  }
}

namespace wal2json_typmod {

// Reads "(n)" or "(n,m)" at the start of @p s; false when it is not there.
constexpr auto read_parenthesised(std::string_view& s, std::int64_t& first, std::int64_t* second) noexcept -> bool {
  if (s.empty() || s[0] != '(') return false;
  std::size_t i = 1;
  const auto number = [&](std::int64_t& out) noexcept {
    bool negative = false;
    if (i < s.size() && s[i] == '-') {
      negative = true;
      ++i;
    }
    const std::size_t from = i;
    out = 0;
    while (i < s.size() && is_digit(s[i]) && i - from < 9) out = out * 10 + (s[i++] - '0');
    if (i == from || (i < s.size() && is_digit(s[i]))) return false;
    if (negative) out = -out;
    return true;
  };
  if (!number(first)) return false;
  if (second != nullptr) {
    if (i >= s.size() || s[i] != ',') return false;
    ++i;
    if (!number(*second)) return false;
  }
  if (i >= s.size() || s[i] != ')') return false;
  s.remove_prefix(i + 1);
  return true;
}

constexpr auto starts_with(std::string_view s, std::string_view prefix) noexcept -> bool {
  return s.substr(0, prefix.size()) == prefix;
}

// The interval field restrictions intervaltypmodout prints, with their range masks
// (INTERVAL_MASK of datetime.h's YEAR 2, MONTH 1, DAY 3, HOUR 10, MINUTE 11, SECOND 12).
struct interval_fields {
  std::string_view text;
  std::int64_t mask;
};
inline constexpr interval_fields interval_ranges[] = {
    {" year to month", (1 << 2) | (1 << 1)},
    {" day to hour", (1 << 3) | (1 << 10)},
    {" day to minute", (1 << 3) | (1 << 10) | (1 << 11)},
    {" day to second", (1 << 3) | (1 << 10) | (1 << 11) | (1 << 12)},
    {" hour to minute", (1 << 10) | (1 << 11)},
    {" hour to second", (1 << 10) | (1 << 11) | (1 << 12)},
    {" minute to second", (1 << 11) | (1 << 12)},
    {" year", 1 << 2},
    {" month", 1 << 1},
    {" day", 1 << 3},
    {" hour", 1 << 10},
    {" minute", 1 << 11},
    {" second", 1 << 12},
};

}  // namespace wal2json_typmod

// The `atttypmod` behind a type name as format_type_with_typemod prints it (the `type` field of a
// wal2json column), for the built-in types with modifiers: `character varying(n)`, `character(n)`,
// `bit(n)`, `bit varying(n)`, `numeric(p,s)`, `time(p)`/`timestamp(p)` with or without time zone,
// and `interval` with fields and precision; an array's (`...[]`) is its element's. -1 for every other
// name, which is also what those types carry when declared without a modifier.
[[nodiscard]] constexpr auto typmod_from_type_name(std::string_view type) noexcept -> std::int32_t {
  using namespace wal2json_typmod;
  while (type.size() >= 2 && type.substr(type.size() - 2) == "[]") type.remove_suffix(2);
  std::int64_t a = 0;
  std::int64_t b = 0;
  constexpr std::int64_t header = 4;  // VARHDRSZ, part of the modifier of the varlena types
  const auto whole = [&type](std::string_view name, std::int64_t& n) noexcept {
    if (!starts_with(type, name)) return false;
    std::string_view rest = type.substr(name.size());
    return read_parenthesised(rest, n, nullptr) && rest.empty();
  };
  if (whole("character varying", a) || whole("character", a))
    return a >= 1 ? static_cast<std::int32_t>(a + header) : -1;
  if (whole("bit varying", a) || whole("bit", a)) return a >= 1 ? static_cast<std::int32_t>(a) : -1;
  if (starts_with(type, "numeric")) {
    std::string_view rest = type.substr(7);
    if (!read_parenthesised(rest, a, &b) || !rest.empty() || a < 1 || a > 1000 || b < -1000 || b > 1000) return -1;
    return static_cast<std::int32_t>(((a << 16) | (b & 0x7FF)) + header);
  }
  for (const std::string_view name : {std::string_view{"timestamp"}, std::string_view{"time"}}) {
    if (!starts_with(type, name)) continue;
    std::string_view rest = type.substr(name.size());
    if (!read_parenthesised(rest, a, nullptr) || a < 0 || a > 6) return -1;
    return rest == " without time zone" || rest == " with time zone" ? static_cast<std::int32_t>(a) : -1;
  }
  if (starts_with(type, "interval")) {
    std::string_view rest = type.substr(8);
    if (rest.empty()) return -1;
    std::int64_t range = 0x7FFF;  // INTERVAL_FULL_RANGE
    for (const interval_fields& f : interval_ranges) {
      if (starts_with(rest, f.text)) {
        range = f.mask;
        rest.remove_prefix(f.text.size());
        break;
      }
    }
    std::int64_t precision = 0xFFFF;  // INTERVAL_FULL_PRECISION
    if (!rest.empty() && (!read_parenthesised(rest, precision, nullptr) || precision < 0 || precision > 6)) return -1;
    if (!rest.empty()) return -1;
    return static_cast<std::int32_t>((range << 16) | precision);
  }
  return -1;
}

// Whether a type name without a modifier means the column has none, for a column of type
// @p type_oid: true for `varchar` and `numeric` (and their arrays), whose names wal2json prints
// with the modifier whenever there is one, so that a widening to an unbounded `varchar` or an
// unconstrained `numeric` is seen. For every other type a bare name stays "not shown", and the
// modifier known from before is kept.
[[nodiscard]] constexpr auto type_name_shows_modifier(std::uint32_t type_oid) noexcept -> bool {
  const std::uint32_t element = pg_type::element_of(type_oid);
  const std::uint32_t type = element != 0 ? element : type_oid;
  return type == pg_type::varchar || type == pg_type::numeric;
}

}  // namespace replicant::detail

#endif  // REPLICANT_DECODER_DETAIL_WAL2JSON_TEXT_HPP
