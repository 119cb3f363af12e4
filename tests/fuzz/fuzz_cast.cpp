// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Fuzzes replicant::cast_text and replicant::cast_binary.
//
// Input: byte 0 picks the type OID (an index into fuzz::cast_oids, modulo its size), bit 0 of
// byte 1 picks binary (set) or text mode, and the rest is the column's bytes.
//
// Properties, besides the sanitizers' (no out-of-bounds read, no leak, no undefined behaviour):
// - text mode fails only for the types documented to fail (numeric, bytea and their arrays), binary
//   mode only with decode_failure, and every error is value-free (fuzz::check_error);
// - every accessor works on whatever comes out, and a value equals its copy and its owned copy;
// - text mode reaches a fixpoint: a value recognised as its type prints (to_string) as a text that
//   casts back to an equal value;
// - binary mode agrees with text mode: the printed form of a binary value casts, as text, to an
//   equal value ("whichever mode is on, a value comes out the same", cast_binary.hpp). money is
//   exempt from both, as documented: it is read from a locale-formatted text into a plain decimal.
#include <replicant/model/cast.hpp>

#include "fuzz_common.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace {

using namespace replicant;

[[nodiscard]] auto text_may_fail(std::uint32_t oid) noexcept -> bool {
  return oid == pg_type::numeric || oid == pg_type::bytea || oid == pg_type::numeric_array ||
         oid == pg_type::bytea_array;
}

[[nodiscard]] auto is_money(std::uint32_t oid) noexcept -> bool {
  return oid == pg_type::money || oid == pg_type::money_array;
}

// Types whose binary form replicant reads (anything else comes out as the raw bytes).
[[nodiscard]] auto binary_known(std::uint32_t oid) noexcept -> bool {
  return pg_type::element_of(oid) != 0 || (oid != 0 && fuzz::cast_oid_index(oid) < 25);
}

auto fuzz_text(std::uint32_t oid, std::span<const std::byte> bytes) -> void {
  const std::string_view s = detail::as_chars(bytes);
  const auto v = cast_text(oid, s);
  if (!v) {
    fuzz::check_error(v.error());
    REPLICANT_FUZZ_CHECK(v.error() == errc::decode_failure && text_may_fail(oid));
    return;
  }
  fuzz::digest_sink = fuzz::touch(*v);
  if (v->holds<text>() || is_money(oid)) return;
  const std::string shown = to_string(*v);
  const auto again = cast_text(oid, shown);
  REPLICANT_FUZZ_CHECK(again.has_value());
  REPLICANT_FUZZ_CHECK(*again == *v);
}

auto fuzz_binary(std::uint32_t oid, std::span<const std::byte> bytes) -> void {
  const auto v = cast_binary(oid, bytes);
  if (!v) {
    fuzz::check_error(v.error());
    REPLICANT_FUZZ_CHECK(v.error() == errc::decode_failure);
    return;
  }
  fuzz::digest_sink = fuzz::touch(*v);
  if (!binary_known(oid) || is_money(oid)) return;
  const std::string shown = to_string(*v);
  const auto as_text = cast_text(oid, shown);
  REPLICANT_FUZZ_CHECK(as_text.has_value());
  REPLICANT_FUZZ_CHECK(*as_text == *v);
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  fuzz::begin_input();
  if (size < 2) return 0;
  const std::uint32_t oid = fuzz::cast_oids[data[0] % fuzz::cast_oids.size()];
  const bool binary = (data[1] & 1U) != 0;
  // libFuzzer hands over an exactly sized heap copy, so the column ends where the allocation does
  // and any read past it is caught.
  const std::span<const std::byte> column{reinterpret_cast<const std::byte*>(data) + 2, size - 2};
  if (binary) {
    fuzz_binary(oid, column);
  } else {
    fuzz_text(oid, column);
  }
  return 0;
}
