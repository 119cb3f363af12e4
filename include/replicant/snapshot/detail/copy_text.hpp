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

#include <replicant/core/detail/config.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <system_error>
#include <vector>

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
[[nodiscard]] REPLICANT_DECL auto skip_ordinary_copy_blocks(const char* p, const char* end) noexcept -> const char*;

// Decodes the escape after a backslash, @p p pointing just past the backslash; advances @p p past
// it. Returns the byte it stands for, or -1 for anything the server would not have written: an
// unknown escape (`\N` inside a field, `\.`, `\q`, ...), a hex escape without digits, an octal
// escape above 0xFF (COPY FROM would keep its low byte; a server never writes one), an escape that
// yields NUL (text output never contains one), a lone trailing backslash.
[[nodiscard]] REPLICANT_DECL auto decode_copy_escape(const char*& p, const char* end) noexcept -> int;

// Appends the TupleData of one COPY text row (Int16 column count, then per column 'n', or 't',
// Int32 length and the unescaped bytes) to @p out. @p line is one CopyData message of the COPY:
// the fields and the terminating newline. On error @p out is left as it was.
//
// One pass over the row, writing straight into @p out: unescaping only ever shrinks a field, so
// the row's size plus five bytes per column bounds what it can take, and the bytes between two
// special ones are copied as a run, found a block at a time (skip_ordinary_copy_blocks).
[[nodiscard]] REPLICANT_DECL auto copy_text_row_to_tuple(std::string_view line, std::size_t columns,
                                                         std::vector<std::byte>& out) -> std::error_code;

}  // namespace replicant::detail

// The bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp> with
// REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/detail/impl/copy_text.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_DETAIL_COPY_TEXT_HPP
