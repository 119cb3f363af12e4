// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_DETAIL_CAST_TEXT_HPP
#define REPLICANT_MODEL_DETAIL_CAST_TEXT_HPP

// Text-mode casting: a column's text output (pgoutput 't' data) to a replicant::value, by type OID.
// The public entry point and its contract are replicant::cast_text in cast.hpp; this file holds the
// machinery, including the reader for array_out's format.
//
// Leniency rule: a value that does not have its type's shape is delivered as the original string.
// The only failures are malformed numeric and non-hex bytea (errc::decode_failure): text that cannot
// be right for those types means the stream is corrupt, not that the value is unusual.

#include <replicant/core/detail/pg_parse.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/model/value.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::detail {

[[nodiscard]] inline auto cast_text_value(std::uint32_t type_oid, std::string_view s) -> result<value>;

// bytea_out with bytea_output=hex: "\x" and two hex digits per byte.
[[nodiscard]] inline auto cast_bytea_hex(std::string_view s) -> result<value> {
  if (s.size() < 2 || s[0] != '\\' || s[1] != 'x' || s.size() % 2 != 0) return fail(errc::decode_failure);
  const std::size_t n = (s.size() - 2) / 2;
  if (n == 0) return value(bytea{});
  auto block = std::make_unique_for_overwrite<std::byte[]>(n);
  int bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int hi = hex_of(s[2 + 2 * i]);
    const int lo = hex_of(s[3 + 2 * i]);
    bad |= hi | lo;  // any -1 sets the sign bit; checked once after the loop
    block[i] = static_cast<std::byte>(((hi & 0xF) << 4) | (lo & 0xF));
  }
  if (bad < 0) return fail(errc::decode_failure);
  return value(bytea(trusted, borrowed_or_owned<std::byte>::adopt(std::move(block), n)));
}

// money in the C/en_US shapes as an exact decimal; anything else stays the original string.
[[nodiscard]] inline auto cast_money(std::string_view s) -> value {
  const auto shape = parse_money(s);
  if (!shape) return text::borrow(s);
  // "$1234.56": the decimal is a contiguous slice of the input, so it can be borrowed.
  if (!shape->negative && shape->digits.find(',') == std::string_view::npos) {
    const std::string_view slice(shape->digits.data(), shape->digits.size() + 3);
    return numeric(trusted, borrowed_or_owned<char>::borrow(slice.data(), slice.size()));
  }
  // Otherwise drop the separators and move the sign in front of the digits. A zero amount loses its
  // sign, matching the binary path (there is no negative zero in money's int64 either).
  std::string out;
  out.reserve(shape->digits.size() + 4);
  if (shape->negative) out.push_back('-');
  for (const char c : shape->digits)
    if (c != ',') out.push_back(c);
  out.push_back('.');
  out += shape->cents;
  if (shape->negative && out.find_first_not_of("-0.,") == std::string::npos) out.erase(0, 1);
  return numeric(trusted, borrowed_or_owned<char>::copy(out.data(), out.size()));
}

// Reader for array_out's text: optional "[lb:ub]..." bounds and '=', then nested braces whose
// elements are separated by ','. Elements are unquoted (no special characters) or double-quoted with
// backslash escapes; an unquoted NULL (any case) is SQL NULL while "NULL" in quotes is the string.
// Structure that array_out could not have produced makes the whole value fall back to its string;
// each element is cast with its element type's own rules (including its decode failures).
class array_text_reader {
 public:
  // PostgreSQL's MAXDIM: no array has more dimensions, which also bounds the recursion here.
  static constexpr std::size_t max_dimensions = 6;

  array_text_reader(std::uint32_t element_oid, std::string_view s) noexcept : element_oid_(element_oid), s_(s) {}

  // The array, std::nullopt for malformed structure, or the first element's decode failure.
  [[nodiscard]] auto read() -> result<std::optional<value>> {
    if (!read_bounds()) return std::optional<value>{};
    if (!eat('{')) return std::optional<value>{};
    if (eat('}')) {  // "{}": the empty array has no dimensions, so no bounds either
      if (pos_ != s_.size() || !bounds_.empty()) return std::optional<value>{};
      return std::optional<value>{value(array{})};
    }
    auto top = read_level(1);
    if (!top) return unexpected<std::error_code>(top.error());
    if (!*top || pos_ != s_.size()) return std::optional<value>{};
    return std::optional<value>{value(std::move(**top))};
  }

 private:
  struct bound {
    std::int64_t lower;
    std::int64_t upper;
  };

  auto eat(char c) noexcept -> bool {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  auto read_int(std::int64_t& out) noexcept -> bool {
    const bool negative = eat('-');
    std::int64_t v = 0;
    std::size_t digits = 0;
    while (pos_ < s_.size() && is_digit(s_[pos_]) && digits < 11) {
      v = v * 10 + (s_[pos_++] - '0');
      ++digits;
    }
    out = negative ? -v : v;
    return digits > 0 && digits <= 10;
  }

  // "[lb:ub][lb:ub]=" (present only when some lower bound is not 1).
  auto read_bounds() -> bool {
    if (pos_ >= s_.size() || s_[pos_] != '[') return true;
    while (eat('[')) {
      bound b{};
      if (!read_int(b.lower) || !eat(':') || !read_int(b.upper) || !eat(']')) return false;
      if (b.upper < b.lower || bounds_.size() == max_dimensions) return false;
      if (b.lower < std::numeric_limits<std::int32_t>::min() || b.upper > std::numeric_limits<std::int32_t>::max())
        return false;
      bounds_.push_back(b);
    }
    return eat('=');
  }

  // One brace level, its '{' already consumed: a list of sub-arrays or a list of scalars. When
  // bounds were declared, the nesting depth and each level's length must agree with them.
  auto read_level(std::size_t depth) -> result<std::optional<array>> {
    std::vector<value> elements;
    const bool nested = pos_ < s_.size() && s_[pos_] == '{';
    if (nested && depth == max_dimensions) return std::optional<array>{};
    if (!bounds_.empty() && (nested ? depth >= bounds_.size() : depth != bounds_.size())) return std::optional<array>{};
    for (;;) {
      if (nested) {
        if (!eat('{')) return std::optional<array>{};
        auto inner = read_level(depth + 1);
        if (!inner) return unexpected<std::error_code>(inner.error());
        if (!*inner) return std::optional<array>{};
        // Every sub-array of a level has the same shape (arrays are rectangular).
        if (!elements.empty() && !same_shape(elements.front().get<array>(), **inner)) return std::optional<array>{};
        elements.emplace_back(std::move(**inner));
      } else {
        auto element = read_scalar();
        if (!element) return unexpected<std::error_code>(element.error());
        if (!*element) return std::optional<array>{};
        elements.push_back(std::move(**element));
      }
      if (eat('}')) break;
      if (!eat(',')) return std::optional<array>{};
    }
    if (bounds_.empty()) return std::optional<array>{array(std::move(elements))};
    const bound& b = bounds_[depth - 1];
    if (b.upper - b.lower + 1 != static_cast<std::int64_t>(elements.size())) return std::optional<array>{};
    return std::optional<array>{array(std::move(elements), static_cast<std::int32_t>(b.lower))};
  }

  static auto same_shape(const array& a, const array& b) noexcept -> bool {
    if (a.size() != b.size()) return false;
    if (a.empty()) return true;
    const auto* x = a[0].get_if<array>();
    const auto* y = b[0].get_if<array>();
    if ((x == nullptr) != (y == nullptr)) return false;
    return x == nullptr || same_shape(*x, *y);
  }

  // One element: quoted, unquoted, or NULL; std::nullopt when malformed.
  auto read_scalar() -> result<std::optional<value>> {
    if (eat('"')) {
      const std::size_t start = pos_;
      bool escaped = false;
      while (pos_ < s_.size() && s_[pos_] != '"') {
        if (s_[pos_] == '\\') {
          escaped = true;
          ++pos_;
        }
        ++pos_;
      }
      if (pos_ >= s_.size()) return std::optional<value>{};
      const std::string_view raw = s_.substr(start, pos_ - start);
      ++pos_;  // closing quote
      if (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '}') return std::optional<value>{};
      return escaped ? cast_unescaped(raw) : cast_element(raw);
    }
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '}') {
      switch (s_[pos_]) {
        case '{':
        case '"':
        case '\\':
        case ' ':
        case '\t':
        case '\n':
        case '\r':
        case '\v':
        case '\f': return std::optional<value>{};  // array_out would have quoted this element
        default: ++pos_;
      }
    }
    const std::string_view raw = s_.substr(start, pos_ - start);
    if (raw.empty()) return std::optional<value>{};
    if (raw.size() == 4 && (raw[0] | 0x20) == 'n' && (raw[1] | 0x20) == 'u' && (raw[2] | 0x20) == 'l' &&
        (raw[3] | 0x20) == 'l')
      return std::optional<value>{value(null)};
    return cast_element(raw);
  }

  // An element without escapes: cast in place, so it can borrow the frame like a scalar column.
  auto cast_element(std::string_view raw) -> result<std::optional<value>> {
    auto v = cast_text_value(element_oid_, raw);
    if (!v) return unexpected<std::error_code>(v.error());
    return std::optional<value>{std::move(*v)};
  }

  // A quoted element with backslash escapes: cast the unescaped copy, and make the result own its
  // bytes because the copy is temporary.
  auto cast_unescaped(std::string_view raw) -> result<std::optional<value>> {
    std::string plain;
    plain.reserve(raw.size());
    // read_scalar only ends a quoted element at an unescaped quote, so a backslash is always
    // followed by the character it escapes; the bound check keeps that local.
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size()) ++i;
      plain.push_back(raw[i]);
    }
    auto v = cast_text_value(element_oid_, plain);
    if (!v) return unexpected<std::error_code>(v.error());
    v->own();
    return std::optional<value>{std::move(*v)};
  }

  std::uint32_t element_oid_;
  std::string_view s_;
  std::size_t pos_ = 0;
  std::vector<bound> bounds_;
};

[[nodiscard]] inline auto cast_text_value(std::uint32_t type_oid, std::string_view s) -> result<value> {
  namespace t = pg_type;
  // Each branch returns the alternative itself rather than a value: result<value> then constructs the
  // value in place, which saves a variant move and destruction per column on this hot path.
  std::int64_t i = 0;
  switch (type_oid) {
    case t::boolean:
      // Compared by hand: `s == "t"` compiles to a call of the out-of-line string_view::compare,
      // which was more than half of what casting a bool cost.
      if (s.size() == 1 && s[0] == 't') return true;
      if (s.size() == 1 && s[0] == 'f') return false;
      break;
    case t::int2:
      if (parse_integer<std::int16_t>(s, i)) return i;
      break;
    case t::int4:
      if (parse_integer<std::int32_t>(s, i)) return i;
      break;
    case t::int8:
      if (parse_integer<std::int64_t>(s, i)) return i;
      break;
    case t::oid:
      if (parse_integer<std::uint32_t>(s, i)) return i;
      break;
    case t::float4:
      if (float f = 0; parse_float(s, f)) return double{f};
      break;
    case t::float8:
      if (double d = 0; parse_float(s, d)) return d;
      break;
    case t::numeric:
      if (!is_numeric_text(s)) return fail(errc::decode_failure);
      return numeric(trusted, borrowed_or_owned<char>::borrow(s.data(), s.size()));
    case t::bytea: return cast_bytea_hex(s);
    case t::money: return cast_money(s);
    case t::json:
    case t::jsonb: return json(text::borrow(s));
    case t::text:
    case t::varchar:
    case t::bpchar:
    case t::name: break;  // the common string types, without the array lookup of `default`
    case t::date:
      if (std::int32_t days = 0; parse_date(s, days)) return date(days);
      break;
    case t::time:
      if (parse_time(s, i)) return time_of_day(i);
      break;
    case t::timestamp:
      if (parse_timestamp(s, false, i)) return timestamp(i);
      break;
    case t::timestamptz:
      if (parse_timestamp(s, true, i)) return timestamptz(i);
      break;
    case t::uuid:
      if (std::array<std::uint8_t, 16> bytes{}; parse_uuid(s, bytes)) return uuid(bytes);
      break;
    default:
      if (const auto element = t::element_of(type_oid); element != 0) {
        auto parsed = array_text_reader(element, s).read();
        if (!parsed) return unexpected<std::error_code>(parsed.error());
        if (*parsed) return std::move(**parsed);
      }
      break;
  }
  // The original string: text, varchar, bpchar, name, "char", xml, interval, timetz, unknown types,
  // and any value not in its type's shape.
  return text::borrow(s);
}

}  // namespace replicant::detail

#endif  // REPLICANT_MODEL_DETAIL_CAST_TEXT_HPP
