// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_UTF8_HPP
#define REPLICANT_CORE_UTF8_HPP

/// @file
/// Recognising well-formed UTF-8: the one rule shared by the identifier checks (a name that is not
/// UTF-8 is refused) and by anything that must print text safely (a JSON writer replaces bad bytes).

#include <cstddef>
#include <string_view>

namespace replicant {

/// Length of the well-formed UTF-8 sequence starting at text[i] (1 to 4), or 0 when the bytes
/// there are not one: a stray continuation byte, an overlong form, a UTF-16 surrogate, a code point
/// above U+10FFFF, or a sequence cut short. This is RFC 3629 (Table 3-7 of the Unicode standard),
/// and what PostgreSQL's pg_utf8_islegal accepts. @pre i < text.size(). Never throws.
[[nodiscard]] constexpr auto utf8_sequence_length(std::string_view text, std::size_t i) noexcept -> std::size_t {
  const auto byte = [&](std::size_t k) -> unsigned { return static_cast<unsigned char>(text[k]); };
  const unsigned b0 = byte(i);
  if (b0 < 0x80U) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80U;
  unsigned hi = 0xBFU;
  if (b0 >= 0xC2U && b0 <= 0xDFU) {
    n = 2;
  } else if (b0 >= 0xE0U && b0 <= 0xEFU) {
    n = 3;
    if (b0 == 0xE0U) lo = 0xA0U;  // overlong
    if (b0 == 0xEDU) hi = 0x9FU;  // UTF-16 surrogates
  } else if (b0 >= 0xF0U && b0 <= 0xF4U) {
    n = 4;
    if (b0 == 0xF0U) lo = 0x90U;  // overlong
    if (b0 == 0xF4U) hi = 0x8FU;  // above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - i < n) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80U || byte(i + k) > 0xBFU) return 0;
  }
  return n;
}

}  // namespace replicant

#endif  // REPLICANT_CORE_UTF8_HPP
