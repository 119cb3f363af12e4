// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_WIRE_PGOUTPUT_BUILDER_HPP
#define REPLICANT_TESTS_SUPPORT_WIRE_PGOUTPUT_BUILDER_HPP

// The library's pgoutput encoder (replicant/testing/pgoutput_writer.hpp) under the tests' namespace,
// and two helpers only tests need: bytes from an annotated hex dump, and the bytes of a string.

#include <replicant/testing/pgoutput_writer.hpp>

#include <stdexcept>
#include <string_view>

namespace replicant::test {

using namespace replicant::testing::pgoutput;  // NOLINT(google-build-using-namespace): the tests' spelling

/// Bytes from hex text; whitespace is ignored, so annotated dumps can be pasted as they are.
inline auto hex(std::string_view text) -> bytes {
  bytes out;
  int high = -1;
  for (char c : text) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) {
      if (c == ' ' || c == '\n' || c == '\t') continue;
      throw std::invalid_argument("hex: bad character");
    }
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<std::byte>(high * 16 + v));
      high = -1;
    }
  }
  if (high >= 0) throw std::invalid_argument("hex: odd digit count");
  return out;
}

/// Bytes of a string, e.g. to compare a column's value.
inline auto as_bytes(std::string_view s) -> bytes { return wire{}.raw(s).take(); }

}  // namespace replicant::test

#endif
