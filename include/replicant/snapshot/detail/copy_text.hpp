// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_COPY_TEXT_HPP
#define REPLICANT_SNAPSHOT_DETAIL_COPY_TEXT_HPP

// One row of `COPY ... TO STDOUT` (text format, the default delimiter) turned into the bytes of a
// pgoutput TupleData, so that a snapshot row becomes a tuple_data exactly like a streamed
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

#include <replicant/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace replicant::detail {

// pgoutput's column kinds, as written by copy_text_row_to_tuple (see column_kind).
inline constexpr std::byte copy_null_kind{'n'};
inline constexpr std::byte copy_text_kind{'t'};

[[nodiscard]] constexpr auto copy_hex_digit(char c) noexcept -> int {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// How the row scanner treats each byte: 0 ordinary (copied as it is), 1 tab (ends the field),
// 2 backslash (starts an escape), 3 refused (NUL, LF or CR: never sent raw, copyto.c escapes them).
inline constexpr auto copy_byte_classes = [] {
  struct table {
    std::uint8_t of[256];
  } t{};
  t.of[static_cast<unsigned char>('\t')] = 1;
  t.of[static_cast<unsigned char>('\\')] = 2;
  t.of[0] = 3;
  t.of[static_cast<unsigned char>('\n')] = 3;
  t.of[static_cast<unsigned char>('\r')] = 3;
  return t;
}();

// Whether the eight bytes of @p word may hold one the scanner must stop at: tab, LF, CR and NUL
// are all below 0x0E, and the backslash is tested exactly ("has a zero byte" on the word XORed
// with it). A yes for another byte below 0x0E (rare in text: the server escapes \b, \f and \v)
// only sends the word to the byte-wise loop, which copies it as it is.
[[nodiscard]] constexpr auto copy_word_may_have_special(std::uint64_t word) noexcept -> bool {
  constexpr std::uint64_t ones = 0x0101010101010101U;
  constexpr std::uint64_t highs = 0x8080808080808080U;
  constexpr std::uint64_t backslashes = ones * 0x5CU;
  const std::uint64_t below_0e = (word - ones * 0x0EU) & ~word & highs;
  const std::uint64_t flipped = word ^ backslashes;
  const std::uint64_t backslash = (flipped - ones) & ~flipped & highs;
  return (below_0e | backslash) != 0;
}

// Advances @p p over the ordinary bytes that start [p, end), in whole blocks (sixteen bytes at a time
// with SSE2, part of every x86-64, else eight): stops at the first block that may hold a byte the
// scanner must look at, or when fewer than a block's bytes are left. Long values (a text of a
// kilobyte) are where a row's time goes; the byte-wise loop finishes the run.
[[nodiscard]] inline auto skip_ordinary_copy_blocks(const char* p, const char* end) noexcept -> const char* {
#if defined(__SSE2__)
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i below_0e = _mm_set1_epi8(0x0D);
  while (end - p >= 16) {
    __m128i v;
    std::memcpy(&v, p, 16);
    // A byte is at most 0x0D (unsigned) exactly when the unsigned minimum with 0x0D is itself.
    const __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, below_0e), v);
    const __m128i escape = _mm_cmpeq_epi8(v, backslash);
    if (_mm_movemask_epi8(_mm_or_si128(low, escape)) != 0) return p;
    p += 16;
  }
#endif
  while (end - p >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    if (copy_word_may_have_special(word)) return p;
    p += 8;
  }
  return p;
}

// Decodes the escape after a backslash, @p p pointing just past the backslash; advances @p p past
// it. Returns the byte it stands for, or -1 for anything the server would not have written: an
// unknown escape (`\N` inside a field, `\.`, `\q`, ...), a hex escape without digits, an octal
// escape above 0xFF (COPY FROM would keep its low byte; a server never writes one), an escape that
// yields NUL (text output never contains one), a lone trailing backslash.
[[nodiscard]] inline auto decode_copy_escape(const char*& p, const char* end) noexcept -> int {
  if (p == end) return -1;
  const char e = *p++;
  unsigned value = 0;
  switch (e) {
    case '\\': return '\\';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    case 'x': {
      // One or two hex digits, as COPY FROM reads them.
      int digits = 0;
      while (digits < 2 && p != end && copy_hex_digit(*p) >= 0) {
        value = value * 16U + static_cast<unsigned>(copy_hex_digit(*p));
        ++p;
        ++digits;
      }
      if (digits == 0) return -1;
      break;
    }
    default:
      if (e < '0' || e > '7') return -1;
      // One to three octal digits.
      value = static_cast<unsigned>(e - '0');
      for (int digits = 1; digits < 3 && p != end && *p >= '0' && *p <= '7'; ++digits) {
        value = value * 8U + static_cast<unsigned>(*p - '0');
        ++p;
      }
      if (value > 0xFFU) return -1;
      break;
  }
  return value == 0 ? -1 : static_cast<int>(value);
}

// Appends the TupleData of one COPY text row (Int16 column count, then per column 'n', or 't',
// Int32 length and the unescaped bytes) to @p out. @p line is one CopyData message of the COPY:
// the fields and the terminating newline. On error @p out is left as it was.
//
// One pass over the row, writing straight into @p out: unescaping only ever shrinks a field, so
// the row's size plus five bytes per column bounds what it can take, and the bytes between two
// special ones are copied as a run, found a block at a time (skip_ordinary_copy_blocks).
[[nodiscard]] inline auto copy_text_row_to_tuple(std::string_view line, std::size_t columns,
                                                 std::vector<std::byte>& out) -> std::error_code {
  const std::size_t start = out.size();
  const auto malformed = [&out, start]() {
    out.resize(start);
    return make_error_code(errc::decode_failure);
  };
  if (line.empty() || line.back() != '\n' || columns > 0xFFFFU) return malformed();
  line.remove_suffix(1);
  if (columns == 0) {
    // A row of a table without published columns is an empty line.
    if (!line.empty()) return malformed();
    out.push_back(std::byte{0});
    out.push_back(std::byte{0});
    return {};
  }
  out.resize(start + 2 + 5 * columns + line.size());
  std::byte* const base = out.data();
  std::byte* w = base + start;
  *w++ = static_cast<std::byte>((columns >> 8U) & 0xFFU);
  *w++ = static_cast<std::byte>(columns & 0xFFU);

  const char* p = line.data();
  const char* const end = p + line.size();
  std::size_t seen = 0;
  for (;;) {
    if (++seen > columns) return malformed();
    if (end - p >= 2 && p[0] == '\\' && p[1] == 'N' && (end - p == 2 || p[2] == '\t')) {
      *w++ = copy_null_kind;  // exactly `\N`: NULL
      p += 2;
    } else {
      *w++ = copy_text_kind;
      std::byte* const length_at = w;
      w += 4;
      std::byte* const value_at = w;
      for (;;) {
        const char* const run = p;
        p = skip_ordinary_copy_blocks(p, end);
        while (p != end && copy_byte_classes.of[static_cast<unsigned char>(*p)] == 0) ++p;
        if (p != run) {
          std::memcpy(w, run, static_cast<std::size_t>(p - run));
          w += p - run;
        }
        if (p == end || *p == '\t') break;
        if (*p != '\\') return malformed();  // a raw NUL, LF or CR
        ++p;
        const int byte = decode_copy_escape(p, end);
        if (byte < 0) return malformed();
        *w++ = static_cast<std::byte>(byte);
      }
      const auto length = static_cast<std::size_t>(w - value_at);
      // An Int32 on the wire; the server's own limit on a value (1 GB) is far below it.
      if (length > 0x7FFFFFFFU) return malformed();
      for (std::size_t b = 0; b < 4; ++b) {
        length_at[b] = static_cast<std::byte>((length >> (8U * (3 - b))) & 0xFFU);
      }
    }
    if (p == end) break;
    ++p;  // the tab that ended the field
  }
  if (seen != columns) return malformed();
  out.resize(static_cast<std::size_t>(w - base));
  return {};
}

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_DETAIL_COPY_TEXT_HPP
