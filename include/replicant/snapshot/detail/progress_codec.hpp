// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SNAPSHOT_DETAIL_PROGRESS_CODEC_HPP
#define REPLICANT_SNAPSHOT_DETAIL_PROGRESS_CODEC_HPP

/// @file
/// The texts of the incremental snapshot: the progress token a sink or store keeps, the
/// encoded key of a row, the content of a watermark message, and the `pg_current_snapshot()` text
/// a chunk was read under. Private: the token is opaque to users, and the rest never leaves the
/// library.
///
/// Every variable-length field is written as `<length>:<bytes>` (a netstring without the trailing
/// comma), so a field may hold any byte and nothing needs escaping. The token and the keys hold
/// row values (the last key read): like rows, they go to the sink or the store and never into an
/// error, a log line or telemetry.

#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/snapshot/detail/decimal.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace replicant::detail {

// --- fields -------------------------------------------------------------------------------------

// Appends @p field as `<length>:<bytes>`.
inline auto append_netstring(std::string& out, std::string_view field) -> void {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

// Takes one `<length>:<bytes>` field off the front of @p text; nothing when it is not one.
[[nodiscard]] inline auto take_netstring(std::string_view& text) noexcept -> std::optional<std::string_view> {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 10) return std::nullopt;
  std::size_t length = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + colon, length);
  if (ec != std::errc{} || end != text.data() + colon || length > text.size() - colon - 1) return std::nullopt;
  const auto field = text.substr(colon + 1, length);
  text.remove_prefix(colon + 1 + length);
  return field;
}

// --- keys ---------------------------------------------------------------------------------------

// The encoded key of a row: the text of each key column, in key order, as fields. Equal keys have
// equal encodings (the server writes a value's text the same way on the stream and on COPY, given
// the same session settings, which both connections pin).
[[nodiscard]] inline auto encode_key(std::span<const std::string_view> columns) -> std::string {
  std::string out;
  for (const auto c : columns) append_netstring(out, c);
  return out;
}

// The column texts of an encoded key, or nothing when @p key is not one.
[[nodiscard]] inline auto decode_key(std::string_view key) -> std::optional<std::vector<std::string_view>> {
  std::vector<std::string_view> out;
  while (!key.empty()) {
    const auto field = take_netstring(key);
    if (!field) return std::nullopt;
    out.push_back(*field);
  }
  return out;
}

// --- progress -----------------------------------------------------------------------------------

/**
 * Where an incremental snapshot stands: what its progress token says.
 *
 * Tables are read one after another in the byte order of (schema, name). A position names the
 * table the snapshot is in by name, not by OID, so that a table recreated under the same name is
 * simply read again, and one that is gone is skipped by name order.
 */
struct snapshot_position {
  enum class phase : char {
    arming = 'A',    // the tables are being cleared; nothing else has been delivered
    table = 'T',     // in (or right after) the table named below
    complete = 'C',  // every table is done
  };
  phase at = phase::table;
  std::string schema;  // the table (phase::table)
  std::string table;
  bool table_done = false;       // every chunk of it is applied
  std::string key;               // encoded key of the last row applied; empty: none of this table yet
  std::uint64_t rows = 0;        // rows the snapshot delivered, all tables
  std::uint64_t table_rows = 0;  // of them, this table's

  friend auto operator==(const snapshot_position&, const snapshot_position&) -> bool = default;
};

inline constexpr std::string_view progress_token_magic = "rbf1";

// The token of @p p.
[[nodiscard]] inline auto encode_position(const snapshot_position& p) -> std::string {
  std::string out;
  append_netstring(out, progress_token_magic);
  append_netstring(out, std::string_view{reinterpret_cast<const char*>(&p.at), 1});  // NOLINT: one char
  append_netstring(out, std::to_string(p.rows));
  if (p.at == snapshot_position::phase::table) {
    append_netstring(out, std::to_string(p.table_rows));
    append_netstring(out, p.table_done ? "1" : "0");
    append_netstring(out, p.schema);
    append_netstring(out, p.table);
    append_netstring(out, p.key);
  }
  return out;
}

// The position a token names; `errc::store_mismatch` for anything encode_position() did not write.
[[nodiscard]] inline auto decode_position(std::string_view token) -> result<snapshot_position> {
  snapshot_position p;
  const auto magic = take_netstring(token);
  const auto phase = take_netstring(token);
  const auto rows = take_netstring(token);
  if (magic != progress_token_magic || !phase || phase->size() != 1 || !rows) return fail(errc::store_mismatch);
  const auto n = parse_decimal<std::uint64_t>(*rows);
  if (!n) return fail(errc::store_mismatch);
  p.rows = *n;
  switch ((*phase)[0]) {
    case 'A': p.at = snapshot_position::phase::arming; break;
    case 'C': p.at = snapshot_position::phase::complete; break;
    case 'T': {
      p.at = snapshot_position::phase::table;
      const auto table_rows = take_netstring(token);
      const auto done = take_netstring(token);
      const auto schema = take_netstring(token);
      const auto table = take_netstring(token);
      const auto key = take_netstring(token);
      if (!table_rows || !done || !schema || !table || !key || (*done != "0" && *done != "1")) {
        return fail(errc::store_mismatch);
      }
      const auto t = parse_decimal<std::uint64_t>(*table_rows);
      if (!t || !decode_key(*key) || schema->empty() || table->empty()) return fail(errc::store_mismatch);
      p.table_rows = *t;
      p.table_done = *done == "1";
      p.schema = std::string{*schema};
      p.table = std::string{*table};
      p.key = std::string{*key};
      break;
    }
    default: return fail(errc::store_mismatch);
  }
  if (!token.empty()) return fail(errc::store_mismatch);
  return p;
}

// --- watermarks ---------------------------------------------------------------------------------

// The prefix of every watermark message (`pg_logical_emit_message(true, prefix, content)`). It keeps
// the word the first releases used: watermarks of a snapshot begun by one of them may still be in
// a slot's WAL, and must be known again.
inline constexpr std::string_view watermark_prefix = "replicant.backfill";

/**
 * What a watermark message says. The content is ASCII: a nonce drawn when the reader starts (so
 * that the watermarks of earlier runs, which the stream may replay, are never taken for this
 * run's), the epoch (bumped when a chunk is discarded, so that chunks read ahead of it are ignored
 * too), the chunk's sequence number, low or high, and the table's OID.
 */
struct watermark {
  std::uint64_t nonce = 0;
  std::uint32_t epoch = 0;
  std::uint64_t seq = 0;
  bool low = true;
  std::uint32_t table_oid = 0;

  friend auto operator==(const watermark&, const watermark&) -> bool = default;
};

// The content of @p w, e.g. "00ab34cd00ab34cd/0/17/L/16384".
[[nodiscard]] inline auto format_watermark(const watermark& w) -> std::string {
  char nonce[16];
  for (int i = 0; i < 16; ++i) {
    nonce[i] = "0123456789abcdef"[(w.nonce >> (4U * static_cast<unsigned>(15 - i))) & 0xFU];
  }
  return std::string{nonce, 16} + '/' + std::to_string(w.epoch) + '/' + std::to_string(w.seq) + '/' +
         (w.low ? 'L' : 'H') + '/' + std::to_string(w.table_oid);
}

// The watermark in @p content, or nothing when it is not one of format_watermark()'s texts.
[[nodiscard]] inline auto parse_watermark(std::span<const std::byte> content) noexcept -> std::optional<watermark> {
  const std::string_view text{reinterpret_cast<const char*>(content.data()), content.size()};  // NOLINT: bytes as text
  std::string_view part[5];
  std::string_view rest = text;
  for (int i = 0; i < 5; ++i) {
    const auto slash = rest.find('/');
    if ((slash == std::string_view::npos) != (i == 4)) return std::nullopt;
    part[i] = rest.substr(0, slash);
    if (slash != std::string_view::npos) rest.remove_prefix(slash + 1);
  }
  watermark w;
  if (part[0].size() != 16) return std::nullopt;
  for (const char c : part[0]) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    w.nonce = (w.nonce << 4U) | static_cast<std::uint64_t>(d);
  }
  const auto epoch = parse_decimal<std::uint32_t>(part[1]);
  const auto seq = parse_decimal<std::uint64_t>(part[2]);
  const auto oid = parse_decimal<std::uint32_t>(part[4]);
  if (!epoch || !seq || !oid || (part[3] != "L" && part[3] != "H")) return std::nullopt;
  w.epoch = *epoch;
  w.seq = *seq;
  w.low = part[3] == "L";
  w.table_oid = *oid;
  return w;
}

// --- snapshots ----------------------------------------------------------------------------------

/**
 * A `pg_current_snapshot()` value (`xmin:xmax:xip,...`, 64-bit transaction ids with their epoch):
 * which transactions the chunk's read could see.
 *
 * This is what handles the visibility caveat of PROTOCOL.md §6.3: a transaction writes its commit
 * record before it becomes visible, so one whose commit precedes the low watermark in the stream
 * can still be invisible to a read taken after it. Such a transaction is in `xip` (or at or past
 * `xmax`), and its rows count as touched in the window.
 */
struct xid_snapshot {
  std::uint64_t xmin = 0;
  std::uint64_t xmax = 0;
  std::vector<std::uint64_t> xip;  // sorted

  // Parses the text form; nothing when it is not one.
  [[nodiscard]] static auto parse(std::string_view text) -> std::optional<xid_snapshot> {
    xid_snapshot s;
    const auto first = text.find(':');
    const auto second = first == std::string_view::npos ? first : text.find(':', first + 1);
    if (second == std::string_view::npos) return std::nullopt;
    const auto xmin = parse_decimal<std::uint64_t>(text.substr(0, first));
    const auto xmax = parse_decimal<std::uint64_t>(text.substr(first + 1, second - first - 1));
    if (!xmin || !xmax || *xmin > *xmax) return std::nullopt;
    s.xmin = *xmin;
    s.xmax = *xmax;
    std::string_view list = text.substr(second + 1);
    while (!list.empty()) {
      const auto comma = list.find(',');
      const auto x = parse_decimal<std::uint64_t>(list.substr(0, comma));
      if (!x || *x < s.xmin || *x >= s.xmax) return std::nullopt;
      s.xip.push_back(*x);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
      if (list.empty()) return std::nullopt;
    }
    std::sort(s.xip.begin(), s.xip.end());
    return s;
  }

  // Whether the 32-bit transaction id @p xid (as pgoutput sends it) was visible to the read: it is
  // widened to 64 bits next to xmax, since every transaction in question is recent.
  [[nodiscard]] auto sees(std::uint32_t xid) const noexcept -> bool {
    const auto delta = static_cast<std::int32_t>(xid - static_cast<std::uint32_t>(xmax));
    const auto full = static_cast<std::int64_t>(xmax) + delta;
    if (full < 0) return true;  // older than anything a recent snapshot can miss
    const auto x = static_cast<std::uint64_t>(full);
    if (x < xmin) return true;
    if (x >= xmax) return false;
    return !std::binary_search(xip.begin(), xip.end(), x);
  }
};

}  // namespace replicant::detail

#endif  // REPLICANT_SNAPSHOT_DETAIL_PROGRESS_CODEC_HPP
