// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_DETAIL_CAST_BINARY_HPP
#define REPLICANT_MODEL_DETAIL_CAST_BINARY_HPP

// Binary-mode casting: a column's typsend output (pgoutput 'b' data, with the `binary 'true'`
// option) to a replicant::value. The contract is replicant::cast_binary in cast.hpp. The rule that
// shapes this file: whichever mode is on, a value comes out the same. Types delivered as raw text
// (interval, timetz, "char") are re-rendered exactly as the server's output function would, numeric
// digits are re-rendered in numeric_out's canonical form, and money becomes the C-locale decimal.
//
// Unlike text, binary data has no "unusual but legitimate" shapes: a wrong length, an impossible
// field or trailing bytes mean a corrupt stream, and yield errc::decode_failure.
// Every multi-byte field is big-endian (network order), as written by pq_sendint*.

#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/detail/pg_format.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/model/value.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::detail {

// Bounds-checked big-endian reads over a column's bytes. Each read either succeeds entirely or
// reports false and leaves the cursor unusable; callers turn that into a decode failure.
class binary_cursor {
 public:
  explicit binary_cursor(std::span<const std::byte> bytes) noexcept : bytes_(bytes) {}

  [[nodiscard]] auto remaining() const noexcept -> std::size_t { return bytes_.size(); }

  template <class UInt>
  [[nodiscard]] auto read(UInt& out) noexcept -> bool {
    if (bytes_.size() < sizeof(UInt)) return false;
    UInt v = 0;
    for (std::size_t i = 0; i < sizeof(UInt); ++i) v = static_cast<UInt>((v << 8U) | std::to_integer<UInt>(bytes_[i]));
    out = v;
    bytes_ = bytes_.subspan(sizeof(UInt));
    return true;
  }

  // Two's-complement reinterpretation of the unsigned read.
  template <class Int>
  [[nodiscard]] auto read_signed(Int& out) noexcept -> bool {
    std::make_unsigned_t<Int> u = 0;
    if (!read(u)) return false;
    out = static_cast<Int>(u);
    return true;
  }

  [[nodiscard]] auto take(std::size_t n, std::span<const std::byte>& out) noexcept -> bool {
    if (bytes_.size() < n) return false;
    out = bytes_.first(n);
    bytes_ = bytes_.subspan(n);
    return true;
  }

 private:
  std::span<const std::byte> bytes_;
};

[[nodiscard]] inline auto cast_binary_value(std::uint32_t type_oid, std::span<const std::byte> bytes) -> result<value>;

// The infinities, or a day PostgreSQL can store (date_recv's IS_VALID_DATE).
[[nodiscard]] constexpr auto valid_pg_date(std::int32_t days) noexcept -> bool {
  return days == std::numeric_limits<std::int32_t>::min() || days == std::numeric_limits<std::int32_t>::max() ||
         (days >= pg_min_date_days && days <= pg_max_date_days);
}

// The infinities, or an instant in [MIN_TIMESTAMP, END_TIMESTAMP) (timestamp_recv's IS_VALID_TIMESTAMP).
[[nodiscard]] constexpr auto valid_pg_timestamp(std::int64_t micros) noexcept -> bool {
  return micros == std::numeric_limits<std::int64_t>::min() || micros == std::numeric_limits<std::int64_t>::max() ||
         (micros >= pg_min_date_days * usecs_per_day && micros < pg_timestamp_end_days * usecs_per_day);
}

// Reads exactly one fixed-size big-endian field covering all of `bytes`.
template <class Int>
[[nodiscard]] auto read_exact(std::span<const std::byte> bytes, Int& out) noexcept -> bool {
  binary_cursor in(bytes);
  return bytes.size() == sizeof(Int) && in.read_signed(out);
}

// Owned text for a value the binary path had to render (inline when short, else one allocation).
template <std::size_t Capacity>
[[nodiscard]] auto owned_text(const stack_text<Capacity>& rendered) -> text {
  const auto v = rendered.view();
  return text(trusted, borrowed_or_owned<char>::copy(v.data(), v.size()));
}

// numeric_send: int16 ndigits, int16 weight, uint16 sign, uint16 dscale, then ndigits base-10000
// digits (most significant first). The sign word also encodes NaN and the infinities.
[[nodiscard]] inline auto cast_numeric_binary(std::span<const std::byte> bytes) -> result<value> {
  binary_cursor in(bytes);
  std::int16_t ndigits = 0;
  std::int16_t weight = 0;
  std::uint16_t sign = 0;
  std::uint16_t dscale = 0;
  if (!in.read_signed(ndigits) || !in.read_signed(weight) || !in.read(sign) || !in.read(dscale) || ndigits < 0 ||
      in.remaining() != 2 * static_cast<std::size_t>(ndigits))
    return fail(errc::decode_failure);
  const auto digits = bytes.subspan(8);
  const auto group = [digits](std::int64_t i) -> std::uint16_t {
    if (i < 0 || static_cast<std::size_t>(i) * 2 >= digits.size()) return 0;
    const auto at = static_cast<std::size_t>(i) * 2;
    return static_cast<std::uint16_t>((std::to_integer<unsigned>(digits[at]) << 8U) |
                                      std::to_integer<unsigned>(digits[at + 1]));
  };
  for (std::int64_t i = 0; i < ndigits; ++i)
    if (group(i) >= 10'000) return fail(errc::decode_failure);
  constexpr std::uint16_t pos = 0x0000;
  constexpr std::uint16_t neg = 0x4000;
  constexpr std::uint16_t nan = 0xC000;
  constexpr std::uint16_t pinf = 0xD000;
  constexpr std::uint16_t ninf = 0xF000;
  std::string_view special;
  switch (sign) {
    case nan: special = "NaN"; break;
    case pinf: special = "Infinity"; break;
    case ninf: special = "-Infinity"; break;
    case pos:
    case neg:
      if ((dscale & 0x3FFFU) != dscale) return fail(errc::decode_failure);  // NUMERIC_DSCALE_MASK
      break;
    default: return fail(errc::decode_failure);
  }
  if (!special.empty()) return numeric(trusted, borrowed_or_owned<char>::borrow(special.data(), special.size()));
  // Render with room for a sign in front, which is known only once the digits are: on the stack
  // for the usual short values (then copied, inline when they fit), else straight into the value's
  // own heap block.
  const std::size_t capacity = numeric_text_capacity(weight, dscale);
  const bool negative = sign == neg;
  if (capacity <= 64) {
    char buffer[64] = {};
    char_writer out(buffer + 1);
    const bool signed_ = append_numeric_digits(out, weight, dscale, group) && negative;
    buffer[0] = '-';
    const char* start = signed_ ? buffer : buffer + 1;
    return numeric(trusted, borrowed_or_owned<char>::copy_from_buffer(start, out.size() + (signed_ ? 1 : 0)));
  }
  auto block = std::make_unique_for_overwrite<char[]>(capacity);
  char_writer out(block.get() + 1);
  const bool signed_ = append_numeric_digits(out, weight, dscale, group) && negative;
  std::size_t size = out.size();
  if (signed_) {
    block[0] = '-';
    ++size;
  } else {
    std::memmove(block.get(), block.get() + 1, size);
  }
  return numeric(trusted, borrowed_or_owned<char>::adopt(std::move(block), size));
}

// "char" is one raw byte; charout prints bytes with the high bit set as a backslash and three octal
// digits (PostgreSQL 15 and later), and the zero byte as the empty string.
[[nodiscard]] inline auto cast_char_binary(std::span<const std::byte> bytes) -> result<value> {
  if (bytes.size() != 1) return fail(errc::decode_failure);
  const auto c = std::to_integer<unsigned>(bytes[0]);
  if (c == 0) return value(text{});
  if (c < 0x80) return value(text::borrow(as_chars(bytes)));
  stack_text<4> octal;
  octal.push_back('\\');
  octal.push_back(static_cast<char>('0' + (c >> 6U)));
  octal.push_back(static_cast<char>('0' + ((c >> 3U) & 7U)));
  octal.push_back(static_cast<char>('0' + (c & 7U)));
  return value(owned_text(octal));
}

// array_send: int32 ndim, int32 flags (1 when some element is NULL), uint32 element type, ndim x
// (int32 length, int32 lower bound), then every element in row-major order as int32 length (-1 for
// NULL) and that many bytes of the element type's send form.
class array_binary_reader {
 public:
  static constexpr std::int32_t max_dimensions = 6;  // PostgreSQL's MAXDIM

  array_binary_reader(std::uint32_t expected_element, std::span<const std::byte> bytes) noexcept
      : expected_element_(expected_element), in_(bytes) {}

  [[nodiscard]] auto read() -> result<value> {
    std::int32_t ndim = 0;
    std::int32_t flags = 0;
    if (!in_.read_signed(ndim) || !in_.read_signed(flags) || !in_.read(element_oid_)) return fail(errc::decode_failure);
    if (ndim < 0 || ndim > max_dimensions || (flags != 0 && flags != 1)) return fail(errc::decode_failure);
    if (expected_element_ != 0 && element_oid_ != expected_element_) return fail(errc::decode_failure);
    std::size_t count = ndim == 0 ? 0 : 1;
    for (std::int32_t i = 0; i < ndim; ++i) {
      std::int32_t length = 0;
      std::int32_t lower = 0;
      if (!in_.read_signed(length) || !in_.read_signed(lower) || length < 0) return fail(errc::decode_failure);
      // array_recv refuses a dimension whose lower bound plus length overflows int32 (ArrayCheckBounds),
      // so its upper bound can always be printed and read back; accepting one would make the same
      // array come out differently in text mode, where it cannot even be written.
      if (std::int64_t{lower} + length > std::numeric_limits<std::int32_t>::max()) return fail(errc::decode_failure);
      dims_[static_cast<std::size_t>(i)] = {static_cast<std::size_t>(length), lower};
      // Every element takes at least its 4-byte length, which bounds the count by the bytes present
      // (and keeps the product from overflowing before anything is allocated).
      if (length != 0 && count > in_.remaining() / 4 / static_cast<std::size_t>(length))
        return fail(errc::decode_failure);
      count *= static_cast<std::size_t>(length);
    }
    ndim_ = static_cast<std::size_t>(ndim);
    if (count == 0) {  // a zero-length dimension is the empty array, as array_recv makes it
      if (in_.remaining() != 0) return fail(errc::decode_failure);
      return value(array{});
    }
    auto top = read_level(0);
    if (!top) return top;
    if (in_.remaining() != 0) return fail(errc::decode_failure);
    return top;
  }

 private:
  struct dimension {
    std::size_t length;
    std::int32_t lower;
  };

  auto read_level(std::size_t level) -> result<value> {
    std::vector<value> elements;
    elements.reserve(dims_[level].length);
    for (std::size_t i = 0; i < dims_[level].length; ++i) {
      auto element = level + 1 < ndim_ ? read_level(level + 1) : read_element();
      if (!element) return element;
      elements.push_back(std::move(*element));
    }
    return value(array(std::move(elements), dims_[level].lower));
  }

  auto read_element() -> result<value> {
    std::int32_t length = 0;
    if (!in_.read_signed(length)) return fail(errc::decode_failure);
    if (length == -1) return value(null);
    std::span<const std::byte> bytes;
    if (length < 0 || !in_.take(static_cast<std::size_t>(length), bytes)) return fail(errc::decode_failure);
    return cast_binary_value(element_oid_, bytes);
  }

  std::uint32_t expected_element_;
  binary_cursor in_;
  std::uint32_t element_oid_ = 0;
  std::size_t ndim_ = 0;
  std::array<dimension, max_dimensions> dims_{};
};

[[nodiscard]] inline auto cast_binary_value(std::uint32_t type_oid, std::span<const std::byte> bytes) -> result<value> {
  namespace t = pg_type;
  switch (type_oid) {
    case t::boolean:
      if (bytes.size() != 1) return fail(errc::decode_failure);
      return value(bytes[0] != std::byte{0});  // boolrecv: any nonzero byte is true
    case t::int2: {
      std::int16_t v = 0;
      if (!read_exact(bytes, v)) return fail(errc::decode_failure);
      return value(v);
    }
    case t::int4: {
      std::int32_t v = 0;
      if (!read_exact(bytes, v)) return fail(errc::decode_failure);
      return value(v);
    }
    case t::int8: {
      std::int64_t v = 0;
      if (!read_exact(bytes, v)) return fail(errc::decode_failure);
      return value(v);
    }
    case t::oid: {
      std::uint32_t v = 0;
      if (!read_exact(bytes, v)) return fail(errc::decode_failure);
      return value(v);
    }
    case t::float4: {
      std::uint32_t v = 0;
      if (!read_exact(bytes, v)) return fail(errc::decode_failure);
      return value(std::bit_cast<float>(v));
    }
    case t::float8: {
      std::uint64_t v = 0;
      if (!read_exact(bytes, v)) return fail(errc::decode_failure);
      return value(std::bit_cast<double>(v));
    }
    case t::numeric: return cast_numeric_binary(bytes);
    case t::money: {
      std::int64_t cents = 0;
      if (!read_exact(bytes, cents)) return fail(errc::decode_failure);
      stack_text<24> out;
      append_cents(out, cents);
      return numeric(trusted, borrowed_or_owned<char>::copy(out.view().data(), out.view().size()));
    }
    case t::text:
    case t::varchar:
    case t::bpchar:
    case t::name:
    case t::xml: return value(text::borrow(as_chars(bytes)));
    case t::internal_char: return cast_char_binary(bytes);
    case t::bytea: return value(bytea::borrow(bytes));
    case t::json: return value(json(text::borrow(as_chars(bytes))));
    case t::jsonb:  // a version byte (1 is the only one defined), then the JSON text
      if (bytes.empty() || bytes[0] != std::byte{1}) return fail(errc::decode_failure);
      return value(json(text::borrow(as_chars(bytes.subspan(1)))));
    case t::date: {  // int32 days since 2000-01-01; date_recv refuses days outside the date range
      std::int32_t days = 0;
      if (!read_exact(bytes, days) || !valid_pg_date(days)) return fail(errc::decode_failure);
      return value(date(days));
    }
    case t::time: {
      std::int64_t micros = 0;
      if (!read_exact(bytes, micros) || micros < 0 || micros > usecs_per_day) return fail(errc::decode_failure);
      return value(time_of_day(micros));
    }
    case t::timestamp: {  // int64 microseconds since 2000-01-01, range-checked like timestamp_recv
      std::int64_t micros = 0;
      if (!read_exact(bytes, micros) || !valid_pg_timestamp(micros)) return fail(errc::decode_failure);
      return value(timestamp(micros));
    }
    case t::timestamptz: {
      std::int64_t micros = 0;
      if (!read_exact(bytes, micros) || !valid_pg_timestamp(micros)) return fail(errc::decode_failure);
      return value(timestamptz(micros));
    }
    case t::timetz: {  // int64 microseconds since midnight, int32 zone in seconds west of UTC
      binary_cursor in(bytes);
      std::int64_t micros = 0;
      std::int32_t zone = 0;
      if (bytes.size() != 12 || !in.read_signed(micros) || !in.read_signed(zone) || micros < 0 ||
          micros > usecs_per_day || zone <= -16 * 3600 || zone >= 16 * 3600)
        return fail(errc::decode_failure);
      stack_text<32> out;  // "24:00:00.000000+15:59:59" at most
      append_timetz(out, micros, zone);
      return owned_text(out);
    }
    case t::interval: {  // int64 microseconds, int32 days, int32 months
      binary_cursor in(bytes);
      std::int64_t micros = 0;
      std::int32_t days = 0;
      std::int32_t months = 0;
      if (bytes.size() != 16 || !in.read_signed(micros) || !in.read_signed(days) || !in.read_signed(months))
        return fail(errc::decode_failure);
      stack_text<80> out;  // 68 characters at most, see append_interval
      append_interval(out, months, days, micros);
      return owned_text(out);
    }
    case t::uuid: {
      if (bytes.size() != 16) return fail(errc::decode_failure);
      std::array<std::uint8_t, 16> raw{};
      for (std::size_t i = 0; i < 16; ++i) raw[i] = std::to_integer<std::uint8_t>(bytes[i]);
      return value(uuid(raw));
    }
    default: break;
  }
  if (const auto element = t::element_of(type_oid); element != 0) return array_binary_reader(element, bytes).read();
  // A type replicant does not know: its send form is opaque here, so hand over the bytes unchanged.
  return value(bytea::borrow(bytes));
}

}  // namespace replicant::detail

#endif  // REPLICANT_MODEL_DETAIL_CAST_BINARY_HPP
