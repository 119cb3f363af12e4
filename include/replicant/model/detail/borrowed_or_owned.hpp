// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_DETAIL_BORROWED_OR_OWNED_HPP
#define REPLICANT_MODEL_DETAIL_BORROWED_OR_OWNED_HPP

// A contiguous run of T that either points into memory someone else owns (the received replication
// frame) or owns its elements. Values decoded from a frame borrow it, so the common path allocates
// nothing; a value kept past the sink callback (or spilled to disk) is made to own its bytes first.
//
// Owned runs of up to 16 bytes live inline (numeric digits, money amounts, timetz text rendered by
// the binary path), longer ones in a heap block; the object is 24 bytes either way.
//
// Copying preserves the mode: a borrowed copy borrows the same memory, an owned copy owns a copy.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

namespace replicant::detail {

template <class T>
class borrowed_or_owned {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) == 1, "a run of bytes or characters");

 public:
  /// Owned runs up to this length need no allocation.
  static constexpr std::size_t inline_capacity = 16;

  constexpr borrowed_or_owned() noexcept = default;

  // Points at [data, data + size) without copying; the caller keeps that memory alive.
  [[nodiscard]] static constexpr auto borrow(const T* data, std::size_t size) noexcept -> borrowed_or_owned {
    borrowed_or_owned out;
    out.far_ = {data, size};
    return out;
  }

  // Copies [data, data + size): inline when it fits, else into a fresh heap block.
  [[nodiscard]] static auto copy(const T* data, std::size_t size) -> borrowed_or_owned {
    borrowed_or_owned out;
    if (size <= inline_capacity) {
      out.mode_ = mode::local;
      out.local_size_ = static_cast<std::uint8_t>(size);
      out.local_ = {};
      for (std::size_t i = 0; i < size; ++i) out.local_.chars[i] = data[i];  // short: no memcpy call
    } else {
      auto block = std::make_unique_for_overwrite<T[]>(size);
      std::copy_n(data, size, block.get());
      out.mode_ = mode::heap;
      out.far_ = {block.release(), size};
    }
    return out;
  }

  // As copy(), for a source the caller guarantees to hold at least inline_capacity initialised
  // elements (a stack buffer): a short run is then copied with one fixed-size copy, which compiles to
  // two register moves instead of a call to memmove.
  [[nodiscard]] static auto copy_from_buffer(const T* data, std::size_t size) -> borrowed_or_owned {
    if (size > inline_capacity) return copy(data, size);
    borrowed_or_owned out;
    out.mode_ = mode::local;
    out.local_size_ = static_cast<std::uint8_t>(size);
    out.local_ = {};
    std::memcpy(out.local_.chars, data, inline_capacity);
    return out;
  }

  // Takes over a block allocated with new T[] holding `size` elements (it may be larger).
  [[nodiscard]] static auto adopt(std::unique_ptr<T[]> block, std::size_t size) noexcept -> borrowed_or_owned {
    borrowed_or_owned out;
    out.mode_ = mode::heap;
    out.far_ = {block.release(), size};
    return out;
  }

  borrowed_or_owned(const borrowed_or_owned& other) {
    if (other.mode_ == mode::heap) {
      *this = copy(other.far_.data, other.far_.size);
    } else {
      take_fields(other);
    }
  }

  constexpr borrowed_or_owned(borrowed_or_owned&& other) noexcept {
    take_fields(other);
    other.forget();
  }

  auto operator=(const borrowed_or_owned& other) -> borrowed_or_owned& {
    if (this != &other) *this = borrowed_or_owned(other);
    return *this;
  }

  constexpr auto operator=(borrowed_or_owned&& other) noexcept -> borrowed_or_owned& {
    if (this != &other) {
      release();
      take_fields(other);
      other.forget();
    }
    return *this;
  }

  constexpr ~borrowed_or_owned() { release(); }

  [[nodiscard]] constexpr auto data() const noexcept -> const T* {
    return mode_ == mode::local ? local_.chars : far_.data;
  }
  [[nodiscard]] constexpr auto size() const noexcept -> std::size_t {
    return mode_ == mode::local ? local_size_ : far_.size;
  }
  [[nodiscard]] constexpr auto is_owned() const noexcept -> bool { return mode_ != mode::borrowed; }

  // Detaches from the borrowed memory by copying it (no-op when already owned).
  auto own() -> void {
    if (mode_ == mode::borrowed) *this = copy(far_.data, far_.size);
  }

 private:
  enum class mode : std::uint8_t { borrowed, heap, local };

  struct far_run {
    const T* data;
    std::size_t size;
  };
  struct local_run {
    T chars[inline_capacity];
  };

  // Copies the fields of `other` (not a heap block's contents): a complete copy of a borrowed or
  // inline run, and the first half of a move.
  constexpr auto take_fields(const borrowed_or_owned& other) noexcept -> void {
    mode_ = other.mode_;
    local_size_ = other.local_size_;
    if (mode_ == mode::local) {
      local_ = other.local_;
    } else {
      far_ = other.far_;
    }
  }

  // Becomes empty without freeing (ownership went elsewhere).
  constexpr auto forget() noexcept -> void {
    mode_ = mode::borrowed;
    local_size_ = 0;
    far_ = {nullptr, 0};
  }

  constexpr auto release() noexcept -> void {
    if (mode_ == mode::heap) delete[] far_.data;
    forget();
  }

  union {
    far_run far_ = {nullptr, 0};
    local_run local_;
  };
  std::uint8_t local_size_ = 0;
  mode mode_ = mode::borrowed;
};

}  // namespace replicant::detail

#endif  // REPLICANT_MODEL_DETAIL_BORROWED_OR_OWNED_HPP
