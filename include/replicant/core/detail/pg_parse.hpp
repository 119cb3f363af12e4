// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_PG_PARSE_HPP
#define REPLICANT_CORE_DETAIL_PG_PARSE_HPP

// Readers for the text output forms PostgreSQL produces under the settings replicant pins
// (DateStyle=ISO, TimeZone=UTC, extra_float_digits=3, bytea_output=hex). They accept what the server
// prints, not everything its input functions would: anything else is reported as "not this shape"
// (false / std::nullopt) and the caller decides between delivering the original string and a
// decode failure. Hand-written digit loops and std::from_chars only: no locale, no allocation.

#include <replicant/core/detail/calendar.hpp>

#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

namespace replicant::detail {

[[nodiscard]] constexpr auto is_digit(char c) noexcept -> bool { return c >= '0' && c <= '9'; }

[[nodiscard]] constexpr auto hex_value(char c) noexcept -> int {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A forward-only view over the text being parsed.
class text_cursor {
 public:
  constexpr explicit text_cursor(std::string_view s) noexcept : s_(s) {}

  [[nodiscard]] constexpr auto done() const noexcept -> bool { return s_.empty(); }
  [[nodiscard]] constexpr auto rest() const noexcept -> std::string_view { return s_; }

  // Consumes `c` if it is next.
  constexpr auto eat(char c) noexcept -> bool {
    if (s_.empty() || s_.front() != c) return false;
    s_.remove_prefix(1);
    return true;
  }

  constexpr auto eat(std::string_view word) noexcept -> bool {
    if (s_.substr(0, word.size()) != word) return false;
    s_.remove_prefix(word.size());
    return true;
  }

  // Exactly `n` decimal digits.
  constexpr auto fixed(std::size_t n, std::int64_t& out) noexcept -> bool {
    if (s_.size() < n) return false;
    std::int64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_digit(s_[i])) return false;
      v = v * 10 + (s_[i] - '0');
    }
    out = v;
    s_.remove_prefix(n);
    return true;
  }

  // Between `min` and `max` decimal digits (greedy); `max` <= 18 keeps the value in range.
  constexpr auto between(std::size_t min, std::size_t max, std::int64_t& out, std::size_t* count = nullptr) noexcept
      -> bool {
    std::size_t n = 0;
    std::int64_t v = 0;
    while (n < s_.size() && n < max && is_digit(s_[n])) {
      v = v * 10 + (s_[n] - '0');
      ++n;
    }
    if (n < min || (n < s_.size() && n == max && is_digit(s_[n]))) return false;
    out = v;
    if (count != nullptr) *count = n;
    s_.remove_prefix(n);
    return true;
  }

 private:
  std::string_view s_;
};

// "YYYY-MM-DD" (four or more year digits) as days since 2000-01-01 and the printed year; the
// " BC" suffix, which comes after any time and offset, is applied by the caller via `bc`.
struct ymd_fields {
  std::int64_t year;
  std::int64_t month;
  std::int64_t day;
};

[[nodiscard]] constexpr auto read_ymd(text_cursor& in, ymd_fields& out) noexcept -> bool {
  return in.between(4, 9, out.year) && in.eat('-') && in.fixed(2, out.month) && in.eat('-') && in.fixed(2, out.day) &&
         out.month >= 1 && out.month <= 12 && out.day >= 1 && out.year >= 1;
}

// Days since 2000-01-01 once the era is known; false for a day the month does not have.
[[nodiscard]] constexpr auto ymd_days(const ymd_fields& f, bool bc, std::int64_t& days) noexcept -> bool {
  const std::int64_t year = bc ? 1 - f.year : f.year;
  const auto month = static_cast<unsigned>(f.month);
  if (static_cast<unsigned>(f.day) > days_in_month(year, month)) return false;
  days = days_from_civil(year, month, static_cast<unsigned>(f.day)) - pg_epoch_unix_days;
  return true;
}

// "HH:MM:SS[.f{1,6}]" as microseconds; hours up to `max_hour` (24 for time, 23 in a timestamp),
// and 24 only as exactly 24:00:00.
[[nodiscard]] constexpr auto read_time(text_cursor& in, std::int64_t max_hour, std::int64_t& micros) noexcept -> bool {
  std::int64_t h = 0;
  std::int64_t m = 0;
  std::int64_t s = 0;
  std::int64_t frac = 0;
  if (!(in.fixed(2, h) && in.eat(':') && in.fixed(2, m) && in.eat(':') && in.fixed(2, s))) return false;
  if (in.eat('.')) {
    std::size_t n = 0;
    if (!in.between(1, 6, frac, &n)) return false;
    for (; n < 6; ++n) frac *= 10;
  }
  if (h > max_hour || m > 59 || s > 59) return false;
  if (h == 24 && (m != 0 || s != 0 || frac != 0)) return false;
  micros = h * usecs_per_hour + m * usecs_per_minute + s * usecs_per_second + frac;
  return true;
}

// "+HH", "+HH:MM" or "+HH:MM:SS" (either sign) as seconds EAST of UTC.
[[nodiscard]] constexpr auto read_offset(text_cursor& in, std::int64_t& seconds_east) noexcept -> bool {
  bool negative = false;
  if (in.eat('-')) {
    negative = true;
  } else if (!in.eat('+')) {
    return false;
  }
  std::int64_t h = 0;
  std::int64_t m = 0;
  std::int64_t s = 0;
  if (!in.fixed(2, h)) return false;
  if (in.eat(':')) {
    if (!in.fixed(2, m)) return false;
    if (in.eat(':') && !in.fixed(2, s)) return false;
  }
  if (h > 15 || m > 59 || s > 59) return false;  // PostgreSQL limits offsets to +-15:59:59
  seconds_east = (h * 3600 + m * 60 + s) * (negative ? -1 : 1);
  return true;
}

// The parsers below report success as a bool and write the result through a reference. A
// std::optional<std::int64_t> return looks tidier but makes GCC store the engaged flag as one byte and
// reload it as eight, a store-forwarding stall that cost more than the parsing itself.

// Two decimal digits at p, or -1.
[[nodiscard]] constexpr auto two_digits(const char* p) noexcept -> std::int64_t {
  const auto hi = static_cast<unsigned>(p[0] - '0');
  const auto lo = static_cast<unsigned>(p[1] - '0');
  return hi <= 9 && lo <= 9 ? static_cast<std::int64_t>(hi * 10 + lo) : -1;
}

// "YYYY-MM-DD" with a four-digit AD year at the start of s, read at fixed positions (the shape of
// nearly every date). Validity checks are folded into one flag rather than a chain of early returns:
// GCC otherwise predicts the conversion at the end as almost never reached and compiles its
// divisions as real idiv instructions.
[[nodiscard]] constexpr auto read_common_ymd(const char* p, std::int64_t& days) noexcept -> bool {
  const std::int64_t y1 = two_digits(p);
  const std::int64_t y2 = two_digits(p + 2);
  const std::int64_t month = two_digits(p + 5);
  const std::int64_t day = two_digits(p + 8);
  const std::int64_t year = y1 * 100 + y2;
  bool ok = p[4] == '-' && p[7] == '-' && (y1 | y2 | month | day) >= 0;
  ok = ok && year >= 1 && month >= 1 && month <= 12 && day >= 1;
  ok = ok && (day <= 28 || static_cast<unsigned>(day) <= days_in_month(year, static_cast<unsigned>(month)));
  if (!ok) return false;
  days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) - pg_epoch_unix_days;
  return true;
}

// date_out: "YYYY-MM-DD[ BC]", "infinity", "-infinity". Days since 2000-01-01.
[[nodiscard]] constexpr auto parse_date(std::string_view text, std::int32_t& out) noexcept -> bool {
  std::int64_t days = 0;
  if (text.size() == 10 && read_common_ymd(text.data(), days)) {
    out = static_cast<std::int32_t>(days);
    return true;
  }
  if (text == "infinity" || text == "-infinity") {
    out = text[0] == '-' ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int32_t>::max();
    return true;
  }
  text_cursor in(text);
  ymd_fields f{};
  if (!read_ymd(in, f)) return false;
  const bool bc = in.eat(" BC");
  if (!in.done() || !ymd_days(f, bc, days) || days < pg_min_date_days || days > pg_max_date_days) return false;
  out = static_cast<std::int32_t>(days);
  return true;
}

// time_out: "HH:MM:SS[.ffffff]" in [00:00:00, 24:00:00]. Microseconds since midnight.
[[nodiscard]] constexpr auto parse_time(std::string_view text, std::int64_t& micros) noexcept -> bool {
  text_cursor in(text);
  return read_time(in, 24, micros) && in.done();
}

// The common timestamp shape, at fixed positions: "YYYY-MM-DD HH:MM:SS[.f{1,6}]" with a four-digit
// AD year, then "+00" for timestamptz (what TimeZone=UTC prints). False when the text is not exactly
// that shape; the caller then uses the general reader, so this path never decides that a value is
// malformed.
[[nodiscard]] constexpr auto parse_common_timestamp(std::string_view s, bool with_offset, std::int64_t& out) noexcept
    -> bool {
  if (s.size() < 19) return false;
  const char* p = s.data();
  const std::int64_t hour = two_digits(p + 11);
  const std::int64_t minute = two_digits(p + 14);
  const std::int64_t second = two_digits(p + 17);
  bool ok = p[10] == ' ' && p[13] == ':' && p[16] == ':' && (hour | minute | second) >= 0;
  ok = ok && hour <= 23 && minute <= 59 && second <= 59;
  std::size_t at = 19;
  std::int64_t fraction = 0;
  if (ok && at < s.size() && s[at] == '.') {
    std::size_t n = 0;
    for (++at; at < s.size() && n < 6 && is_digit(s[at]); ++at, ++n) fraction = fraction * 10 + (s[at] - '0');
    ok = n != 0;
    for (; n < 6; ++n) fraction *= 10;
  }
  if (ok && with_offset) {
    ok = s.size() - at >= 3 && s[at] == '+' && s[at + 1] == '0' && s[at + 2] == '0';
    at += 3;
  }
  std::int64_t days = 0;
  if (!ok || at != s.size() || !read_common_ymd(p, days)) return false;
  out = days * usecs_per_day + hour * usecs_per_hour + minute * usecs_per_minute + second * usecs_per_second + fraction;
  return true;
}

// timestamp_out / timestamptz_out: "YYYY-MM-DD HH:MM:SS[.ffffff][offset][ BC]", "infinity",
// "-infinity". Microseconds since 2000-01-01 00:00:00 (UTC for timestamptz, whose offset, +00 under
// TimeZone=UTC but any valid one accepted, is folded in).
[[nodiscard]] constexpr auto parse_timestamp(std::string_view text, bool with_offset, std::int64_t& out) noexcept
    -> bool {
  if (parse_common_timestamp(text, with_offset, out)) return true;
  if (text == "infinity" || text == "-infinity") {
    out = text[0] == '-' ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
    return true;
  }
  text_cursor in(text);
  ymd_fields f{};
  std::int64_t micros = 0;
  std::int64_t offset = 0;
  std::int64_t days = 0;
  if (!read_ymd(in, f) || !in.eat(' ') || !read_time(in, 23, micros)) return false;
  if (with_offset && !read_offset(in, offset)) return false;
  const bool bc = in.eat(" BC");
  if (!in.done() || !ymd_days(f, bc, days)) return false;
  // Bounding the day first (a day of slack each side for the offset) keeps the arithmetic in int64
  // range; then the instant must lie in PostgreSQL's [MIN_TIMESTAMP, END_TIMESTAMP).
  if (days < pg_min_date_days - 1 || days > pg_timestamp_end_days) return false;
  const std::int64_t at = days * usecs_per_day + micros - offset * usecs_per_second;
  if (at < pg_min_date_days * usecs_per_day || at >= pg_timestamp_end_days * usecs_per_day) return false;
  out = at;
  return true;
}

// Value of every byte as a hex digit, or -1: a table lookup is branch-free, which keeps uuid and
// bytea decoding (long runs of hex digits) fast.
inline constexpr auto hex_table = [] {
  std::array<std::int8_t, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(hex_value(static_cast<char>(c)));
  return t;
}();

[[nodiscard]] constexpr auto hex_of(char c) noexcept -> int { return hex_table[static_cast<unsigned char>(c)]; }

// uuid_out: 8-4-4-4-12 hex digits (either case).
[[nodiscard]] constexpr auto parse_uuid(std::string_view text, std::array<std::uint8_t, 16>& out) noexcept -> bool {
  if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-') return false;
  // Byte i starts at offsets[i]: the digit pairs between the four dashes.
  constexpr std::array<std::uint8_t, 16> offsets = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
  int bad = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    const int hi = hex_of(text[offsets[i]]);
    const int lo = hex_of(text[offsets[i] + 1U]);
    bad |= hi | lo;  // any -1 sets the sign bit
    out[i] = static_cast<std::uint8_t>(((hi & 0xF) << 4) | (lo & 0xF));
  }
  return bad >= 0;
}

// numeric_out: "-?D+(.D+)?", "NaN", "Infinity", "-Infinity".
[[nodiscard]] constexpr auto is_numeric_text(std::string_view text) noexcept -> bool {
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  const std::size_t int_start = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i == int_start) return text == "NaN" || text == "Infinity" || text == "-Infinity";
  if (i == text.size()) return true;
  if (text[i] != '.') return false;
  const std::size_t frac_start = ++i;
  while (i < text.size() && is_digit(text[i])) ++i;
  return i != frac_start && i == text.size();
}

// float4out / float8out: "NaN", "Infinity", "-Infinity" or a decimal std::from_chars reads exactly.
template <class Float>
[[nodiscard]] auto parse_float(std::string_view text, Float& out) noexcept -> bool {
  // from_chars would also take "nan", "inf" and hex forms the server never prints: insist on digits.
  const bool digit_first =
      !text.empty() && (is_digit(text.front()) || (text.front() == '-' && text.size() > 1 && is_digit(text[1])));
  if (!digit_first) {
    if (text == "NaN") {
      out = std::numeric_limits<Float>::quiet_NaN();
    } else if (text == "Infinity" || text == "-Infinity") {
      out = text[0] == '-' ? -std::numeric_limits<Float>::infinity() : std::numeric_limits<Float>::infinity();
    } else {
      return false;
    }
    return true;
  }
  const auto r = std::from_chars(text.data(), text.data() + text.size(), out, std::chars_format::general);
  return r.ec == std::errc{} && r.ptr == text.data() + text.size();
}

// A whole-text decimal integer of type Int (the type's own range is the check). It accepts exactly
// what std::from_chars accepts for Int (a '-' for signed types only, no '+', no spaces, any number of
// leading zeros), in about half the instructions for the short numbers integer columns mostly hold
// (benchmarks/decode); it matters because nearly every row has an integer key.
template <class Int>
[[nodiscard]] constexpr auto parse_integer(std::string_view text, std::int64_t& out) noexcept -> bool {
  static_assert(std::numeric_limits<Int>::is_integer);
  // Every value must fit `out`, which also bounds the magnitudes the loop below has to handle.
  static_assert(static_cast<std::uint64_t>(std::numeric_limits<Int>::max()) <=
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  const char* p = text.data();
  const char* const end = p + text.size();
  bool negative = false;
  if constexpr (std::numeric_limits<Int>::is_signed) {
    if (p != end && *p == '-') {
      negative = true;
      ++p;
    }
  }
  if (p == end) return false;
  // The largest magnitude allowed: one more on the negative side (two's complement).
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<Int>::max());
  const std::uint64_t limit = negative ? max + 1 : max;
  std::uint64_t v = 0;
  for (; p != end; ++p) {
    const auto digit = static_cast<unsigned char>(*p) - static_cast<unsigned>('0');
    if (digit > 9) return false;
    // v <= limit <= 2^63 here, so for 64-bit types v * 10 could still wrap: a v above this bound
    // fails first, which is right because v * 10 would then exceed every limit anyway.
    if constexpr (sizeof(Int) == sizeof(std::uint64_t)) {
      if (v > 1'844'674'407'370'955'160U) return false;
    }
    v = v * 10 + digit;
    if (v > limit) return false;
  }
  // Negation in unsigned arithmetic, then a modular conversion (defined since C++20): exact for the
  // most negative value too.
  out = static_cast<std::int64_t>(negative ? 0 - v : v);
  return true;
}

// cash_out under lc_monetary C or en_US: "$1,234.56", "-$5.00", or ungrouped "$1234567.89". The
// digits must be grouped in threes throughout or not at all, with exactly two fraction digits; any
// other shape (another locale's symbol, separators or sign placement) is not recognised, because
// guessing a locale could turn 1.234,56 into a wrong amount.
struct money_shape {
  bool negative;
  std::string_view digits;  // integer part as printed, separators included
  std::string_view cents;   // the two fraction digits
};

[[nodiscard]] constexpr auto parse_money(std::string_view text) noexcept -> std::optional<money_shape> {
  money_shape out{false, {}, {}};
  if (!text.empty() && text.front() == '-') {
    out.negative = true;
    text.remove_prefix(1);
  }
  if (text.empty() || text.front() != '$') return std::nullopt;
  text.remove_prefix(1);
  const auto dot = text.find('.');
  if (dot == std::string_view::npos || text.size() - dot != 3) return std::nullopt;
  out.digits = text.substr(0, dot);
  out.cents = text.substr(dot + 1);
  if (!is_digit(out.cents[0]) || !is_digit(out.cents[1]) || out.digits.empty()) return std::nullopt;
  const bool grouped = out.digits.find(',') != std::string_view::npos;
  // Ungrouped: digits only. Grouped: 1-3 leading digits, then ",ddd" groups.
  std::size_t run = 0;
  bool first_group = true;
  for (char c : out.digits) {
    if (is_digit(c)) {
      ++run;
      if (grouped && run > 3) return std::nullopt;
    } else if (c == ',' && grouped && run >= 1 && (first_group || run == 3)) {
      run = 0;
      first_group = false;
    } else {
      return std::nullopt;
    }
  }
  if (run == 0 || (grouped && run != 3)) return std::nullopt;
  return out;
}

}  // namespace replicant::detail

#endif  // REPLICANT_CORE_DETAIL_PG_PARSE_HPP
