// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_DETAIL_PGOUTPUT_WRITER_HPP
#define REPLICANT_DECODER_DETAIL_PGOUTPUT_WRITER_HPP

// Writes pgoutput messages (protocol version 1 layouts, PROTOCOL.md §2.2, never inside a stream, so
// without xids) for the decoders that translate another plugin's output into pgoutput: the
// assembler then consumes the translation exactly as it consumes pgoutput from the server.
//
// One writer collects every message that one input payload translates into, back to back in one
// buffer with their boundaries, so that a translator can finish all of its own work (which may
// allocate and fail) before it hands the first message to its caller. The buffer is reused from
// one payload to the next, so a steady stream allocates nothing once it has seen its largest row.

#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/relation.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace replicant {

/**
 * What a translating decoder hands each pgoutput message to: a callable taking the message's bytes
 * (valid only during the call), returning `void` or `result<void>` (an error stops the translation
 * and is returned by it).
 *
 * @par Example
 * @code
 * auto to_assembler = [&](std::span<const std::byte> message) { return assembler.push(message, handler); };
 * @endcode
 */
template <class Emit>
concept pgoutput_emitter = std::invocable<Emit&, std::span<const std::byte>> &&
                           (std::is_void_v<std::invoke_result_t<Emit&, std::span<const std::byte>>> ||
                            std::same_as<std::invoke_result_t<Emit&, std::span<const std::byte>>, result<void>>);

namespace detail {

// The largest column count a tuple can have (MaxTupleAttributeNumber); a wider description cannot
// come from a real server.
inline constexpr std::size_t max_columns = 1664;

class pgoutput_writer {
 public:
  // Forgets the messages written so far, keeping the memory.
  auto clear() noexcept -> void {
    bytes_.clear();
    ends_.clear();
  }

  [[nodiscard]] auto empty() const noexcept -> bool { return ends_.empty(); }
  [[nodiscard]] auto count() const noexcept -> std::size_t { return ends_.size(); }

  // The i-th message written.
  [[nodiscard]] auto message(std::size_t i) const noexcept -> std::span<const std::byte> {
    const std::size_t from = i == 0 ? 0 : ends_[i - 1];
    return std::span<const std::byte>{bytes_}.subspan(from, ends_[i] - from);
  }

  // Begin 'B': final_lsn, commit time (microseconds since 2000), xid.
  auto begin(lsn final_lsn, std::int64_t commit_time, std::uint32_t xid) -> void {
    ch('B');
    u64(final_lsn.value());
    u64(static_cast<std::uint64_t>(commit_time));
    u32(xid);
    end();
  }

  // Commit 'C': flags 0, commit_lsn, end_lsn, commit time.
  auto commit(lsn commit_lsn, lsn end_lsn, std::int64_t commit_time) -> void {
    ch('C');
    u8(0);
    u64(commit_lsn.value());
    u64(end_lsn.value());
    u64(static_cast<std::uint64_t>(commit_time));
    end();
  }

  // Origin 'O'. The name must hold no NUL byte (the caller checks what it did not make itself).
  auto origin(lsn origin_lsn, std::string_view name) -> void {
    ch('O');
    u64(origin_lsn.value());
    str(name);
    end();
  }

  // Relation 'R' for @p r. Names must hold no NUL byte and the column count must not exceed
  // max_columns (the caller checks both).
  auto relation(const relation_info& r) -> void {
    REPLICANT_ASSERT(r.columns.size() <= max_columns);
    ch('R');
    u32(r.oid);
    str(r.schema);
    str(r.table);
    u8(static_cast<std::uint8_t>(r.identity));
    u16(static_cast<std::uint16_t>(r.columns.size()));
    for (const column_info& c : r.columns) {
      u8(c.key ? 1 : 0);
      str(c.name);
      u32(c.type_oid);
      u32(static_cast<std::uint32_t>(c.type_modifier));
    }
    end();
  }

  // Insert 'I', Update 'U' and Delete 'D' are written piecewise: the head, then for an update or
  // a delete optionally an old tuple marker ('K' or 'O') and its tuple, then the new tuple marker
  // 'N' and its tuple (not for a delete), then end().
  auto row_head(char type, std::uint32_t relation_oid) -> void {
    ch(type);
    u32(relation_oid);
  }
  auto tuple_marker(char kind) -> void { ch(kind); }
  auto tuple_head(std::size_t columns) -> void {
    REPLICANT_ASSERT(columns <= max_columns);
    u16(static_cast<std::uint16_t>(columns));
  }
  auto null_column() -> void { ch('n'); }
  auto unchanged_column() -> void { ch('u'); }
  // A text column: the bytes of @p prefix followed by those of @p text (bytea's `\x` is the one
  // prefix a translator adds), without a terminator.
  auto text_column(std::string_view text, std::string_view prefix = {}) -> void {
    ch('t');
    u32(static_cast<std::uint32_t>(prefix.size() + text.size()));
    raw(prefix);
    raw(text);
  }

  // Truncate 'T' of one relation, with the CASCADE / RESTART IDENTITY option bits.
  auto truncate(std::uint32_t relation_oid, std::uint8_t options) -> void {
    ch('T');
    u32(1);
    u8(options);
    u32(relation_oid);
    end();
  }

  // Message 'M'. The prefix must hold no NUL byte.
  auto logical_message(bool transactional, lsn at, std::string_view prefix, std::string_view content) -> void {
    ch('M');
    u8(transactional ? 1 : 0);
    u64(at.value());
    str(prefix);
    u32(static_cast<std::uint32_t>(content.size()));
    raw(content);
    end();
  }

  // Closes the message being written.
  auto end() -> void { ends_.push_back(bytes_.size()); }

 private:
  auto ch(char c) -> void { bytes_.push_back(static_cast<std::byte>(c)); }
  auto u8(std::uint8_t v) -> void { bytes_.push_back(static_cast<std::byte>(v)); }
  auto u16(std::uint16_t v) -> void { put(v, 2); }
  auto u32(std::uint32_t v) -> void { put(v, 4); }
  auto u64(std::uint64_t v) -> void { put(v, 8); }
  auto put(std::uint64_t v, unsigned n) -> void {
    for (unsigned i = n; i-- > 0;) bytes_.push_back(static_cast<std::byte>((v >> (8U * i)) & 0xFFU));
  }
  auto raw(std::string_view s) -> void {
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    bytes_.insert(bytes_.end(), p, p + s.size());
  }
  auto str(std::string_view s) -> void {
    raw(s);
    u8(0);
  }

  std::vector<std::byte> bytes_;
  std::vector<std::size_t> ends_;
};

// Hands every message of @p out to @p emit in order, stopping at the first error it returns.
template <class Emit>
[[nodiscard]] auto emit_all(const pgoutput_writer& out, Emit& emit) -> result<void> {
  for (std::size_t i = 0; i < out.count(); ++i) {
    if constexpr (std::is_void_v<std::invoke_result_t<Emit&, std::span<const std::byte>>>) {
      std::invoke(emit, out.message(i));
    } else {
      if (auto r = std::invoke(emit, out.message(i)); !r) return r;
    }
  }
  return {};
}

// The element of @p columns (column_info or any struct with a `name`) named @p name, or null.
template <class Columns>
[[nodiscard]] auto find_named(const Columns& columns, std::string_view name) noexcept -> const
    typename Columns::value_type* {
  for (const auto& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// True when two of @p columns share a name. PostgreSQL forbids that, and the pgoutput decoder
// refuses such a description, so a translator must not produce one from a malformed payload.
[[nodiscard]] inline auto has_duplicate_names(const std::vector<column_info>& columns) -> bool {
  std::vector<std::string_view> names;
  names.reserve(columns.size());
  for (const column_info& c : columns) names.emplace_back(c.name);
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) != names.end();
}

// True when @p s holds a NUL byte, which no name on the pgoutput wire may contain (its strings are
// NUL-terminated).
[[nodiscard]] inline auto has_nul(std::string_view s) noexcept -> bool {
  return s.find('\0') != std::string_view::npos;
}

}  // namespace detail
}  // namespace replicant

#endif  // REPLICANT_DECODER_DETAIL_PGOUTPUT_WRITER_HPP
