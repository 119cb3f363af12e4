// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DETAIL_COPY_TEXT_HPP
#define REPLICANT_DETAIL_COPY_TEXT_HPP

// One row of `COPY ... TO STDOUT` (text format, the default delimiter) turned into the bytes of a
// pgoutput TupleData, so that a snapshot row becomes a pgoutput::tuple_data exactly like a streamed
// row and goes through the same validation, row view and casting code.
//
// What the server writes (CopyAttributeOutText in src/backend/commands/copyto.c): fields separated
// by a tab, the row ended by a newline, NULL as `\N`, a backslash as `\\`, and the six control
// characters backspace, form feed, newline, carriage return, tab and vertical tab as `\b \f \n \r
// \t \v`. Other bytes, other control characters included, are sent as they are. COPY FROM also
// accepts `\NNN` (octal) and `\xHH` (hex), so those are decoded too (a future server, or a proxy
// between us and it, may use them). Anything else is refused rather than guessed at, because the
// result must be byte-for-byte the text pgoutput would have sent: a stray backslash before another
// character, a lone trailing backslash, an escape that yields NUL (text output never contains one),
// a raw carriage return or newline inside a field, or the wrong number of fields. The error is
// errc::decode_failure and never carries any of the row's bytes.

#include <replicant/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>
#include <vector>

namespace replicant::detail {

// pgoutput's column kinds, as written by copy_text_row_to_tuple (see pgoutput::column_kind).
inline constexpr std::byte copy_null_kind{'n'};
inline constexpr std::byte copy_text_kind{'t'};

// Appends @p v as a big-endian integer of N bytes.
template <std::size_t N>
inline auto append_big_endian(std::vector<std::byte>& out, std::uint64_t v) -> void {
  for (std::size_t i = N; i-- > 0;) out.push_back(static_cast<std::byte>((v >> (8U * i)) & 0xFFU));
}

[[nodiscard]] constexpr auto copy_hex_digit(char c) noexcept -> int {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Appends the unescaped bytes of one field (not `\N`, which the row reader handles) to @p out.
// Returns false for anything the server would not have written; @p out then holds a partial field,
// which the caller discards.
[[nodiscard]] inline auto unescape_copy_text_field(std::string_view field, std::vector<std::byte>& out) -> bool {
  const auto append_run = [&out](const char* from, std::size_t n) {
    const std::size_t at = out.size();
    out.resize(at + n);
    if (n != 0) std::memcpy(out.data() + at, from, n);
  };
  std::size_t i = 0;
  while (i < field.size()) {
    // Most values have no backslash at all, so copy whole runs between escapes.
    const std::size_t slash = field.find('\\', i);
    const std::size_t run_end = slash == std::string_view::npos ? field.size() : slash;
    for (std::size_t k = i; k < run_end; ++k) {
      const char c = field[k];
      if (c == '\0' || c == '\n' || c == '\r') return false;  // never sent raw (copyto.c escapes them)
    }
    append_run(field.data() + i, run_end - i);
    if (slash == std::string_view::npos) break;
    i = slash + 1;
    if (i == field.size()) return false;  // a lone trailing backslash
    const char e = field[i++];
    unsigned value = 0;
    switch (e) {
      case '\\': value = '\\'; break;
      case 'b': value = '\b'; break;
      case 'f': value = '\f'; break;
      case 'n': value = '\n'; break;
      case 'r': value = '\r'; break;
      case 't': value = '\t'; break;
      case 'v': value = '\v'; break;
      case 'x': {
        // One or two hex digits, as COPY FROM reads them.
        int digits = 0;
        while (digits < 2 && i < field.size() && copy_hex_digit(field[i]) >= 0) {
          value = value * 16U + static_cast<unsigned>(copy_hex_digit(field[i]));
          ++i;
          ++digits;
        }
        if (digits == 0) return false;
        break;
      }
      default:
        if (e < '0' || e > '7') return false;  // `\N` inside a field, `\.`, `\q`, ...
        // One to three octal digits. COPY FROM would keep only the low byte of `\777`; a server
        // never writes one, so it is refused instead.
        value = static_cast<unsigned>(e - '0');
        for (int digits = 1; digits < 3 && i < field.size() && field[i] >= '0' && field[i] <= '7'; ++digits) {
          value = value * 8U + static_cast<unsigned>(field[i] - '0');
          ++i;
        }
        if (value > 0xFFU) return false;
        break;
    }
    if (value == 0) return false;  // text output never contains NUL
    out.push_back(static_cast<std::byte>(value));
  }
  return true;
}

// Appends the TupleData of one COPY text row (Int16 column count, then per column 'n', or 't',
// Int32 length and the unescaped bytes) to @p out. @p line is one CopyData message of the COPY:
// the fields and the terminating newline. On error @p out is left as it was.
[[nodiscard]] inline auto copy_text_row_to_tuple(std::string_view line, std::size_t columns,
                                                 std::vector<std::byte>& out) -> std::error_code {
  const std::size_t start = out.size();
  const auto malformed = [&out, start]() {
    out.resize(start);
    return make_error_code(errc::decode_failure);
  };
  if (line.empty() || line.back() != '\n' || columns > 0xFFFFU) return malformed();
  line.remove_suffix(1);
  append_big_endian<2>(out, columns);
  if (columns == 0) {
    // A row of a table without published columns is an empty line.
    return line.empty() ? std::error_code{} : malformed();
  }
  std::size_t seen = 0;
  std::size_t from = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', from);
    const std::string_view field =
        line.substr(from, tab == std::string_view::npos ? std::string_view::npos : tab - from);
    if (++seen > columns) return malformed();
    if (field == "\\N") {
      out.push_back(copy_null_kind);
    } else {
      out.push_back(copy_text_kind);
      const std::size_t length_at = out.size();
      append_big_endian<4>(out, 0);
      if (!unescape_copy_text_field(field, out)) return malformed();
      const std::size_t length = out.size() - length_at - 4;
      // An Int32 on the wire; the server's own limit on a value (1 GB) is far below it.
      if (length > 0x7FFFFFFFU) return malformed();
      for (std::size_t b = 0; b < 4; ++b) {
        out[length_at + b] = static_cast<std::byte>((length >> (8U * (3 - b))) & 0xFFU);
      }
    }
    if (tab == std::string_view::npos) break;
    from = tab + 1;
  }
  if (seen != columns) return malformed();
  return {};
}

}  // namespace replicant::detail

#endif  // REPLICANT_DETAIL_COPY_TEXT_HPP
