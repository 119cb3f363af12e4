// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_DETAIL_PG_FORMAT_HPP
#define REPLICANT_MODEL_DETAIL_PG_FORMAT_HPP

// Writers for PostgreSQL's text output forms under the session settings replicant pins
// (DateStyle=ISO, IntervalStyle=postgres, TimeZone=UTC, extra_float_digits=3). Two users:
//  - the binary cast path, which must produce exactly the raw text the text path would carry for
//    interval, timetz, numeric and money (the same value either way, whichever mode is on);
//  - replicant::to_string, the explicit "show me this value" API.
// Each routine mirrors the server's own (src/backend/utils/adt/datetime.c EncodeDateTime,
// EncodeInterval, AppendSeconds, EncodeTimezone; numeric.c get_str_from_var; float.c float8out),
// re-derived here; nothing depends on the C locale.
//
// The writers are generic over the output: a std::string for to_string, or a fixed stack buffer on
// the binary cast path, where the result is then copied once into the value's own allocation.

#include <replicant/core/detail/calendar.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <system_error>

namespace replicant::detail {

// A character sink over memory the caller has sized: no bounds checks, no allocation. The callers
// compute the worst-case length of what they write (see the capacities in cast_binary.hpp).
class char_writer {
 public:
  explicit char_writer(char* at) noexcept : begin_(at), at_(at) {}
  auto push_back(char c) noexcept -> void { *at_++ = c; }
  auto append(const char* s, std::size_t n) noexcept -> void {
    std::memcpy(at_, s, n);
    at_ += n;
  }
  auto append(std::size_t n, char c) noexcept -> void {
    std::memset(at_, c, n);
    at_ += n;
  }
  [[nodiscard]] auto size() const noexcept -> std::size_t { return static_cast<std::size_t>(at_ - begin_); }

 private:
  char* begin_;
  char* at_;
};

// The same, with its own stack storage, for outputs of known maximum length.
template <std::size_t Capacity>
class stack_text {
 public:
  stack_text() noexcept = default;
  stack_text(const stack_text&) = delete;
  auto operator=(const stack_text&) -> stack_text& = delete;
  auto push_back(char c) noexcept -> void { chars_[size_++] = c; }
  auto append(const char* s, std::size_t n) noexcept -> void {
    std::memcpy(chars_ + size_, s, n);
    size_ += n;
  }
  auto append(std::size_t n, char c) noexcept -> void {
    std::memset(chars_ + size_, c, n);
    size_ += n;
  }
  [[nodiscard]] auto view() const noexcept -> std::string_view { return {chars_, size_}; }

 private:
  char chars_[Capacity];
  std::size_t size_ = 0;
};

template <class Out>
auto put(Out& out, std::string_view s) -> void {
  out.append(s.data(), s.size());
}

// Appends v in decimal, left-padded with zeros to at least `width` digits. Digit by digit through
// push_back: these runs are 1 to 4 characters long, where a call to memcpy costs more than the copy.
template <class Out>
auto append_padded(Out& out, std::uint64_t v, int width) -> void {
  char buf[20];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (int i = n; i < width; ++i) out.push_back('0');
  while (n > 0) out.push_back(buf[--n]);
}

template <class Out>
auto append_signed(Out& out, std::int64_t v) -> void {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<std::size_t>(r.ptr - buf));
}

// Magnitude of a signed value without overflow for the most negative one.
[[nodiscard]] constexpr auto magnitude(std::int64_t v) noexcept -> std::uint64_t {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

// Two-digit seconds, then '.' and the microseconds without trailing zeros when there are any
// (AppendSeconds with fillzeros and precision 6).
template <class Out>
auto append_seconds(Out& out, std::uint64_t seconds, std::uint64_t micros) -> void {
  append_padded(out, seconds, 2);
  if (micros == 0) return;
  char frac[6];
  for (int i = 5; i >= 0; --i) {
    frac[i] = static_cast<char>('0' + micros % 10);
    micros /= 10;
  }
  std::size_t len = 6;
  while (frac[len - 1] == '0') --len;
  out.push_back('.');
  out.append(frac, len);
}

// "HH:MM:SS[.ffffff]" for a time of day in [0, 24:00:00].
template <class Out>
auto append_time_of_day(Out& out, std::int64_t micros) -> void {
  const auto u = magnitude(micros);
  append_padded(out, u / usecs_per_hour, 2);
  out.push_back(':');
  append_padded(out, u % usecs_per_hour / usecs_per_minute, 2);
  out.push_back(':');
  append_seconds(out, u % usecs_per_minute / usecs_per_second, u % usecs_per_second);
}

// "YYYY-MM-DD" with the year as PostgreSQL prints it under ISO: at least four digits, and for
// astronomical years <= 0 the BC year (1 - year); the caller appends " BC" after any time and offset.
template <class Out>
auto append_ymd(Out& out, const civil_date& d) -> void {
  const std::int64_t shown = d.year > 0 ? d.year : 1 - d.year;
  append_padded(out, static_cast<std::uint64_t>(shown), 4);
  out.push_back('-');
  append_padded(out, d.month, 2);
  out.push_back('-');
  append_padded(out, d.day, 2);
}

// The UTC offset for `seconds_west` (PostgreSQL's sign convention: positive is west of Greenwich,
// printed with '-'): "+HH", "+HH:MM" or "+HH:MM:SS", the shortest that is exact.
template <class Out>
auto append_utc_offset(Out& out, std::int64_t seconds_west) -> void {
  out.push_back(seconds_west <= 0 ? '+' : '-');
  const auto a = magnitude(seconds_west);
  const auto hours = a / 3600;
  const auto minutes = a / 60 % 60;
  const auto seconds = a % 60;
  append_padded(out, hours, 2);
  if (seconds != 0 || minutes != 0) {
    out.push_back(':');
    append_padded(out, minutes, 2);
  }
  if (seconds != 0) {
    out.push_back(':');
    append_padded(out, seconds, 2);
  }
}

// date_out: days since 2000-01-01, with INT32_MIN/INT32_MAX meaning -infinity/infinity.
template <class Out>
auto append_date(Out& out, std::int32_t pg_days) -> void {
  if (pg_days == std::numeric_limits<std::int32_t>::max()) return put(out, "infinity");
  if (pg_days == std::numeric_limits<std::int32_t>::min()) return put(out, "-infinity");
  const auto d = civil_from_days(std::int64_t{pg_days} + pg_epoch_unix_days);
  append_ymd(out, d);
  if (d.year <= 0) put(out, " BC");
}

// timestamp_out / timestamptz_out (TimeZone=UTC, so the offset is always "+00"): microseconds since
// 2000-01-01 00:00:00, with INT64_MIN/INT64_MAX meaning -infinity/infinity.
template <class Out>
auto append_timestamp(Out& out, std::int64_t pg_micros, bool with_offset) -> void {
  if (pg_micros == std::numeric_limits<std::int64_t>::max()) return put(out, "infinity");
  if (pg_micros == std::numeric_limits<std::int64_t>::min()) return put(out, "-infinity");
  const auto d = civil_from_days(floor_div<usecs_per_day>(pg_micros) + pg_epoch_unix_days);
  append_ymd(out, d);
  out.push_back(' ');
  append_time_of_day(out, floor_mod<usecs_per_day>(pg_micros));
  if (with_offset) put(out, "+00");
  if (d.year <= 0) put(out, " BC");
}

// timetz_out: the time of day, then the zone offset.
template <class Out>
auto append_timetz(Out& out, std::int64_t micros, std::int32_t seconds_west) -> void {
  append_time_of_day(out, micros);
  append_utc_offset(out, seconds_west);
}

// interval_out under IntervalStyle=postgres. Fields are split with truncating division, so every
// part carries the sign of its source field; a nonzero year/month/day part makes the next part print
// an explicit '+' when positive ("-1 days +02:00:00"). PostgreSQL 17 added infinite intervals
// (every field at its maximum or minimum); they print as "infinity" / "-infinity".
// Longest output: "-178956970 years -8 mons -2147483648 days -2562047788:00:54.775808" (68 chars).
template <class Out>
auto append_interval(Out& out, std::int32_t months, std::int32_t days, std::int64_t micros) -> void {
  constexpr auto i32_max = std::numeric_limits<std::int32_t>::max();
  constexpr auto i32_min = std::numeric_limits<std::int32_t>::min();
  if (months == i32_max && days == i32_max && micros == std::numeric_limits<std::int64_t>::max())
    return put(out, "infinity");
  if (months == i32_min && days == i32_min && micros == std::numeric_limits<std::int64_t>::min())
    return put(out, "-infinity");
  bool is_zero = true;
  bool is_before = false;
  const auto add_part = [&](std::int64_t v, std::string_view unit) {
    if (v == 0) return;
    if (!is_zero) out.push_back(' ');
    if (is_before && v > 0) out.push_back('+');
    append_signed(out, v);
    out.push_back(' ');
    put(out, unit);
    if (v != 1) out.push_back('s');
    is_before = v < 0;
    is_zero = false;
  };
  add_part(months / 12, "year");
  add_part(months % 12, "mon");
  add_part(days, "day");
  const std::int64_t hours = micros / usecs_per_hour;
  const std::int64_t minutes = micros % usecs_per_hour / usecs_per_minute;
  const std::int64_t seconds = micros % usecs_per_minute / usecs_per_second;
  const std::int64_t fraction = micros % usecs_per_second;
  if (is_zero || micros != 0) {
    const bool minus = hours < 0 || minutes < 0 || seconds < 0 || fraction < 0;
    if (!is_zero) out.push_back(' ');
    if (minus) {
      out.push_back('-');
    } else if (is_before) {
      out.push_back('+');
    }
    append_padded(out, magnitude(hours), 2);
    out.push_back(':');
    append_padded(out, magnitude(minutes), 2);
    out.push_back(':');
    append_seconds(out, magnitude(seconds), magnitude(fraction));
  }
}

// float4out / float8out with extra_float_digits > 0: the shortest text that reads back to the same
// value, in fixed notation when the decimal exponent is in [-4, 15) for float8 or [-4, 6) for float4,
// otherwise d.ddde+XX. std::to_chars gives the same shortest digits; only the layout is PostgreSQL's.
template <class Out, class Float>
auto append_float(Out& out, Float v) -> void {
  if (std::isnan(v)) return put(out, "NaN");
  if (std::isinf(v)) return put(out, v < 0 ? "-Infinity" : "Infinity");
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));
  const auto e_at = sci.find('e');
  int exponent = 0;
  std::from_chars(sci.data() + e_at + (sci[e_at + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exponent);
  constexpr int fixed_limit = sizeof(Float) == 4 ? 6 : 15;
  if (exponent < -4 || exponent >= fixed_limit) return put(out, sci);
  std::string_view mantissa = sci.substr(0, e_at);
  if (mantissa.front() == '-') {
    out.push_back('-');
    mantissa.remove_prefix(1);
  }
  char digits[32];  // the significant digits without the point (at most 17)
  std::size_t count = 0;
  for (const char c : mantissa)
    if (c != '.') digits[count++] = c;
  if (exponent < 0) {
    put(out, "0.");
    out.append(static_cast<std::size_t>(-exponent - 1), '0');
    out.append(digits, count);
    return;
  }
  const auto int_len = static_cast<std::size_t>(exponent) + 1;
  if (count <= int_len) {
    out.append(digits, count);
    out.append(int_len - count, '0');
  } else {
    out.append(digits, int_len);
    out.push_back('.');
    out.append(digits + int_len, count - int_len);
  }
}

// numeric_out for a finite value given as base-10000 digits (the send/recv form), `group(i)` being
// the i-th digit: the integer part without leading zeros, then exactly `dscale` fraction digits.
// Writes at most numeric_text_capacity(weight, dscale) characters. A value that prints as zero
// carries no sign, matching how the server normalises zero; `negative` is applied by the caller,
// which learns from the return value whether any printed digit is nonzero.
[[nodiscard]] constexpr auto numeric_text_capacity(std::int32_t weight, std::int32_t dscale) noexcept -> std::size_t {
  const std::size_t int_digits = weight < 0 ? 1 : 4 * (static_cast<std::size_t>(weight) + 1);
  return 1 + int_digits + 1 + static_cast<std::size_t>(dscale) + 4;
}

template <class Out, class Group>
auto append_numeric_digits(Out& out, std::int32_t weight, std::int32_t dscale, Group group) -> bool {
  bool nonzero = false;
  bool started = false;
  for (std::int64_t i = 0; i <= weight; ++i) {
    const std::uint16_t g = group(i);
    nonzero = nonzero || g != 0;
    if (started) {
      append_padded(out, g, 4);
    } else if (g != 0) {
      append_padded(out, g, 1);  // the first nonzero group, without leading zeros
      started = true;
    }
  }
  if (!started) out.push_back('0');
  if (dscale > 0) {
    out.push_back('.');
    std::int64_t left = dscale;
    for (std::int64_t i = std::int64_t{weight} + 1; left > 0; ++i) {
      const std::uint16_t g = group(i);
      const char four[4] = {static_cast<char>('0' + g / 1000), static_cast<char>('0' + g / 100 % 10),
                            static_cast<char>('0' + g / 10 % 10), static_cast<char>('0' + g % 10)};
      const auto take = static_cast<std::size_t>(left < 4 ? left : 4);
      for (std::size_t k = 0; k < take; ++k) {
        nonzero = nonzero || four[k] != '0';
        out.push_back(four[k]);
      }
      left -= 4;
    }
  }
  return nonzero;
}

// A money amount in its smallest unit as the exact decimal the C locale shows (two fraction digits).
// At most 21 characters.
template <class Out>
auto append_cents(Out& out, std::int64_t cents) -> void {
  if (cents < 0) out.push_back('-');
  const auto a = magnitude(cents);
  append_padded(out, a / 100, 1);
  out.push_back('.');
  append_padded(out, a % 100, 2);
}

inline constexpr char hex_digits_lower[] = "0123456789abcdef";

}  // namespace replicant::detail

#endif  // REPLICANT_MODEL_DETAIL_PG_FORMAT_HPP
