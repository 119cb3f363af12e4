// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_BYTE_READER_HPP
#define REPLICANT_CORE_DETAIL_BYTE_READER_HPP

// A bounds-checked reader of big-endian wire data (the PostgreSQL replication protocol and its
// output plugins send every integer in network order).
//
// Why a sticky error flag rather than a result<T> per field: a pgoutput Insert is a dozen small
// reads, and checking each one would put a branch on a result after every field. Here a read that
// does not fit marks the reader failed, consumes everything that is left and yields zero or an empty
// view, so every later read fails too; the caller checks `finished()` (or `ok()`) once at the end of
// a message and turns failure into errc::decode_failure. No read ever touches memory outside the
// span, whatever the input: that is the only property the decoders rely on for safety.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>

namespace replicant::detail {

template <std::size_t... I>
[[nodiscard]] constexpr auto load_big_endian(const std::byte* p, std::index_sequence<I...>) noexcept -> std::uint64_t {
  return ((static_cast<std::uint64_t>(p[I]) << (8U * (sizeof...(I) - 1 - I))) | ...);
}

/// The N-byte big-endian unsigned integer at @p p (no bounds check: the caller proved N bytes).
// Written as one unrolled expression rather than a loop or std::byteswap (not in C++20): GCC and
// Clang compile it to a single load plus bswap at -O2, on any host byte order.
template <std::size_t N>
[[nodiscard]] constexpr auto load_big_endian(const std::byte* p) noexcept -> std::uint64_t {
  return load_big_endian(p, std::make_index_sequence<N>{});
}

/// Views the bytes [data, data + size) as characters (wire text is bytes in the client encoding).
[[nodiscard]] inline auto as_chars(std::span<const std::byte> bytes) noexcept -> std::string_view {
  // Character types may alias any object, so this reinterpretation is well defined.
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

/// Reads big-endian integers, NUL-terminated strings and counted byte runs from a span, never out
/// of bounds. Not thread-safe; cheap to copy (three words).
class byte_reader {
 public:
  /// A reader positioned at the first byte of @p bytes.
  constexpr explicit byte_reader(std::span<const std::byte> bytes) noexcept
      : data_(bytes.data()), size_(bytes.size()) {}

  /// False once any read did not fit (or `fail()` was called). Sticky.
  [[nodiscard]] constexpr auto ok() const noexcept -> bool { return ok_; }

  /// True when no read failed and every byte was consumed: the check that ends a message, since
  /// a pgoutput message is exactly one CopyData payload and trailing bytes mean a layout mismatch.
  [[nodiscard]] constexpr auto finished() const noexcept -> bool { return ok_ && pos_ == size_; }

  /// Bytes not read yet (0 after a failure).
  [[nodiscard]] constexpr auto remaining() const noexcept -> std::size_t { return size_ - pos_; }

  /// Offset of the next byte to read.
  [[nodiscard]] constexpr auto position() const noexcept -> std::size_t { return pos_; }

  /// `errc::decode_failure` if the reader failed, otherwise no error.
  [[nodiscard]] auto error() const noexcept -> std::error_code {
    return ok_ ? std::error_code{} : make_error_code(errc::decode_failure);
  }

  /// Marks the reader failed, e.g. when a field read fine but holds a value the layout forbids.
  constexpr auto fail() noexcept -> void {
    ok_ = false;
    pos_ = size_;
  }

  /// The next byte, without consuming it; 0 when none is left (which does not fail the reader).
  [[nodiscard]] constexpr auto peek_u8() const noexcept -> std::uint8_t {
    return pos_ < size_ ? static_cast<std::uint8_t>(data_[pos_]) : std::uint8_t{0};
  }

  // The fixed-width reads are always inlined: each is one bounds check, a load and a byte swap, and
  // GCC's inliner, short of budget in a grown caller, otherwise leaves some of them as calls (the
  // 8-byte ones once cost the decode benchmark 1.6 % of its instructions that way).
  [[nodiscard, gnu::always_inline]] constexpr auto u8() noexcept -> std::uint8_t {
    if (pos_ >= size_) return fail(), std::uint8_t{0};
    return static_cast<std::uint8_t>(data_[pos_++]);
  }

  [[nodiscard, gnu::always_inline]] constexpr auto u16() noexcept -> std::uint16_t {
    return static_cast<std::uint16_t>(big_endian<2>());
  }
  [[nodiscard, gnu::always_inline]] constexpr auto i16() noexcept -> std::int16_t {
    return static_cast<std::int16_t>(u16());
  }
  [[nodiscard, gnu::always_inline]] constexpr auto u32() noexcept -> std::uint32_t {
    return static_cast<std::uint32_t>(big_endian<4>());
  }
  [[nodiscard, gnu::always_inline]] constexpr auto i32() noexcept -> std::int32_t {
    return static_cast<std::int32_t>(u32());
  }
  [[nodiscard, gnu::always_inline]] constexpr auto u64() noexcept -> std::uint64_t { return big_endian<8>(); }
  [[nodiscard, gnu::always_inline]] constexpr auto i64() noexcept -> std::int64_t {
    return static_cast<std::int64_t>(u64());
  }

  /// A NUL-terminated string, without its NUL. The NUL must lie inside the span; otherwise the
  /// reader fails (a string running off the end of a message is truncation, not a short string).
  [[nodiscard]] auto string() noexcept -> std::string_view {
    if (pos_ >= size_) return fail(), std::string_view{};
    const auto* start = data_ + pos_;
    const auto* nul = static_cast<const std::byte*>(std::memchr(start, 0, size_ - pos_));
    if (nul == nullptr) return fail(), std::string_view{};
    const auto length = static_cast<std::size_t>(nul - start);
    pos_ += length + 1;
    return {reinterpret_cast<const char*>(start), length};
  }

  /// The next @p count bytes (a view into the span), or an empty view and a failed reader.
  [[nodiscard]] constexpr auto bytes(std::size_t count) noexcept -> std::span<const std::byte> {
    if (count > size_ - pos_) return fail(), std::span<const std::byte>{};
    const std::span<const std::byte> out{data_ + pos_, count};
    pos_ += count;
    return out;
  }

  /// Skips @p count bytes, failing if fewer are left.
  constexpr auto skip(std::size_t count) noexcept -> void {
    if (count > size_ - pos_) return fail();
    pos_ += count;
  }

  /// The bytes read since position @p mark (a value `position()` returned earlier).
  [[nodiscard]] constexpr auto consumed_since(std::size_t mark) const noexcept -> std::span<const std::byte> {
    return mark <= pos_ ? std::span<const std::byte>{data_ + mark, pos_ - mark} : std::span<const std::byte>{};
  }

  /// The bytes not read yet, without consuming them: for a caller that scans a run of fields with
  /// its own bounds checks and then `skip()`s what it validated.
  [[nodiscard]] constexpr auto unread() const noexcept -> std::span<const std::byte> {
    return {data_ + pos_, size_ - pos_};
  }

  /// Everything not read yet, consumed.
  [[nodiscard]] constexpr auto rest() noexcept -> std::span<const std::byte> { return bytes(size_ - pos_); }

 private:
  template <std::size_t N>
  [[nodiscard, gnu::always_inline]] constexpr auto big_endian() noexcept -> std::uint64_t {
    if (N > size_ - pos_) return fail(), std::uint64_t{0};
    const std::uint64_t v = load_big_endian<N>(data_ + pos_);
    pos_ += N;
    return v;
  }

  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

/// Writes big-endian integers into a fixed buffer. Only used with layouts whose size is a
/// compile-time constant, so the caller's buffer size is checked by the type system, not here.
class byte_writer {
 public:
  constexpr explicit byte_writer(std::span<std::byte> out) noexcept : out_(out) {}

  constexpr auto u8(std::uint8_t v) noexcept -> void { put(v, 1); }
  constexpr auto u64(std::uint64_t v) noexcept -> void { put(v, 8); }
  constexpr auto i64(std::int64_t v) noexcept -> void { put(static_cast<std::uint64_t>(v), 8); }

  [[nodiscard]] constexpr auto position() const noexcept -> std::size_t { return pos_; }

 private:
  constexpr auto put(std::uint64_t v, std::size_t n) noexcept -> void {
    REPLICANT_ASSERT(n <= out_.size() - pos_);
    for (std::size_t i = 0; i < n; ++i) {
      out_[pos_ + i] = static_cast<std::byte>((v >> (8U * (n - 1 - i))) & 0xFFU);
    }
    pos_ += n;
  }

  std::span<std::byte> out_;
  std::size_t pos_ = 0;
};

}  // namespace replicant::detail

#endif  // REPLICANT_CORE_DETAIL_BYTE_READER_HPP
