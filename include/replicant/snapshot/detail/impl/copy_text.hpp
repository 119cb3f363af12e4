// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_IMPL_COPY_TEXT_HPP
#define REPLICANT_SNAPSHOT_DETAIL_IMPL_COPY_TEXT_HPP

// Out-of-line bodies of the COPY text row scanner (replicant::detail::copy_text_row_to_tuple and
// its helpers). Included at the bottom of <replicant/snapshot/detail/copy_text.hpp> (which it
// includes nothing of back); with REPLICANT_SEPARATE_COMPILATION only by
// <replicant/snapshot/src.hpp>, which compiles them once.

#include <replicant/core/detail/config.hpp>
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

[[nodiscard]] REPLICANT_DECL auto skip_ordinary_copy_blocks(const char* p, const char* end) noexcept -> const char* {
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

[[nodiscard]] REPLICANT_DECL auto decode_copy_escape(const char*& p, const char* end) noexcept -> int {
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

[[nodiscard]] REPLICANT_DECL auto copy_text_row_to_tuple(std::string_view line, std::size_t columns,
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

#endif  // REPLICANT_SNAPSHOT_DETAIL_IMPL_COPY_TEXT_HPP
