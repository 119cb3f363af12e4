// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_IMPL_VALUE_HPP
#define REPLICANT_MODEL_IMPL_VALUE_HPP

// Out-of-line bodies of replicant::value and replicant::array: the ones that visit the variant
// (copying, moving, destroying, comparing, owning) and the renderings. Included at the bottom of
// <replicant/model/value.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/model/src.hpp>, so that the variant's
// visitation tables are instantiated once per program rather than in every unit that holds a row.

#include <replicant/core/detail/config.hpp>
#include <replicant/model/detail/pg_format.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace replicant {

// --- the special members ---------------------------------------------------------------------

REPLICANT_DECL value::value(const value& other) = default;
REPLICANT_DECL value::value(value&& other) noexcept = default;
REPLICANT_DECL auto value::operator=(const value& other) -> value& = default;
REPLICANT_DECL auto value::operator=(value&& other) noexcept -> value& = default;
REPLICANT_DECL value::~value() = default;

REPLICANT_DECL array::array() noexcept = default;
REPLICANT_DECL array::array(std::vector<value> elements, std::int32_t lower_bound) noexcept
    : elements_(std::move(elements)), lower_bound_(lower_bound) {}
REPLICANT_DECL array::array(const array& other) = default;
REPLICANT_DECL array::array(array&& other) noexcept = default;
REPLICANT_DECL auto array::operator=(const array& other) -> array& = default;
REPLICANT_DECL auto array::operator=(array&& other) noexcept -> array& = default;
REPLICANT_DECL array::~array() = default;

REPLICANT_DECL auto array::own() -> void {
  for (auto& e : elements_) e.own();
}

// The friends' definitions are kept out of the API reference: Doxygen does not match them to their
// declarations (documented in the classes) and would list them again, undocumented.
/// @cond
REPLICANT_DECL auto operator==(const array& a, const array& b) noexcept -> bool {
  return a.lower_bound_ == b.lower_bound_ && a.elements_ == b.elements_;
}

REPLICANT_DECL auto value::own() -> void {
  std::visit(
      [](auto& alternative) {
        if constexpr (requires { alternative.own(); }) alternative.own();
      },
      v_);
}

REPLICANT_DECL auto operator==(const value& a, const value& b) noexcept -> bool {
  if (a.v_.index() != b.v_.index()) return false;
  return std::visit(
      [&b](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = *std::get_if<T>(&b.v_);
        if constexpr (std::is_same_v<T, double>) {
          return x == y || (x != x && y != y);  // NaN equals NaN, as in PostgreSQL
        } else {
          return x == y;
        }
      },
      a.v_);
}

// --- to_string -------------------------------------------------------------------------------

REPLICANT_DECL auto to_string(date d) -> std::string {
  std::string out;
  detail::append_date(out, d.days_since_2000());
  return out;
}

REPLICANT_DECL auto to_string(time_of_day t) -> std::string {
  std::string out;
  detail::append_time_of_day(out, t.micros_since_midnight());
  return out;
}

REPLICANT_DECL auto to_string(const uuid& u) -> std::string {
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(detail::hex_digits_lower[u.bytes()[i] >> 4U]);
    out.push_back(detail::hex_digits_lower[u.bytes()[i] & 0xFU]);
  }
  return out;
}

REPLICANT_DECL auto to_string(const bytea& b) -> std::string {
  std::string out = "\\x";
  out.reserve(2 + 2 * b.size());
  for (const std::byte x : b.bytes()) {
    out.push_back(detail::hex_digits_lower[std::to_integer<unsigned>(x) >> 4U]);
    out.push_back(detail::hex_digits_lower[std::to_integer<unsigned>(x) & 0xFU]);
  }
  return out;
}
/// @endcond

namespace detail {

// array_out's quoting rule: quote an element that is empty, reads as NULL, or contains a character
// with meaning in array syntax (braces, quote, backslash, the ',' delimiter) or white space.
[[nodiscard]] REPLICANT_DECL auto array_element_needs_quotes(std::string_view s) noexcept -> bool {
  if (s.empty()) return true;
  if (s.size() == 4) {
    const auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
    if (lower(s[0]) == 'n' && lower(s[1]) == 'u' && lower(s[2]) == 'l' && lower(s[3]) == 'l') return true;
  }
  for (const char c : s) {
    switch (c) {
      case '"':
      case '\\':
      case '{':
      case '}':
      case ',':
      case ' ':
      case '\t':
      case '\n':
      case '\r':
      case '\v':
      case '\f': return true;
      default: break;
    }
  }
  return false;
}

REPLICANT_DECL auto append_array_body(std::string& out, const array& a) -> void {
  out.push_back('{');
  bool first = true;
  for (const auto& e : a) {
    if (!first) out.push_back(',');
    first = false;
    if (e.is_null()) {
      out += "NULL";
    } else if (const auto* inner = e.get_if<array>()) {
      append_array_body(out, *inner);
    } else {
      const std::string s = to_string(e);
      if (!array_element_needs_quotes(s)) {
        out += s;
        continue;
      }
      out.push_back('"');
      for (const char c : s) {
        if (c == '"' || c == '\\') out.push_back('\\');
        out.push_back(c);
      }
      out.push_back('"');
    }
  }
  out.push_back('}');
}

// "[lb:ub]" per dimension, printed (followed by '=') only when some lower bound is not 1.
REPLICANT_DECL auto append_array_bounds(std::string& out, const array& a) -> void {
  bool needed = false;
  for (const array* level = &a; level != nullptr && !level->empty(); level = level->elements().front().get_if<array>())
    needed = needed || level->lower_bound() != 1;
  if (!needed) return;
  for (const array* level = &a; level != nullptr && !level->empty();
       level = level->elements().front().get_if<array>()) {
    out.push_back('[');
    append_signed(out, level->lower_bound());
    out.push_back(':');
    append_signed(out, std::int64_t{level->lower_bound()} + static_cast<std::int64_t>(level->size()) - 1);
    out.push_back(']');
  }
  out.push_back('=');
}

}  // namespace detail

/// @cond
REPLICANT_DECL auto to_string(const array& a) -> std::string {
  std::string out;
  detail::append_array_bounds(out, a);
  detail::append_array_body(out, a);
  return out;
}

REPLICANT_DECL auto to_string(const value& v) -> std::string {
  return v.visit([](const auto& x) -> std::string {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, null_t>) {
      return "NULL";
    } else if constexpr (std::is_same_v<T, bool>) {
      return x ? "t" : "f";
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
      std::string out;
      detail::append_signed(out, x);
      return out;
    } else if constexpr (std::is_same_v<T, double>) {
      std::string out;
      detail::append_float(out, x);
      return out;
    } else if constexpr (std::is_same_v<T, text> || std::is_same_v<T, json>) {
      return std::string(x.view());
    } else {
      return to_string(x);
    }
  });
}
/// @endcond

}  // namespace replicant

#endif  // REPLICANT_MODEL_IMPL_VALUE_HPP
