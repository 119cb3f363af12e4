// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_VALUE_HPP
#define REPLICANT_MODEL_VALUE_HPP

/// @file
/// replicant::value: one column value of a replicated row, typed from its PostgreSQL type.
///
/// The mapping from PostgreSQL types to the alternatives below, and the edge cases (infinities, BC
/// dates, money under other locales, arrays), are described in docs/casting.md; the function that
/// produces values from pgoutput column data is replicant::cast_text (and cast_binary) in cast.hpp.
/// Every alternative, and what `to_string` prints, are listed in docs/reference/values.md.
///
/// Ownership: values decoded from a replication frame *borrow* the frame's bytes for their text-like
/// parts (text, json, numeric digits, bytea in binary mode), so decoding a row allocates nothing for
/// those columns. Such a value is valid only while the frame is, which is until the sink callback
/// returns. Call value::own() to make a value independent of the frame before keeping it longer.
///
/// Values are row data, and row data is secret: nothing in replicant puts a value into an error, a log
/// line or a telemetry event. `to_string` below exists for the *user's* explicit use only, and on
/// purpose there is no `operator<<`, so a value cannot be streamed into a log by accident.

#include <replicant/core/detail/calendar.hpp>
#include <replicant/core/detail/config.hpp>
#include <replicant/core/detail/pg_parse.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/detail/borrowed_or_owned.hpp>
#include <replicant/model/detail/pg_format.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace replicant {

/**
 * Which alternative a @ref replicant::value holds, in the order of value::variant_type.
 * (Declared first so that its enumerators do not shadow the types of the same names.)
 */
enum class value_kind : std::uint8_t {
  null,         ///< SQL NULL
  boolean,      ///< `bool`
  int64,        ///< `int2`, `int4`, `int8`, `oid` as `std::int64_t`
  float64,      ///< `float4`, `float8` as `double`
  numeric,      ///< exact decimal (`numeric`; `money` in the C/en_US shape)
  text,         ///< strings, raw `interval`/`timetz`, uncast types
  bytea,        ///< bytes
  date,         ///< `date`
  time,         ///< `time`
  timestamp,    ///< `timestamp`
  timestamptz,  ///< `timestamptz`
  uuid,         ///< `uuid`
  json,         ///< `json`, `jsonb`
  array,        ///< any array
};

namespace detail {
/// Tag for constructors the casting code uses on text it has already validated or produced.
struct trusted_t {
  explicit trusted_t() = default;
};
inline constexpr trusted_t trusted{};

template <class T, class Variant>
inline constexpr bool is_variant_alternative = false;
template <class T, class... Ts>
inline constexpr bool is_variant_alternative<T, std::variant<Ts...>> = (std::is_same_v<T, Ts> || ...);
}  // namespace detail

/**
 * SQL NULL: the state of a column (or array element) that has no value.
 *
 * @par Thread safety
 * A stateless value type.
 */
struct null_t {
  /// Always true: there is only one NULL. Never throws.
  friend constexpr auto operator==(null_t, null_t) noexcept -> bool = default;
};

/// The NULL constant: `value v = replicant::null;`.
inline constexpr null_t null{};

/**
 * A string value in UTF-8 (the replication session's `client_encoding`): `text`, `varchar`,
 * `bpchar`, `name`, `"char"`, `xml`, the raw forms of `interval` and `timetz`, a `money` amount in a
 * locale replicant does not read, and every type replicant does not cast.
 *
 * It either borrows its bytes from the replication frame (the common case: no allocation) or owns a
 * copy. Copying preserves the mode; own() switches a borrowed string to an owned copy.
 *
 * @par Example
 * @code
 * if (const auto* name = row_value.get_if<replicant::text>()) {
 *   std::string_view sv = *name;  // implicit view
 *   std::string kept = name->str();
 * }
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: safe to read. A borrowed string is valid only while the
 * memory it borrows is.
 */
class text {
 public:
  /// The empty string. Never throws.
  constexpr text() noexcept = default;

  /// A string that points at @p s without copying; the caller keeps @p s alive. Never throws.
  [[nodiscard]] static constexpr auto borrow(std::string_view s) noexcept -> text {
    return text(detail::borrowed_or_owned<char>::borrow(s.data(), s.size()));
  }

  /// A string that owns a copy of @p s. @throws std::bad_alloc
  [[nodiscard]] static auto copy(std::string_view s) -> text {
    return text(detail::borrowed_or_owned<char>::copy(s.data(), s.size()));
  }

  /// Wraps storage produced by the casting code. Not for general use.
  constexpr text(detail::trusted_t, detail::borrowed_or_owned<char> storage) noexcept : chars_(std::move(storage)) {}

  /// The characters. Never throws.
  [[nodiscard]] constexpr auto view() const noexcept -> std::string_view { return {chars_.data(), chars_.size()}; }

  /// The characters, implicitly: a `text` can be passed wherever a `std::string_view` is expected.
  constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT(google-explicit-constructor)

  /// An owned `std::string` copy. @throws std::bad_alloc
  [[nodiscard]] auto str() const -> std::string { return std::string(view()); }

  /// Length in bytes. Never throws.
  [[nodiscard]] constexpr auto size() const noexcept -> std::size_t { return chars_.size(); }

  /// Whether the string is empty. Never throws.
  [[nodiscard]] constexpr auto empty() const noexcept -> bool { return chars_.size() == 0; }

  /// False while the string borrows memory it does not own. Never throws.
  [[nodiscard]] constexpr auto is_owned() const noexcept -> bool { return chars_.is_owned() || empty(); }

  /// Copies borrowed characters into owned memory (no-op when already owned). @throws std::bad_alloc
  auto own() -> void { chars_.own(); }

  /// Byte-wise equality and ordering, as `std::string_view` compares.
  ///@{
  friend constexpr auto operator==(const text& a, const text& b) noexcept -> bool { return a.view() == b.view(); }
  friend constexpr auto operator==(const text& a, std::string_view b) noexcept -> bool { return a.view() == b; }
  friend constexpr auto operator<=>(const text& a, const text& b) noexcept -> std::strong_ordering {
    return a.view() <=> b.view();
  }
  ///@}

 private:
  constexpr explicit text(detail::borrowed_or_owned<char> storage) noexcept : chars_(std::move(storage)) {}

  detail::borrowed_or_owned<char> chars_;
};

/**
 * A `json` or `jsonb` value as its JSON text, unparsed. For `json` this is the text as written
 * (whitespace and key order preserved); for `jsonb` it is the server's normalised rendering.
 * Borrowed or owned exactly like @ref replicant::text.
 *
 * @par Thread safety
 * As @ref replicant::text.
 */
class json {
 public:
  /// An empty text (not a JSON document; PostgreSQL never delivers one). Never throws.
  constexpr json() noexcept = default;

  /// A JSON value whose text is @p raw (not validated). Never throws.
  constexpr explicit json(text raw) noexcept : raw_(std::move(raw)) {}

  /// The JSON text. Never throws.
  [[nodiscard]] constexpr auto view() const noexcept -> std::string_view { return raw_.view(); }

  /// The JSON text as a @ref replicant::text (e.g. to keep it). Never throws.
  [[nodiscard]] constexpr auto raw() const noexcept -> const text& { return raw_; }

  /// See text::is_owned(). Never throws.
  [[nodiscard]] constexpr auto is_owned() const noexcept -> bool { return raw_.is_owned(); }

  /// See text::own(). @throws std::bad_alloc
  auto own() -> void { raw_.own(); }

  /// Text equality: two JSON documents that differ only in spacing are *not* equal.
  friend constexpr auto operator==(const json& a, const json& b) noexcept -> bool { return a.raw_ == b.raw_; }

 private:
  text raw_;
};

/**
 * A `bytea` value: arbitrary bytes. In text mode the server's hex form (`\x...`) is decoded into an
 * owned buffer; in binary mode the bytes are borrowed from the frame.
 *
 * @par Thread safety
 * As @ref replicant::text.
 */
class bytea {
 public:
  /// No bytes. Never throws.
  constexpr bytea() noexcept = default;

  /// Bytes borrowed from @p bytes, which the caller keeps alive. Never throws.
  [[nodiscard]] static constexpr auto borrow(std::span<const std::byte> bytes) noexcept -> bytea {
    return bytea(detail::borrowed_or_owned<std::byte>::borrow(bytes.data(), bytes.size()));
  }

  /// An owned copy of @p bytes. @throws std::bad_alloc
  [[nodiscard]] static auto copy(std::span<const std::byte> bytes) -> bytea {
    return bytea(detail::borrowed_or_owned<std::byte>::copy(bytes.data(), bytes.size()));
  }

  /// Wraps storage produced by the casting code. Not for general use.
  constexpr bytea(detail::trusted_t, detail::borrowed_or_owned<std::byte> storage) noexcept
      : bytes_(std::move(storage)) {}

  /// The bytes. Never throws.
  [[nodiscard]] constexpr auto bytes() const noexcept -> std::span<const std::byte> {
    return {bytes_.data(), bytes_.size()};
  }

  /// Number of bytes. Never throws.
  [[nodiscard]] constexpr auto size() const noexcept -> std::size_t { return bytes_.size(); }

  /// Whether there are no bytes. Never throws.
  [[nodiscard]] constexpr auto empty() const noexcept -> bool { return bytes_.size() == 0; }

  /// See text::is_owned(). Never throws.
  [[nodiscard]] constexpr auto is_owned() const noexcept -> bool { return bytes_.is_owned() || empty(); }

  /// See text::own(). @throws std::bad_alloc
  auto own() -> void { bytes_.own(); }

  /// Byte-wise equality.
  friend auto operator==(const bytea& a, const bytea& b) noexcept -> bool {
    const auto x = a.bytes();
    const auto y = b.bytes();
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
  }

 private:
  constexpr explicit bytea(detail::borrowed_or_owned<std::byte> storage) noexcept : bytes_(std::move(storage)) {}

  detail::borrowed_or_owned<std::byte> bytes_;
};

namespace detail {

// Finite numeric text split into its parts, with the leading zeros of the integer part and the
// trailing zeros of the fraction removed, so that 007.50 and 7.5 split identically.
struct numeric_parts {
  bool negative;
  std::string_view integer;
  std::string_view fraction;
};

[[nodiscard]] constexpr auto split_numeric(std::string_view s) noexcept -> numeric_parts {
  numeric_parts p{false, {}, {}};
  if (!s.empty() && s.front() == '-') {
    p.negative = true;
    s.remove_prefix(1);
  }
  const auto dot = s.find('.');
  p.integer = s.substr(0, dot);
  p.fraction = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  while (!p.integer.empty() && p.integer.front() == '0') p.integer.remove_prefix(1);
  while (!p.fraction.empty() && p.fraction.back() == '0') p.fraction.remove_suffix(1);
  if (p.integer.empty() && p.fraction.empty()) p.negative = false;  // there is no negative zero
  return p;
}

// PostgreSQL's numeric ordering: -Infinity < every finite value < Infinity < NaN, and NaN == NaN.
[[nodiscard]] constexpr auto numeric_rank(std::string_view s) noexcept -> int {
  if (s == "NaN") return 3;
  if (s == "Infinity") return 2;
  if (s == "-Infinity") return 0;
  return 1;
}

[[nodiscard]] constexpr auto compare_numeric(std::string_view a, std::string_view b) noexcept -> std::weak_ordering {
  const int ra = numeric_rank(a);
  const int rb = numeric_rank(b);
  if (ra != rb || ra != 1) return ra <=> rb;
  const auto x = split_numeric(a);
  const auto y = split_numeric(b);
  if (x.negative != y.negative) return x.negative ? std::weak_ordering::less : std::weak_ordering::greater;
  auto magnitude = [&]() -> std::weak_ordering {
    if (x.integer.size() != y.integer.size()) return x.integer.size() <=> y.integer.size();
    if (const auto c = x.integer.compare(y.integer); c != 0) return c <=> 0;
    return x.fraction.compare(y.fraction) <=> 0;
  }();
  if (x.negative) return 0 <=> magnitude;
  return magnitude;
}

}  // namespace detail

/**
 * An exact decimal: a PostgreSQL `numeric` value (and a `money` amount in the C/en_US shape).
 *
 * The value is kept as its canonical text, exactly as the server prints it: an optional `-`, the
 * integer digits, and when the column's scale is positive a `.` and exactly that many fraction
 * digits (`"1.50"` keeps its trailing zero). Nothing is rounded, so 1000-digit values and large
 * scales survive unchanged. PostgreSQL 14 and later also have the special values `NaN`, `Infinity`
 * and `-Infinity`.
 *
 * Comparison follows PostgreSQL's numeric semantics: `1.5 == 1.50`, `NaN == NaN`, and
 * `-Infinity < finite < Infinity < NaN`. The ordering is weak because equal values may print
 * differently.
 *
 * @par Example
 * @code
 * auto n = replicant::numeric::parse("12345678901234567890.0100").value();
 * assert(n.scale() == 4);
 * double approx = n.to_double();
 * auto whole = n.to_int64();  // fails: result_out_of_range
 * @endcode
 *
 * @par Thread safety
 * As @ref replicant::text (the digits may borrow the frame).
 */
class numeric {
 public:
  /// Zero. Never throws.
  constexpr numeric() noexcept : digits_(detail::borrowed_or_owned<char>::borrow("0", 1)) {}

  /**
   * Reads numeric text in the server's output form: `-?D+(.D+)?`, `NaN`, `Infinity` or `-Infinity`.
   * The result borrows @p text; call own() to keep it longer.
   *
   * @return the value, or `errc::decode_failure` (which never repeats the input).
   * @par Exceptions
   * Never throws.
   */
  [[nodiscard]] static auto parse(std::string_view text) noexcept -> result<numeric> {
    if (!detail::is_numeric_text(text)) return fail(errc::decode_failure);
    return numeric(detail::trusted, detail::borrowed_or_owned<char>::borrow(text.data(), text.size()));
  }

  /// Wraps canonical text produced by the casting code. Not for general use.
  constexpr numeric(detail::trusted_t, detail::borrowed_or_owned<char> digits) noexcept : digits_(std::move(digits)) {}

  /// The canonical text, e.g. `"-12.50"`, `"NaN"`. Never throws.
  [[nodiscard]] constexpr auto view() const noexcept -> std::string_view { return {digits_.data(), digits_.size()}; }

  /// Whether this is `NaN`. Never throws.
  [[nodiscard]] constexpr auto is_nan() const noexcept -> bool { return view() == "NaN"; }

  /// Whether this is `Infinity` or `-Infinity`. Never throws.
  [[nodiscard]] constexpr auto is_infinite() const noexcept -> bool {
    return view() == "Infinity" || view() == "-Infinity";
  }

  /// Whether this is an ordinary number (neither NaN nor infinite). Never throws.
  [[nodiscard]] constexpr auto is_finite() const noexcept -> bool { return detail::numeric_rank(view()) == 1; }

  /// Whether the value is below zero (`-Infinity` included; zero is never negative). Never throws.
  [[nodiscard]] constexpr auto is_negative() const noexcept -> bool {
    return view() == "-Infinity" || (is_finite() && detail::split_numeric(view()).negative);
  }

  /// The number of digits after the decimal point, trailing zeros included (0 for the special
  /// values). Never throws.
  [[nodiscard]] constexpr auto scale() const noexcept -> std::size_t {
    const auto s = view();
    const auto dot = s.find('.');
    return is_finite() && dot != std::string_view::npos ? s.size() - dot - 1 : 0;
  }

  /**
   * The nearest `double` (correctly rounded). Values beyond the double range become +-infinity, and
   * values too small become +-0; NaN and the infinities map to their double counterparts.
   * Never throws.
   */
  [[nodiscard]] auto to_double() const noexcept -> double {
    const auto s = view();
    if (!is_finite()) {
      if (is_nan()) return std::numeric_limits<double>::quiet_NaN();
      return is_negative() ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    double v = 0.0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec == std::errc::result_out_of_range) {
      const auto p = detail::split_numeric(s);
      v = p.integer.empty() ? 0.0 : std::numeric_limits<double>::infinity();
      if (s.front() == '-') v = -v;
    }
    return v;
  }

  /**
   * The value as a 64-bit integer, when it is one.
   *
   * @return the integer, or `std::errc::invalid_argument` (NaN, infinite, or a nonzero fraction:
   *         nothing is silently truncated) or `std::errc::result_out_of_range`. A fraction of zeros
   *         (`"42.000"`) is fine.
   * @par Exceptions
   * Never throws.
   */
  [[nodiscard]] auto to_int64() const noexcept -> result<std::int64_t> {
    if (!is_finite()) return unexpected<std::error_code>(std::make_error_code(std::errc::invalid_argument));
    const auto p = detail::split_numeric(view());
    if (!p.fraction.empty()) return unexpected<std::error_code>(std::make_error_code(std::errc::invalid_argument));
    constexpr std::uint64_t limit = std::uint64_t{1} << 63U;  // |INT64_MIN|
    std::uint64_t m = 0;
    for (const char c : p.integer) {
      const auto digit = static_cast<std::uint64_t>(c - '0');
      if (m > (limit - digit) / 10)
        return unexpected<std::error_code>(std::make_error_code(std::errc::result_out_of_range));
      m = m * 10 + digit;
    }
    if (p.negative) return static_cast<std::int64_t>(std::uint64_t{0} - m);
    if (m == limit) return unexpected<std::error_code>(std::make_error_code(std::errc::result_out_of_range));
    return static_cast<std::int64_t>(m);
  }

  /// See text::is_owned(). Never throws.
  [[nodiscard]] constexpr auto is_owned() const noexcept -> bool { return digits_.is_owned(); }

  /// See text::own(). @throws std::bad_alloc
  auto own() -> void { digits_.own(); }

  /// Numeric equality: `1.5 == 1.50`, `NaN == NaN`.
  friend constexpr auto operator==(const numeric& a, const numeric& b) noexcept -> bool {
    return detail::compare_numeric(a.view(), b.view()) == 0;
  }

  /// Numeric ordering: `-Infinity < finite < Infinity < NaN`.
  friend constexpr auto operator<=>(const numeric& a, const numeric& b) noexcept -> std::weak_ordering {
    return detail::compare_numeric(a.view(), b.view());
  }

 private:
  detail::borrowed_or_owned<char> digits_;
};

/**
 * A `date`: a day in the proleptic Gregorian calendar, or +-infinity.
 *
 * Stored as PostgreSQL stores it, as days since 2000-01-01, so the whole server range
 * (4714-11-24 BC to 5874897-12-31) is exact. Years are *astronomical*: year 0 is 1 BC, -1 is 2 BC.
 * The infinities order below and above every day.
 *
 * @par Example
 * @code
 * replicant::date d = *replicant::date::from_ymd(-43, 3, 15);  // 0044-03-15 BC
 * assert(replicant::to_string(d) == "0044-03-15 BC");
 * @endcode
 *
 * @par Thread safety
 * A value type.
 */
class date {
 public:
  /// 2000-01-01. Never throws.
  constexpr date() noexcept = default;

  /// The day @p days_since_2000 days after 2000-01-01 (INT32_MIN and INT32_MAX are the infinities,
  /// as on the wire). Never throws.
  constexpr explicit date(std::int32_t days_since_2000) noexcept : days_(days_since_2000) {}

  /// `infinity`, later than every day. Never throws.
  [[nodiscard]] static constexpr auto infinity() noexcept -> date {
    return date(std::numeric_limits<std::int32_t>::max());
  }

  /// `-infinity`, earlier than every day. Never throws.
  [[nodiscard]] static constexpr auto minus_infinity() noexcept -> date {
    return date(std::numeric_limits<std::int32_t>::min());
  }

  /// The day year-month-day (astronomical year), or nullopt when there is no such day or it lies
  /// outside PostgreSQL's date range. Never throws.
  [[nodiscard]] static constexpr auto from_ymd(std::int64_t year, unsigned month, unsigned day) noexcept
      -> std::optional<date> {
    if (month < 1 || month > 12 || day < 1 || year < -4714 || year > 5'874'897) return std::nullopt;
    if (day > detail::days_in_month(year, month)) return std::nullopt;
    const auto days = detail::days_from_civil(year, month, day) - detail::pg_epoch_unix_days;
    if (days < detail::pg_min_date_days || days > detail::pg_max_date_days) return std::nullopt;
    return date(static_cast<std::int32_t>(days));
  }

  /// Days since 2000-01-01 (the wire representation). Never throws.
  [[nodiscard]] constexpr auto days_since_2000() const noexcept -> std::int32_t { return days_; }

  /// Whether this is an actual day rather than an infinity. Never throws.
  [[nodiscard]] constexpr auto is_finite() const noexcept -> bool {
    return days_ != std::numeric_limits<std::int32_t>::max() && days_ != std::numeric_limits<std::int32_t>::min();
  }

  /// Astronomical year (0 = 1 BC). Meaningless for the infinities. Never throws.
  [[nodiscard]] constexpr auto year() const noexcept -> std::int64_t { return civil().year; }

  /// Month, 1 to 12. Meaningless for the infinities. Never throws.
  [[nodiscard]] constexpr auto month() const noexcept -> unsigned { return civil().month; }

  /// Day of the month, 1 to 31. Meaningless for the infinities. Never throws.
  [[nodiscard]] constexpr auto day() const noexcept -> unsigned { return civil().day; }

  /// The day as a `std::chrono::sys_days`, or nullopt for the infinities. Never throws.
  [[nodiscard]] constexpr auto to_sys_days() const noexcept -> std::optional<std::chrono::sys_days> {
    if (!is_finite()) return std::nullopt;
    return std::chrono::sys_days(std::chrono::days(std::int64_t{days_} + detail::pg_epoch_unix_days));
  }

  /// Chronological order, infinities at the ends.
  friend constexpr auto operator<=>(const date&, const date&) noexcept = default;

 private:
  [[nodiscard]] constexpr auto civil() const noexcept -> detail::civil_date {
    return detail::civil_from_days(std::int64_t{days_} + detail::pg_epoch_unix_days);
  }

  std::int32_t days_ = 0;
};

/**
 * A `time` (without time zone): microseconds since midnight, from 00:00:00 to 24:00:00 inclusive
 * (PostgreSQL accepts and prints `24:00:00`).
 *
 * @par Thread safety
 * A value type.
 */
class time_of_day {
 public:
  /// Midnight. Never throws.
  constexpr time_of_day() noexcept = default;

  /// @p micros_since_midnight microseconds after midnight (precondition: 0 to 86'400'000'000).
  /// Never throws.
  constexpr explicit time_of_day(std::int64_t micros_since_midnight) noexcept : micros_(micros_since_midnight) {}

  /// Microseconds since midnight. Never throws.
  [[nodiscard]] constexpr auto micros_since_midnight() const noexcept -> std::int64_t { return micros_; }

  /// Hour, 0 to 24. Never throws.
  [[nodiscard]] constexpr auto hour() const noexcept -> int {
    return static_cast<int>(micros_ / detail::usecs_per_hour);
  }
  /// Minute, 0 to 59. Never throws.
  [[nodiscard]] constexpr auto minute() const noexcept -> int {
    return static_cast<int>(micros_ % detail::usecs_per_hour / detail::usecs_per_minute);
  }
  /// Second, 0 to 59. Never throws.
  [[nodiscard]] constexpr auto second() const noexcept -> int {
    return static_cast<int>(micros_ % detail::usecs_per_minute / detail::usecs_per_second);
  }
  /// Microseconds within the second, 0 to 999999. Never throws.
  [[nodiscard]] constexpr auto microsecond() const noexcept -> int {
    return static_cast<int>(micros_ % detail::usecs_per_second);
  }

  /// The time since midnight as a duration. Never throws.
  [[nodiscard]] constexpr auto to_duration() const noexcept -> std::chrono::microseconds {
    return std::chrono::microseconds(micros_);
  }

  /// Chronological order.
  friend constexpr auto operator<=>(const time_of_day&, const time_of_day&) noexcept = default;

 private:
  std::int64_t micros_ = 0;
};

/**
 * A `timestamp` (@p WithTimeZone false: a wall-clock date and time) or `timestamptz` (true: an
 * instant, kept in UTC), to the microsecond, or +-infinity.
 *
 * Stored as PostgreSQL stores it, as microseconds since 2000-01-01 00:00:00, which covers the whole
 * server range (4714-11-24 BC to 294276 AD) exactly; INT64_MIN and INT64_MAX are `-infinity` and
 * `infinity`. Use @ref replicant::timestamp and @ref replicant::timestamptz.
 *
 * @par Example
 * @code
 * if (const auto* at = v.get_if<replicant::timestamptz>(); at && at->is_finite())
 *   if (auto sys = at->to_sys_time()) log_delay(std::chrono::system_clock::now() - *sys);
 * @endcode
 *
 * @par Thread safety
 * A value type.
 */
template <bool WithTimeZone>
class basic_timestamp {
 public:
  /// Whether this is `timestamptz`.
  static constexpr bool has_time_zone = WithTimeZone;

  /// 2000-01-01 00:00:00. Never throws.
  constexpr basic_timestamp() noexcept = default;

  /// @p micros_since_2000 microseconds after 2000-01-01 00:00:00 (the wire representation).
  /// Never throws.
  constexpr explicit basic_timestamp(std::int64_t micros_since_2000) noexcept : micros_(micros_since_2000) {}

  /// `infinity`. Never throws.
  [[nodiscard]] static constexpr auto infinity() noexcept -> basic_timestamp {
    return basic_timestamp(std::numeric_limits<std::int64_t>::max());
  }

  /// `-infinity`. Never throws.
  [[nodiscard]] static constexpr auto minus_infinity() noexcept -> basic_timestamp {
    return basic_timestamp(std::numeric_limits<std::int64_t>::min());
  }

  /// Microseconds since 2000-01-01 00:00:00. Never throws.
  [[nodiscard]] constexpr auto micros_since_2000() const noexcept -> std::int64_t { return micros_; }

  /// Whether this is an actual point in time rather than an infinity. Never throws.
  [[nodiscard]] constexpr auto is_finite() const noexcept -> bool {
    return micros_ != std::numeric_limits<std::int64_t>::max() && micros_ != std::numeric_limits<std::int64_t>::min();
  }

  /// The calendar day (in UTC for timestamptz). Precondition: is_finite(). Never throws.
  [[nodiscard]] constexpr auto date_part() const noexcept -> date {
    return date(static_cast<std::int32_t>(detail::floor_div<detail::usecs_per_day>(micros_)));
  }

  /// The time of day (in UTC for timestamptz). Precondition: is_finite(). Never throws.
  [[nodiscard]] constexpr auto time_part() const noexcept -> time_of_day {
    return time_of_day(detail::floor_mod<detail::usecs_per_day>(micros_));
  }

  /// timestamptz only: the instant as a `system_clock` time point, or nullopt for the infinities and
  /// the last ~30 years of PostgreSQL's range (beyond what int64 microseconds since 1970 can hold).
  /// Never throws.
  [[nodiscard]] constexpr auto to_sys_time() const noexcept
      -> std::optional<std::chrono::sys_time<std::chrono::microseconds>>
    requires WithTimeZone
  {
    if (const auto u = unix_micros())
      return std::chrono::sys_time<std::chrono::microseconds>(std::chrono::microseconds(*u));
    return std::nullopt;
  }

  /// timestamp only: the wall-clock reading as a `local_time`, with the same limits as to_sys_time.
  /// Never throws.
  [[nodiscard]] constexpr auto to_local_time() const noexcept
      -> std::optional<std::chrono::local_time<std::chrono::microseconds>>
    requires(!WithTimeZone)
  {
    if (const auto u = unix_micros())
      return std::chrono::local_time<std::chrono::microseconds>(std::chrono::microseconds(*u));
    return std::nullopt;
  }

  /// Chronological order, infinities at the ends.
  friend constexpr auto operator<=>(const basic_timestamp&, const basic_timestamp&) noexcept = default;

 private:
  [[nodiscard]] constexpr auto unix_micros() const noexcept -> std::optional<std::int64_t> {
    constexpr std::int64_t shift = detail::pg_epoch_unix_days * detail::usecs_per_day;
    if (!is_finite() || micros_ > std::numeric_limits<std::int64_t>::max() - shift) return std::nullopt;
    return micros_ + shift;
  }

  std::int64_t micros_ = 0;
};

/// A `timestamp` (without time zone). See @ref replicant::basic_timestamp.
using timestamp = basic_timestamp<false>;

/// A `timestamptz`: an instant, kept in UTC. See @ref replicant::basic_timestamp.
using timestamptz = basic_timestamp<true>;

/**
 * A `uuid`: 16 bytes in network order.
 *
 * @par Thread safety
 * A value type.
 */
class uuid {
 public:
  /// The nil UUID. Never throws.
  constexpr uuid() noexcept = default;

  /// The UUID with these bytes. Never throws.
  constexpr explicit uuid(const std::array<std::uint8_t, 16>& bytes) noexcept : bytes_(bytes) {}

  /// The 16 bytes. Never throws.
  [[nodiscard]] constexpr auto bytes() const noexcept -> const std::array<std::uint8_t, 16>& { return bytes_; }

  /// Byte-wise order.
  friend constexpr auto operator<=>(const uuid&, const uuid&) noexcept = default;

 private:
  std::array<std::uint8_t, 16> bytes_{};
};

class value;

/**
 * A PostgreSQL array: its elements in order, each a @ref replicant::value of the element type or
 * NULL. A multidimensional array nests: the elements of a 2-D array are 1-D arrays, at any depth.
 * The empty array `{}` has no elements and no dimensions.
 *
 * PostgreSQL arrays may start at an index other than 1 (`[0:1]={a,b}`); lower_bound() keeps the
 * starting index of this dimension.
 *
 * @par Example
 * @code
 * // int4[][] '{{1,2},{3,NULL}}'
 * const auto& rows = v.get<replicant::array>();
 * for (const auto& row : rows)
 *   for (const auto& cell : row.get<replicant::array>())
 *     if (!cell.is_null()) sum += cell.get<std::int64_t>();
 * @endcode
 *
 * @par Thread safety
 * As @ref replicant::value.
 */
class array {
 public:
  /// The empty array. Never throws.
  array() noexcept;

  /// An array of @p elements whose first index is @p lower_bound. Never throws.
  explicit array(std::vector<value> elements, std::int32_t lower_bound = 1) noexcept;

  /// Copies, moves and destroys the elements (declared here, defined once `value` is complete).
  ///@{
  array(const array& other);
  array(array&& other) noexcept;
  auto operator=(const array& other) -> array&;
  auto operator=(array&& other) noexcept -> array&;
  ~array();
  ///@}

  /// The elements. Never throws.
  [[nodiscard]] auto elements() const noexcept -> std::span<const value>;

  /// Number of elements in this (outermost) dimension. Never throws.
  [[nodiscard]] auto size() const noexcept -> std::size_t;

  /// Whether there are no elements. Never throws.
  [[nodiscard]] auto empty() const noexcept -> bool;

  /// The element at @p i, counting from 0 whatever lower_bound() is. Precondition: i < size().
  [[nodiscard]] auto operator[](std::size_t i) const noexcept -> const value&;

  /// Iteration over the elements. Never throws.
  ///@{
  [[nodiscard]] auto begin() const noexcept -> const value*;
  [[nodiscard]] auto end() const noexcept -> const value*;
  ///@}

  /// PostgreSQL's index of the first element in this dimension (1 unless the array says otherwise).
  /// Never throws.
  [[nodiscard]] auto lower_bound() const noexcept -> std::int32_t { return lower_bound_; }

  /// The number of dimensions: 0 for `{}`, 1 for a flat array, 2 when the elements are arrays, ...
  /// Never throws.
  [[nodiscard]] auto dimensions() const noexcept -> std::size_t;

  /// Makes every element own its storage (see value::own()). @throws std::bad_alloc
  auto own() -> void;

  /// Same lower bound and pairwise equal elements.
  friend auto operator==(const array& a, const array& b) noexcept -> bool;

 private:
  std::vector<value> elements_;
  std::int32_t lower_bound_ = 1;
};

/**
 * One column value (or array element): NULL or a typed PostgreSQL value.
 *
 * A thin wrapper over a `std::variant` (see variant_type), with accessors that read well in a sink:
 * `is_null()`, `holds<T>()`, `get<T>()` and `get_if<T>()`. Integer types all arrive as
 * `std::int64_t` and `float4`/`float8` as `double` (a float4 converts exactly). Which C++ type each
 * PostgreSQL type becomes, and when the original string is delivered instead, is listed in
 * docs/casting.md.
 *
 * Equality is PostgreSQL's equality for the element types: NaN equals NaN (as for `float8` and
 * `numeric` in SQL), `1.5 == 1.50` for numerics; values of different alternatives are unequal.
 *
 * @par Example
 * @code
 * const replicant::value& v = change.record[2];
 * if (v.is_null()) return;
 * if (const auto* n = v.get_if<replicant::numeric>()) store_decimal(n->view());
 * else if (const auto* s = v.get_if<replicant::text>()) store_string(*s);  // money in another locale
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: safe to read. A value that borrows frame memory (see the
 * file comment) must not outlive the sink callback unless own() was called.
 */
class value {
 public:
  /// The underlying variant; its order matches @ref replicant::value_kind.
  using variant_type = std::variant<null_t, bool, std::int64_t, double, numeric, text, bytea, date, time_of_day,
                                    timestamp, timestamptz, uuid, json, array>;

  /// NULL. Never throws.
  constexpr value() noexcept = default;

  /// NULL. Never throws.
  constexpr value(null_t) noexcept {}  // NOLINT(google-explicit-constructor)

  /// A boolean. Never throws.
  constexpr value(bool b) noexcept : v_(std::in_place_type<bool>, b) {}  // NOLINT(google-explicit-constructor)

  /// An integer, held as `std::int64_t` (any signed integer, or unsigned up to 32 bits; not the
  /// character types). Never throws.
  template <std::integral I>
    requires(!std::same_as<I, bool> && !std::same_as<I, char> && !std::same_as<I, wchar_t> &&
             !std::same_as<I, char8_t> && !std::same_as<I, char16_t> && !std::same_as<I, char32_t> &&
             (std::is_signed_v<I> || sizeof(I) < sizeof(std::int64_t)))
  constexpr value(I i) noexcept  // NOLINT(google-explicit-constructor)
      : v_(std::in_place_type<std::int64_t>, static_cast<std::int64_t>(i)) {}

  /// A float4/float8, held as `double`. Never throws.
  ///@{
  constexpr value(double d) noexcept : v_(std::in_place_type<double>, d) {}  // NOLINT(google-explicit-constructor)
  constexpr value(float f) noexcept : v_(std::in_place_type<double>, double{f}) {}  // NOLINT
  ///@}

  /// Any other alternative. Never throws.
  ///@{
  value(numeric n) noexcept : v_(std::move(n)) {}     // NOLINT(google-explicit-constructor)
  value(text t) noexcept : v_(std::move(t)) {}        // NOLINT(google-explicit-constructor)
  value(bytea b) noexcept : v_(std::move(b)) {}       // NOLINT(google-explicit-constructor)
  constexpr value(date d) noexcept : v_(d) {}         // NOLINT(google-explicit-constructor)
  constexpr value(time_of_day t) noexcept : v_(t) {}  // NOLINT(google-explicit-constructor)
  constexpr value(timestamp t) noexcept : v_(t) {}    // NOLINT(google-explicit-constructor)
  constexpr value(timestamptz t) noexcept : v_(t) {}  // NOLINT(google-explicit-constructor)
  constexpr value(uuid u) noexcept : v_(u) {}         // NOLINT(google-explicit-constructor)
  value(json j) noexcept : v_(std::move(j)) {}        // NOLINT(google-explicit-constructor)
  value(array a) noexcept : v_(std::move(a)) {}       // NOLINT(google-explicit-constructor)
  ///@}

  /// Copies, moves and destroys the held alternative. Declared here and defined with the other
  /// bodies, so that a unit of the separately compiled mode does not instantiate the variant's
  /// visitation tables for them (docs/performance.md, "Compile cost"). Copying throws only
  /// `std::bad_alloc`; moving never throws.
  ///@{
  value(const value& other);
  value(value&& other) noexcept;
  auto operator=(const value& other) -> value&;
  auto operator=(value&& other) noexcept -> value&;
  ~value();
  ///@}

  /// Whether this is SQL NULL. Never throws.
  [[nodiscard]] constexpr auto is_null() const noexcept -> bool { return v_.index() == 0; }

  /// Which alternative is held. Never throws.
  [[nodiscard]] constexpr auto kind() const noexcept -> value_kind { return static_cast<value_kind>(v_.index()); }

  /// Whether the alternative @p T is held (`T` must be one of variant_type's). Never throws.
  template <class T>
  [[nodiscard]] constexpr auto holds() const noexcept -> bool {
    check_alternative<T>();
    return std::holds_alternative<T>(v_);
  }

  /// The held @p T. @throws std::bad_variant_access when another alternative is held.
  template <class T>
  [[nodiscard]] constexpr auto get() const& -> const T& {
    check_alternative<T>();
    return std::get<T>(v_);
  }

  /// A pointer to the held @p T, or nullptr when another alternative is held. Never throws.
  template <class T>
  [[nodiscard]] constexpr auto get_if() const noexcept -> const T* {
    check_alternative<T>();
    return std::get_if<T>(&v_);
  }

  /// The underlying variant, e.g. for `std::visit`. Never throws.
  [[nodiscard]] constexpr auto variant() const noexcept -> const variant_type& { return v_; }

  /// `std::visit(f, variant())`.
  template <class F>
  constexpr auto visit(F&& f) const -> decltype(auto) {
    return std::visit(std::forward<F>(f), v_);
  }

  /**
   * Makes the value independent of the replication frame it was decoded from, by copying every
   * borrowed string or byte run (array elements included). Call it before keeping a value past the
   * sink callback. Cheap when nothing is borrowed.
   * @throws std::bad_alloc
   */
  auto own() -> void;

  /// PostgreSQL equality, see the class comment.
  friend auto operator==(const value& a, const value& b) noexcept -> bool;

 private:
  template <class T>
  static constexpr auto check_alternative() noexcept -> void {
    static_assert(is_alternative<T>,
                  "replicant: value::get/get_if/holds<T>: T must be one of null_t, bool, std::int64_t, double, "
                  "numeric, text, bytea, date, time_of_day, timestamp, timestamptz, uuid, json or array "
                  "(every integer type arrives as std::int64_t, float4 as double)");
  }

  template <class T>
  static constexpr bool is_alternative = detail::is_variant_alternative<T, variant_type>;

  variant_type v_;
};

// value_kind must name the variant's alternatives in order.
static_assert(std::is_same_v<
              std::variant_alternative_t<static_cast<std::size_t>(value_kind::numeric), value::variant_type>, numeric>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(value_kind::time), value::variant_type>,
                   time_of_day>);
static_assert(std::is_same_v<
              std::variant_alternative_t<static_cast<std::size_t>(value_kind::array), value::variant_type>, array>);
static_assert(static_cast<std::size_t>(value_kind::array) + 1 == std::variant_size_v<value::variant_type>);

// --- array members that need a complete value ---------------------------------------------------

inline auto array::elements() const noexcept -> std::span<const value> { return elements_; }
inline auto array::size() const noexcept -> std::size_t { return elements_.size(); }
inline auto array::empty() const noexcept -> bool { return elements_.empty(); }
inline auto array::operator[](std::size_t i) const noexcept -> const value& { return elements_[i]; }
inline auto array::begin() const noexcept -> const value* { return elements_.data(); }
inline auto array::end() const noexcept -> const value* { return elements_.data() + elements_.size(); }

inline auto array::dimensions() const noexcept -> std::size_t {
  if (elements_.empty()) return 0;
  const auto* inner = elements_.front().get_if<array>();
  return inner != nullptr ? 1 + inner->dimensions() : 1;
}

// --- to_string: the explicit, user-facing rendering ----------------------------------------------

/// PostgreSQL's text for @p n: its canonical digits. @throws std::bad_alloc
[[nodiscard]] inline auto to_string(const numeric& n) -> std::string { return std::string(n.view()); }

/// `YYYY-MM-DD` as PostgreSQL prints it under DateStyle=ISO (`0044-03-15 BC`, `infinity`).
/// @throws std::bad_alloc
[[nodiscard]] REPLICANT_DECL auto to_string(date d) -> std::string;

/// `HH:MM:SS[.ffffff]`, trailing fraction zeros dropped. @throws std::bad_alloc
[[nodiscard]] REPLICANT_DECL auto to_string(time_of_day t) -> std::string;

/// `YYYY-MM-DD HH:MM:SS[.ffffff][+00][ BC]`, as PostgreSQL prints it under DateStyle=ISO and
/// TimeZone=UTC; `infinity` / `-infinity`. @throws std::bad_alloc
template <bool WithTimeZone>
[[nodiscard]] auto to_string(basic_timestamp<WithTimeZone> t) -> std::string {
  std::string out;
  detail::append_timestamp(out, t.micros_since_2000(), WithTimeZone);
  return out;
}

/// The canonical lower-case `8-4-4-4-12` form. @throws std::bad_alloc
[[nodiscard]] REPLICANT_DECL auto to_string(const uuid& u) -> std::string;

/// The hex form `\x0123ab` (bytea_output=hex). @throws std::bad_alloc
[[nodiscard]] REPLICANT_DECL auto to_string(const bytea& b) -> std::string;

/// PostgreSQL's array text (`{1,NULL,"a b"}`, `{{1,2},{3,4}}`, `[0:1]={x,y}`). @throws std::bad_alloc
[[nodiscard]] REPLICANT_DECL auto to_string(const array& a) -> std::string;

/**
 * A rendering of @p v for the user's own display or export: PostgreSQL's text output form under the
 * settings replicant pins (ISO dates, UTC, shortest-exact floats, hex bytea), so for most types it
 * equals what the server sent. Booleans are `t`/`f`, NULL is `NULL`, a money amount read as a
 * decimal prints as that decimal (`1234.56`, not `$1,234.56`).
 *
 * Values are row data: replicant never calls this for errors, logs or telemetry, and neither should
 * code that must stay value-free.
 *
 * @throws std::bad_alloc
 */
[[nodiscard]] REPLICANT_DECL auto to_string(const value& v) -> std::string;

}  // namespace replicant

// The bodies that visit the variant or build strings: in every unit header-only, in the one unit
// that includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/model/impl/value.hpp>
#endif

#endif  // REPLICANT_MODEL_VALUE_HPP
