// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The record of which test provokes which halt (tests/halts_provoked.txt), and the check that a
// recorded test case really does: the case exists, and its own body asserts the halt's reason and
// its `connection.disconnected` event. The check reads C++ source as text, with the comments taken
// out first and the string literals blanked where code is looked for, so that a comment or a
// string that merely names a reason never counts as a test of it.
#ifndef REPLICANT_TESTS_UNIT_CORE_HALT_RECORDS_HPP
#define REPLICANT_TESTS_UNIT_CORE_HALT_RECORDS_HPP

#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace halt_records {

/// One line of the record: a halt reason, the test source (relative to the repository root) and
/// the test case in it that provokes the halt.
struct record {
  std::string reason;
  std::string file;
  std::string test_case;
  std::size_t line = 0;  // in the record file, for messages
};

/// The records of @p text: one per line of three fields separated by blanks; blank lines and lines
/// beginning with `#` are skipped. A line of another shape is returned with an empty case, which
/// the caller reports.
inline auto parse(std::string_view text) -> std::vector<record> {
  std::vector<record> out;
  std::size_t number = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const auto line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    std::vector<std::string> fields;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])) != 0) ++i;
      const auto from = i;
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])) == 0) ++i;
      if (i > from) fields.emplace_back(line.substr(from, i - from));
    }
    if (fields.empty() || fields.front().front() == '#') continue;
    record r{.reason = fields[0], .file = {}, .test_case = {}, .line = number};
    if (fields.size() == 3) {
      r.file = fields[1];
      r.test_case = fields[2];
    }
    out.push_back(std::move(r));
  }
  return out;
}

namespace detail {

// The length of the literal (string, raw string or character) that begins at @p at, quotes
// included; 0 when none begins there.
inline auto literal_length(std::string_view s, std::size_t at) -> std::size_t {
  const char c = s[at];
  if (c == 'R' && at + 1 < s.size() && s[at + 1] == '"' &&
      (at == 0 || (std::isalnum(static_cast<unsigned char>(s[at - 1])) == 0 && s[at - 1] != '_'))) {
    const auto open = s.find('(', at + 2);
    if (open == std::string_view::npos) return s.size() - at;
    const std::string close = ")" + std::string{s.substr(at + 2, open - at - 2)} + "\"";
    const auto end = s.find(close, open);
    return end == std::string_view::npos ? s.size() - at : end + close.size() - at;
  }
  if (c != '"' && c != '\'') return 0;
  // A digit separator (1'000) is no character literal.
  if (c == '\'' && at > 0 && std::isxdigit(static_cast<unsigned char>(s[at - 1])) != 0) return 0;
  std::size_t i = at + 1;
  while (i < s.size() && s[i] != c && s[i] != '\n') i += s[i] == '\\' ? std::size_t{2} : std::size_t{1};
  return (i < s.size() ? i + 1 : s.size()) - at;
}

}  // namespace detail

/// @p source with every comment replaced by blanks (line ends kept), so positions stay the same.
inline auto without_comments(std::string_view source) -> std::string {
  std::string out{source};
  std::size_t i = 0;
  while (i < out.size()) {
    if (const auto n = detail::literal_length(out, i); n > 0) {
      i += n;
    } else if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      const auto end = out.find("*/", i + 2);
      const auto stop = end == std::string::npos ? out.size() : end + 2;
      for (; i < stop; ++i) {
        if (out[i] != '\n') out[i] = ' ';
      }
    } else {
      ++i;
    }
  }
  return out;
}

/// @p code (without comments) with the insides of its literals blanked, quotes kept: where code,
/// and not what a string says, is looked for.
inline auto without_literals(std::string_view code) -> std::string {
  std::string out{code};
  std::size_t i = 0;
  while (i < out.size()) {
    if (const auto n = detail::literal_length(out, i); n > 0) {
      for (std::size_t k = i + 1; k + 1 < i + n; ++k) out[k] = ' ';
      i += n;
    } else {
      ++i;
    }
  }
  return out;
}

/// The position just past the bracket that closes the one at @p open in @p code (literals
/// blanked), or npos.
inline auto past_closing(std::string_view code, std::size_t open) -> std::size_t {
  const char o = code[open];
  const char c = o == '(' ? ')' : '}';
  std::size_t depth = 0;
  for (std::size_t i = open; i < code.size(); ++i) {
    if (code[i] == o) ++depth;
    if (code[i] == c && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

/// Whether @p word occurs at @p at of @p s as a whole identifier.
inline auto whole_word_at(std::string_view s, std::size_t at, std::size_t length) -> bool {
  const auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; };
  return (at == 0 || !ident(s[at - 1])) && (at + length >= s.size() || !ident(s[at + length]));
}

/// Where test case @p name is in @p code (literals blanked): its body's braces, or nothing when
/// no `BOOST_AUTO_TEST_CASE(name ...)` is there or it is disabled.
struct span {
  std::size_t begin;
  std::size_t end;
};
inline auto case_body(std::string_view code, std::string_view name) -> std::optional<span> {
  constexpr std::string_view macro = "BOOST_AUTO_TEST_CASE(";
  for (auto at = code.find(macro); at != std::string_view::npos; at = code.find(macro, at + 1)) {
    auto i = at + macro.size();
    while (i < code.size() && std::isspace(static_cast<unsigned char>(code[i])) != 0) ++i;
    if (code.compare(i, name.size(), name) != 0 || !whole_word_at(code, i, name.size())) continue;
    const auto head_end = past_closing(code, at + macro.size() - 1);
    if (head_end == std::string_view::npos) return std::nullopt;
    if (code.substr(at, head_end - at).find("disabled") != std::string_view::npos) return std::nullopt;
    const auto open = code.find('{', head_end);
    if (open == std::string_view::npos) return std::nullopt;
    const auto close = past_closing(code, open);
    if (close == std::string_view::npos) return std::nullopt;
    return span{open, close};
  }
  return std::nullopt;
}

/// The argument lists of the Boost.Test assertions within @p body of @p code (literals blanked).
inline auto assertions(std::string_view code, span body) -> std::vector<span> {
  std::vector<span> out;
  for (const std::string_view macro : {"BOOST_TEST(", "BOOST_TEST_REQUIRE(", "BOOST_TEST_CHECK(", "BOOST_CHECK(",
                                       "BOOST_REQUIRE(", "BOOST_CHECK_EQUAL(", "BOOST_REQUIRE_EQUAL("}) {
    for (auto at = code.find(macro, body.begin); at < body.end; at = code.find(macro, at + 1)) {
      if (!whole_word_at(code, at, macro.size() - 1)) continue;
      const auto close = past_closing(code, at + macro.size() - 1);
      if (close <= body.end) out.push_back({at + macro.size(), close - 1});
    }
  }
  return out;
}

/// Whether @p text holds @p needle as a whole identifier, outside calls of `disconnected(`.
inline auto names_outside_event_check(std::string_view text, std::string_view needle) -> bool {
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
    if (!whole_word_at(text, at, needle.size())) continue;
    const auto call = text.rfind("disconnected(", at);
    const bool inside = call != std::string_view::npos && past_closing(text, call + 12) > at;
    if (!inside) return true;
  }
  return false;
}

/// Whether @p text checks the `connection.disconnected` event for reason @p name: through the
/// live tests' `events.disconnected(halt_reason::<name>)`, or by the event's text,
/// `"replicant.connection.disconnected reason=<name>` (@p code has its literals blanked, @p text
/// has them).
inline auto checks_event(std::string_view code, std::string_view text, std::string_view name) -> bool {
  const std::string call = "disconnected(halt_reason::" + std::string{name};
  for (auto at = code.find(call); at != std::string_view::npos; at = code.find(call, at + 1)) {
    if (whole_word_at(code, at + call.size() - name.size(), name.size())) return true;
  }
  const std::string said = "\"replicant.connection.disconnected reason=" + std::string{name};
  for (auto at = text.find(said); at != std::string_view::npos; at = text.find(said, at + 1)) {
    const auto after = at + said.size();
    if (after < text.size() && (text[after] == '"' || text[after] == ' ')) return true;
  }
  return false;
}

/**
 * What is wrong with the record that test case @p test_case of @p source provokes the halt named
 * @p reason; empty when nothing is. The case must exist (and not be disabled), and its body must
 * hold a Boost.Test assertion that names `halt_reason::<reason>` (other than in the event check)
 * and one that checks the `connection.disconnected` event with that reason. Comments never count,
 * nor does a reason's name inside a string, but for the event's own text.
 */
inline auto problem(std::string_view reason, std::string_view source, std::string_view test_case) -> std::string {
  const auto text = without_comments(source);
  const auto code = without_literals(text);
  const auto body = case_body(code, test_case);
  if (!body) return "no test case " + std::string{test_case};
  const std::string token = "halt_reason::" + std::string{reason};
  bool asserts_reason = false;
  bool asserts_event = false;
  for (const auto a : assertions(code, *body)) {
    const auto args_code = std::string_view{code}.substr(a.begin, a.end - a.begin);
    const auto args_text = std::string_view{text}.substr(a.begin, a.end - a.begin);
    asserts_reason = asserts_reason || names_outside_event_check(args_code, token);
    asserts_event = asserts_event || checks_event(args_code, args_text, reason);
  }
  if (!asserts_reason) return std::string{test_case} + " asserts no " + token;
  if (!asserts_event) {
    return std::string{test_case} + " does not check connection.disconnected reason=" + std::string{reason};
  }
  return {};
}

}  // namespace halt_records

#endif  // REPLICANT_TESTS_UNIT_CORE_HALT_RECORDS_HPP
