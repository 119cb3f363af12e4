// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_LSN_HPP
#define REPLICANT_CORE_LSN_HPP

/// @file
/// replicant::lsn: a position in the write-ahead log. Reference page: docs/reference/lsn.md.

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>

#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace replicant {

/**
 * A write-ahead-log position (PostgreSQL's `pg_lsn`): a 64-bit byte offset into the WAL.
 *
 * A strong type over `std::uint64_t` so that an LSN is never confused with a count or a size.
 * Ordering is integer ordering, which is WAL ordering: the exactly-once watermark test is simply
 * `txn.commit_lsn <= checkpoint`. The text form is PostgreSQL's: the high and low 32 bits in
 * upper-case hex, `"16/B374D848"`. An LSN is a position, not row data, so it may appear in logs and
 * telemetry.
 *
 * @par Example
 * @code
 * using namespace replicant::literals;
 * constexpr replicant::lsn at = "16/B374D848"_lsn;
 * static_assert(at.value() == 0x16'B374'D848);
 * assert(replicant::to_string(at) == "16/B374D848");
 * @endcode
 *
 * @par Thread safety
 * A value type: distinct objects are safe, shared objects are safe to read.
 */
class lsn {
 public:
  /// The zero position, PostgreSQL's `InvalidXLogRecPtr` (`0/0`): "no position".
  constexpr lsn() noexcept = default;

  /// The position @p value bytes into the WAL.
  constexpr explicit lsn(std::uint64_t value) noexcept : value_(value) {}

  /// The position as an integer, as it goes on the wire.
  [[nodiscard]] constexpr auto value() const noexcept -> std::uint64_t { return value_; }

  /// False for `0/0`, which PostgreSQL uses to mean "no position" (for example, a status update
  /// whose flush field is 0 leaves the slot where it is).
  [[nodiscard]] constexpr auto is_valid() const noexcept -> bool { return value_ != 0; }

  /// Integer ordering, which is WAL ordering.
  friend constexpr auto operator<=>(lsn, lsn) noexcept = default;

 private:
  std::uint64_t value_ = 0;
};

/// The signed distance `to - from` in bytes (PostgreSQL's `pg_wal_lsn_diff`), e.g. a slot's lag.
[[nodiscard]] constexpr auto distance(lsn from, lsn to) noexcept -> std::int64_t {
  return static_cast<std::int64_t>(to.value() - from.value());
}

namespace detail {

constexpr auto hex_digit(char c) noexcept -> int {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// One half of "HI/LO": 1 to 8 hex digits (PostgreSQL <= 18 prints no padding; 19 pads the low half
// to 8 digits, so both forms are accepted).
constexpr auto parse_lsn_half(std::string_view text) noexcept -> std::optional<std::uint32_t> {
  if (text.empty() || text.size() > 8) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : text) {
    const int d = hex_digit(c);
    if (d < 0) return std::nullopt;
    v = (v << 4U) | static_cast<std::uint32_t>(d);
  }
  return v;
}

constexpr auto parse_lsn_value(std::string_view text) noexcept -> std::optional<lsn> {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto hi = parse_lsn_half(text.substr(0, slash));
  const auto lo = parse_lsn_half(text.substr(slash + 1));
  if (!hi || !lo) return std::nullopt;
  return lsn{(std::uint64_t{*hi} << 32U) | *lo};
}

}  // namespace detail

/**
 * Parses PostgreSQL's text form of an LSN, `"HI/LO"` with 1 to 8 hex digits on each side.
 *
 * @return the LSN, or `errc::invalid_lsn`. The error never repeats the input.
 * @par Exceptions
 * Never throws.
 */
[[nodiscard]] inline auto parse_lsn(std::string_view text) noexcept -> result<lsn> {
  if (auto v = detail::parse_lsn_value(text)) return *v;
  return fail(errc::invalid_lsn);
}

/// PostgreSQL's text form of @p at: upper-case hex, no padding, e.g. `"16/B374D848"`, `"0/0"`.
[[nodiscard]] inline auto to_string(lsn at) -> std::string {
  constexpr std::string_view digits = "0123456789ABCDEF";
  std::string out;
  out.reserve(17);
  const auto put = [&](std::uint32_t half) {
    int shift = 28;
    while (shift > 0 && ((half >> static_cast<unsigned>(shift)) & 0xFU) == 0) shift -= 4;
    for (; shift >= 0; shift -= 4) out.push_back(digits[(half >> static_cast<unsigned>(shift)) & 0xFU]);
  };
  put(static_cast<std::uint32_t>(at.value() >> 32U));
  out.push_back('/');
  put(static_cast<std::uint32_t>(at.value()));
  return out;
}

/// Writes `to_string(at)`.
inline auto operator<<(std::ostream& os, lsn at) -> std::ostream& { return os << to_string(at); }

namespace literals {

/// `"16/B374D848"_lsn`: an LSN constant checked at compile time (a malformed literal does not compile).
consteval auto operator""_lsn(const char* text, std::size_t size) -> lsn {
  const auto v = detail::parse_lsn_value(std::string_view{text, size});
  if (!v) throw "replicant: malformed LSN literal";  // not a constant expression: a compile error
  return *v;
}

}  // namespace literals

}  // namespace replicant

/// Hashes an LSN like its integer value, so it can key unordered containers.
template <>
struct std::hash<replicant::lsn> {
  /// The hash of `at.value()`. Never throws.
  [[nodiscard]] auto operator()(replicant::lsn at) const noexcept -> std::size_t {
    return std::hash<std::uint64_t>{}(at.value());
  }
};

#endif  // REPLICANT_CORE_LSN_HPP
