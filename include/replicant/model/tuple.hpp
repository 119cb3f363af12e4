// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_TUPLE_HPP
#define REPLICANT_MODEL_TUPLE_HPP

/// @file
/// The model's row encoding: replicant::tuple_data, a validated, zero-copy view of one row's
/// columns, each null, unchanged (a TOASTed value the server did not send) or a text or binary
/// value. The layout is pgoutput's TupleData (an Int16 count, then per column a kind byte and,
/// for a value, an Int32 length and the bytes; PROTOCOL.md §2), because that is what most changes
/// arrive as: pgoutput's rows are used as they come, and the other plugins and the snapshot readers
/// write theirs in the same layout. A change, a spilled record and a snapshot row are all
/// tuple_data, so a sink reads them the same way.

#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>

namespace replicant {

class tuple_data;

namespace detail {
// Reads and validates one TupleData at the reader's position; on malformed input the reader is left
// failed and an empty tuple is returned. The only way a tuple_data comes to exist.
[[nodiscard]] inline auto read_tuple(byte_reader& in) noexcept -> tuple_data;
// As read_tuple(in), also handing the text values of the columns @p watch selects to @p check, with
// the column's index: bit i selects column i, and bit 63, which stays set as the mask shifts, every
// column from the 64th on. A value @p check returns false for makes the tuple malformed. A decoder
// checks values this way in the same pass (the loop is the decoder's hottest) at the cost of a
// shift per column, rather than walking the columns a second time.
template <class Check>
[[nodiscard]] auto read_tuple(byte_reader& in, std::int64_t watch, Check&& check) -> tuple_data;
}  // namespace detail

/// How a column's value is sent in a TupleData (`LOGICALREP_COLUMN_*`).
enum class column_kind : char {
  /// `'n'`: SQL NULL.
  null_value = 'n',
  /// `'u'`: an out-of-line TOAST value that did not change; its value is not sent at all, and a
  /// consumer must leave the stored value alone (in practice only in an UPDATE's new tuple).
  unchanged_toast = 'u',
  /// `'t'`: the type's text output, in the session's client encoding.
  text = 't',
  /// `'b'`: the type's binary `send` output (only with the `binary` option).
  binary = 'b',
};

/**
 * One column of a TupleData: its kind and, for text and binary, a view of its bytes in the frame.
 *
 * @par Thread safety
 * A view: valid while the frame it was decoded from is alive and unchanged.
 */
struct tuple_column {
  /// How the value is sent.
  column_kind kind = column_kind::null_value;
  /// The value's bytes for `text` and `binary`; empty for `null` and `unchanged_toast` (and for
  /// an empty text value, so test `kind`, not emptiness).
  std::span<const std::byte> bytes{};

  /// The bytes as characters (meaningful for `text`; text output never contains NUL).
  [[nodiscard]] auto text() const noexcept -> std::string_view { return detail::as_chars(bytes); }
  /// True for SQL NULL.
  [[nodiscard]] constexpr auto is_null() const noexcept -> bool { return kind == column_kind::null_value; }
  /// True for an unchanged TOAST value (no value sent).
  [[nodiscard]] constexpr auto is_unchanged_toast() const noexcept -> bool {
    return kind == column_kind::unchanged_toast;
  }
};

/**
 * A validated TupleData: a forward range of @ref tuple_column views, one per published column,
 * in the order of the relation's columns.
 *
 * Only the decoder (or @ref parse_tuple_data) makes one, after checking every length against the
 * frame, so iterating needs no further checks. Iteration decodes each column's header on the fly
 * (no per-row allocation); to visit columns alongside the relation's, iterate both in step.
 *
 * @par Thread safety
 * A view: valid while the frame it was decoded from is alive and unchanged.
 */
class tuple_data {
 public:
  /// Forward iterator yielding @ref tuple_column by value.
  class iterator {
   public:
    /// Iterator traits: a C++20 forward iterator that yields columns by value, so only an input
    /// iterator by the C++17 rules (whose forward iterators must yield references).
    ///@{
    using value_type = tuple_column;
    using reference = tuple_column;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::input_iterator_tag;  // yields values, not references
    ///@}

    /// A singular iterator (equal to the end of an empty tuple).
    iterator() = default;

    /// The current column.
    [[nodiscard]] auto operator*() const noexcept -> tuple_column { return current_; }
    /// Moves to the next column.
    auto operator++() noexcept -> iterator& {
      ++index_;
      load();
      return *this;
    }
    /// Moves to the next column, returning the previous position.
    auto operator++(int) noexcept -> iterator {
      iterator before = *this;
      ++*this;
      return before;
    }
    /// Same position (meaningful for iterators of the same tuple).
    [[nodiscard]] friend auto operator==(const iterator& a, const iterator& b) noexcept -> bool {
      return a.index_ == b.index_;
    }

   private:
    friend class tuple_data;
    iterator(const std::byte* next, std::uint16_t index, std::uint16_t count) noexcept
        : next_(next), index_(index), count_(count) {
      load();
    }
    auto load() noexcept -> void;

    const std::byte* next_ = nullptr;
    std::uint16_t index_ = 0;
    std::uint16_t count_ = 0;
    tuple_column current_;
  };

  /// An empty tuple (no columns), as in a message without an old tuple.
  constexpr tuple_data() noexcept = default;

  /// Number of columns.
  [[nodiscard]] constexpr auto size() const noexcept -> std::size_t { return count_; }
  /// True when there are no columns.
  [[nodiscard]] constexpr auto empty() const noexcept -> bool { return count_ == 0; }
  /// How many columns are `unchanged_toast`: lets a consumer skip the unchanged-column bookkeeping
  /// for the vast majority of rows, which have none.
  [[nodiscard]] constexpr auto unchanged_toast_count() const noexcept -> std::size_t { return unchanged_; }
  /// The TupleData exactly as on the wire (the Int16 count and the columns), e.g. to copy it
  /// when spilling and re-parse the copy later with @ref parse_tuple_data.
  [[nodiscard]] auto wire() const noexcept -> std::span<const std::byte> { return {data_, size_}; }

  /// The first column.
  [[nodiscard]] auto begin() const noexcept -> iterator {
    return count_ == 0 ? iterator{} : iterator{data_ + 2, 0, count_};
  }
  /// Past the last column.
  [[nodiscard]] auto end() const noexcept -> iterator {
    iterator e;
    e.index_ = count_;
    return e;
  }

 private:
  template <class Check>
  friend auto detail::read_tuple(detail::byte_reader& in, std::int64_t watch, Check&& check) -> tuple_data;

  const std::byte* data_ = nullptr;
  std::uint32_t size_ = 0;
  std::uint16_t count_ = 0;
  std::uint16_t unchanged_ = 0;
};

/**
 * Parses @p bytes as exactly one TupleData (as returned by `tuple_data::wire()`).
 *
 * @return the validated tuple viewing @p bytes, or `errc::decode_failure`.
 * @par Exceptions
 * Never throws.
 */
[[nodiscard]] inline auto parse_tuple_data(std::span<const std::byte> bytes) noexcept -> result<tuple_data> {
  detail::byte_reader in{bytes};
  tuple_data t = detail::read_tuple(in);
  if (!in.finished()) return fail(errc::decode_failure);
  return t;
}

/// Which old values an UPDATE or DELETE carries.
enum class old_tuple_kind : char {
  /// No old tuple (an UPDATE that changed no key column and has no TOASTed key).
  none = 0,
  /// `'K'`: the replica-identity key; all published columns are present, non-key ones as NULL.
  key = 'K',
  /// `'O'`: the whole old row (`REPLICA IDENTITY FULL`).
  full = 'O',
};

inline auto tuple_data::iterator::load() noexcept -> void {
  if (index_ >= count_) return;
  // No bounds checks: a tuple_data only exists after read_tuple validated all of its columns.
  const auto kind = static_cast<column_kind>(static_cast<char>(*next_));
  ++next_;
  if (kind == column_kind::text || kind == column_kind::binary) {
    const std::size_t length = detail::load_big_endian<4>(next_);
    next_ += 4;
    current_ = tuple_column{kind, std::span<const std::byte>{next_, length}};
    next_ += length;
  } else {
    current_ = tuple_column{kind, {}};
  }
}

inline auto detail::read_tuple(byte_reader& in) noexcept -> tuple_data {
  return read_tuple(in, 0, [](std::size_t, std::string_view) noexcept { return true; });
}

template <class Check>
auto detail::read_tuple(byte_reader& in, std::int64_t watch, Check&& check) -> tuple_data {
  // The hottest loop of the decoder (once per column of every row), so it scans with raw pointers
  // and its own bounds checks instead of one checked reader call per field, then consumes what it
  // validated in one step.
  const std::span<const std::byte> unread = in.unread();
  const std::byte* const start = unread.data();
  const std::byte* const end = start + unread.size();
  const auto malformed = [&in]() noexcept {
    in.fail();
    return tuple_data{};
  };
  if (unread.size() < 2) return malformed();
  const auto count = static_cast<std::uint16_t>(detail::load_big_endian<2>(start));
  const std::byte* p = start + 2;
  // Every iteration consumes at least one byte or fails, so the loop is bounded by the payload
  // whatever count the sender claims.
  std::uint16_t unchanged = 0;
  for (std::uint16_t i = 0; i < count; ++i, watch >>= 1) {  // an arithmetic shift: bit 63 stays
    if (p == end) return malformed();
    const auto kind = static_cast<std::uint8_t>(*p++);
    if (kind == 't' || kind == 'b') {
      if (end - p < 4) return malformed();
      const std::uint64_t length = detail::load_big_endian<4>(p);
      p += 4;
      // An Int32 on the wire: negative (bit 31 set) or past the end is malformed.
      if (length > INT32_MAX || length > static_cast<std::size_t>(end - p)) return malformed();
      if (kind == 't' && (watch & 1) != 0 && !check(std::size_t{i}, as_chars({p, static_cast<std::size_t>(length)}))) {
        return malformed();
      }
      p += length;
    } else if (kind == 'u') {
      ++unchanged;
    } else if (kind != 'n') {
      // The server's own reader rejects any other kind too (proto.c, logicalrep_read_tuple).
      return malformed();
    }
  }
  const auto size = static_cast<std::size_t>(p - start);
  if (size > UINT32_MAX) return malformed();
  in.skip(size);
  tuple_data out;
  out.data_ = start;
  out.size_ = static_cast<std::uint32_t>(size);
  out.count_ = count;
  out.unchanged_ = unchanged;
  return out;
}

}  // namespace replicant

#endif  // REPLICANT_MODEL_TUPLE_HPP
