// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_IMPL_IDENTIFIER_HPP
#define REPLICANT_CORE_IMPL_IDENTIFIER_HPP

// Out-of-line bodies of the identifier helpers: the error category, the quoting and the display
// form of table names. Included at the bottom of <replicant/core/identifier.hpp> (which it
// includes nothing of back); with REPLICANT_SEPARATE_COMPILATION only by <replicant/core/src.hpp>,
// which then also holds the category's virtual table.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/utf8.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>

namespace replicant {

namespace detail {

REPLICANT_DECL auto identifier_category_impl::message(int code) const -> std::string {
  switch (static_cast<identifier_error>(code)) {
    case identifier_error::empty: return "name is empty";
    case identifier_error::too_long: return "name is longer than 63 bytes";
    case identifier_error::bad_first_character: return "name starts with a character not allowed there";
    case identifier_error::bad_character: return "name contains a character outside the allowed set";
    case identifier_error::contains_nul: return "text contains a NUL byte";
    case identifier_error::contains_backslash: return "literal contains a backslash";
    case identifier_error::invalid_utf8: return "text is not well-formed UTF-8";
  }
  return "unknown identifier error";
}

REPLICANT_DECL auto to_result(int code) noexcept -> result<void> {
  if (code == 0) return {};
  return fail(static_cast<identifier_error>(code));
}

// @p s between two @p quote characters, each quote inside doubled: SQL's one escape for both an
// identifier and a standard-conforming string literal.
REPLICANT_DECL auto enclose(std::string_view s, char quote) -> std::string {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back(quote);
  for (const char c : s) {
    if (c == quote) out.push_back(quote);
    out.push_back(c);
  }
  out.push_back(quote);
  return out;
}

}  // namespace detail

REPLICANT_DECL auto identifier_category() noexcept -> const std::error_category& {
  static const detail::identifier_category_impl instance;
  return instance;
}

REPLICANT_DECL auto quote_identifier(std::string_view name) -> result<std::string> {
  if (name.empty()) return fail(identifier_error::empty);
  if (name.size() > identifier::max_length) return fail(identifier_error::too_long);
  if (const int e = detail::check_quotable(name); e != 0) return fail(static_cast<identifier_error>(e));
  return detail::enclose(name, '"');
}

REPLICANT_DECL auto quote_literal(std::string_view text) -> result<std::string> {
  if (const int e = detail::check_quotable(text); e != 0) return fail(static_cast<identifier_error>(e));
  if (text.find('\\') != std::string_view::npos) return fail(identifier_error::contains_backslash);
  return detail::enclose(text, '\'');
}

REPLICANT_DECL auto slot_name::make(std::string_view text) noexcept -> result<slot_name> {
  if (const int e = detail::check_slot_name(text); e != 0) return fail(static_cast<identifier_error>(e));
  return slot_name(text);
}

namespace detail {

REPLICANT_DECL auto append_display_identifier(std::string& out, std::string_view part) -> void {
  bool bare = !part.empty() && (is_ascii_lower(part[0]) || part[0] == '_');
  for (char c : part) bare = bare && (is_ascii_lower(c) || is_ascii_digit(c) || c == '_' || c == '$');
  if (bare) {
    out.append(part);
    return;
  }
  constexpr std::string_view hex = "0123456789ABCDEF";
  out.push_back('"');
  for (std::size_t i = 0; i < part.size();) {
    const auto b = static_cast<unsigned char>(part[i]);
    const std::size_t n = utf8_sequence_length(part, i);
    if (n == 0 || b < 0x20U || b == 0x7FU || b == '\\') {
      out.append("\\x");
      out.push_back(hex[b >> 4U]);
      out.push_back(hex[b & 0xFU]);
      ++i;
      continue;
    }
    if (b == '"') out.push_back('"');
    out.append(part.substr(i, n));
    i += n;
  }
  out.push_back('"');
}

REPLICANT_DECL auto escape_string_literal(std::string_view text) -> std::string {
  std::string out = "E'";
  out.reserve(text.size() + 3);
  for (const char c : text) {
    if (c == '\\' || c == '\'') out.push_back(c);
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

}  // namespace detail

REPLICANT_DECL auto to_string(table_ref table) -> std::string {
  std::string out;
  out.reserve(table.schema.size() + table.name.size() + 5);
  detail::append_display_identifier(out, table.schema);
  out.push_back('.');
  detail::append_display_identifier(out, table.name);
  return out;
}

}  // namespace replicant

#endif  // REPLICANT_CORE_IMPL_IDENTIFIER_HPP
