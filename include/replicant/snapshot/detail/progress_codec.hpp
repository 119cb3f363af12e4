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

#include <replicant/core/detail/config.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>

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
REPLICANT_DECL auto append_netstring(std::string& out, std::string_view field) -> void;

// Takes one `<length>:<bytes>` field off the front of @p text; nothing when it is not one.
[[nodiscard]] REPLICANT_DECL auto take_netstring(std::string_view& text) noexcept -> std::optional<std::string_view>;

// --- keys ---------------------------------------------------------------------------------------

// The encoded key of a row: the text of each key column, in key order, as fields. Equal keys have
// equal encodings (the server writes a value's text the same way on the stream and on COPY, given
// the same session settings, which both connections pin).
[[nodiscard]] REPLICANT_DECL auto encode_key(std::span<const std::string_view> columns) -> std::string;

// The column texts of an encoded key, or nothing when @p key is not one.
[[nodiscard]] REPLICANT_DECL auto decode_key(std::string_view key) -> std::optional<std::vector<std::string_view>>;

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
[[nodiscard]] REPLICANT_DECL auto encode_position(const snapshot_position& p) -> std::string;

// The position a token names; `errc::store_mismatch` for anything encode_position() did not write.
[[nodiscard]] REPLICANT_DECL auto decode_position(std::string_view token) -> result<snapshot_position>;

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
[[nodiscard]] REPLICANT_DECL auto format_watermark(const watermark& w) -> std::string;

// The watermark in @p content, or nothing when it is not one of format_watermark()'s texts.
[[nodiscard]] REPLICANT_DECL auto parse_watermark(std::span<const std::byte> content) noexcept
    -> std::optional<watermark>;

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
  [[nodiscard]] static auto parse(std::string_view text) -> std::optional<xid_snapshot>;

  // Whether the 32-bit transaction id @p xid (as pgoutput sends it) was visible to the read: it is
  // widened to 64 bits next to xmax, since every transaction in question is recent.
  [[nodiscard]] auto sees(std::uint32_t xid) const noexcept -> bool;
};

}  // namespace replicant::detail

// The bodies: in every unit header-only, in the one unit that includes <replicant/src.hpp> with
// REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/snapshot/detail/impl/progress_codec.hpp>
#endif

#endif  // REPLICANT_SNAPSHOT_DETAIL_PROGRESS_CODEC_HPP
