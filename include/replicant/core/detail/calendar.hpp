// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_CALENDAR_HPP
#define REPLICANT_CORE_DETAIL_CALENDAR_HPP

// Proleptic Gregorian calendar arithmetic on 64-bit day counts, as PostgreSQL uses for every date,
// BC ones included (year 1 BC is astronomical year 0, a leap year). std::chrono's calendar types stop
// at year 32767 while PostgreSQL dates reach 5874897 AD, hence these small routines (the well-known
// era-based days_from_civil / civil_from_days construction).

#include <cstdint>

namespace replicant::detail {

/// Microseconds in a day, second, minute and hour.
inline constexpr std::int64_t usecs_per_day = 86'400'000'000;
inline constexpr std::int64_t usecs_per_hour = 3'600'000'000;
inline constexpr std::int64_t usecs_per_minute = 60'000'000;
inline constexpr std::int64_t usecs_per_second = 1'000'000;

/// Days from 1970-01-01 (the system_clock epoch) to 2000-01-01 (PostgreSQL's epoch).
inline constexpr std::int64_t pg_epoch_unix_days = 10'957;

/// PostgreSQL's first and last representable dates as days since 2000-01-01:
/// 4714-11-24 BC (Julian day 0) and 5874897-12-31.
inline constexpr std::int64_t pg_min_date_days = -2'451'545;
inline constexpr std::int64_t pg_max_date_days = 2'145'031'948;

struct civil_date {
  std::int64_t year;  // astronomical: 0 is 1 BC, -1 is 2 BC
  unsigned month;     // 1..12
  unsigned day;       // 1..31
};

[[nodiscard]] constexpr auto is_leap_year(std::int64_t year) noexcept -> bool {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

[[nodiscard]] constexpr auto days_in_month(std::int64_t year, unsigned month) noexcept -> unsigned {
  constexpr unsigned lengths[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29U : lengths[month - 1];
}

// Floor division by a positive constant, since C++ division truncates toward zero and dates before
// the epoch are negative. The divisor is a template argument so that it is always a compile-time
// constant: the division then compiles to a multiplication, which matters on the casting hot path.
// Overflow-free for every int64 (no intermediate leaves the range).
template <std::int64_t Divisor>
[[nodiscard]] constexpr auto floor_div(std::int64_t a) noexcept -> std::int64_t {
  static_assert(Divisor > 0);
  const std::int64_t q = a / Divisor;
  return a % Divisor < 0 ? q - 1 : q;
}

// The matching remainder, in [0, Divisor).
template <std::int64_t Divisor>
[[nodiscard]] constexpr auto floor_mod(std::int64_t a) noexcept -> std::int64_t {
  static_assert(Divisor > 0);
  const std::int64_t r = a % Divisor;
  return r < 0 ? r + Divisor : r;
}

/// Days since 1970-01-01 of a valid civil date. Exact for |year| well beyond PostgreSQL's range.
[[nodiscard]] constexpr auto days_from_civil(std::int64_t year, unsigned month, unsigned day) noexcept -> std::int64_t {
  const std::int64_t y = month <= 2 ? year - 1 : year;
  const std::int64_t era = floor_div<400>(y);
  const std::int64_t yoe = y - era * 400;                                            // [0, 399]
  const std::int64_t mp = month > 2 ? month - 3 : month + 9;                         // March-based month
  const std::int64_t doy = (153 * mp + 2) / 5 + static_cast<std::int64_t>(day) - 1;  // [0, 365]
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;                    // [0, 146096]
  return era * 146'097 + doe - 719'468;
}

/// The civil date of a day count since 1970-01-01 (inverse of days_from_civil).
[[nodiscard]] constexpr auto civil_from_days(std::int64_t days) noexcept -> civil_date {
  const std::int64_t z = days + 719'468;
  const std::int64_t era = floor_div<146'097>(z);
  const std::int64_t doe = z - era * 146'097;                                        // [0, 146096]
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;  // [0, 399]
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                  // [0, 365]
  const std::int64_t mp = (5 * doy + 2) / 153;                                       // [0, 11]
  const auto day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  const auto month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

/// The first day timestamps cannot reach (294277-01-01) as days since 2000-01-01: PostgreSQL limits
/// timestamps to [4714-11-24 BC, 294277-01-01), its END_TIMESTAMP being exactly this many days.
inline constexpr std::int64_t pg_timestamp_end_days = 106'751'983;
static_assert(days_from_civil(294'277, 1, 1) - pg_epoch_unix_days == pg_timestamp_end_days);
static_assert(days_from_civil(-4713, 11, 24) - pg_epoch_unix_days == pg_min_date_days);
static_assert(days_from_civil(5'874'897, 12, 31) - pg_epoch_unix_days == pg_max_date_days);
static_assert(days_from_civil(2000, 1, 1) == pg_epoch_unix_days);

}  // namespace replicant::detail

#endif  // REPLICANT_CORE_DETAIL_CALENDAR_HPP
