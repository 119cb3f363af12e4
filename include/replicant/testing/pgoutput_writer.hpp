// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_PGOUTPUT_WRITER_HPP
#define REPLICANT_TESTING_PGOUTPUT_WRITER_HPP

/// @file
/// An encoder for the replication framing and pgoutput messages, so that tests (the library's,
/// the simulator's, a user's) state the messages they feed a decoder by field instead of by hex. It
/// writes exactly the layouts the server sends and checks nothing: malformed input is made by
/// editing its output.

#include <replicant/core/lsn.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::testing::pgoutput {

/// Encoded bytes.
using bytes = std::vector<std::byte>;

/// A big-endian writer with chainable calls: `wire{}.ch('B').u64(1).take()`.
class wire {
 public:
  /// Appends one byte.
  auto u8(std::uint8_t v) -> wire& { return put(v, 1); }
  /// Appends a character (a message type).
  auto ch(char c) -> wire& { return u8(static_cast<std::uint8_t>(c)); }
  /// Appends a 16-bit unsigned integer.
  auto u16(std::uint16_t v) -> wire& { return put(v, 2); }
  /// Appends a 16-bit signed integer.
  auto i16(std::int16_t v) -> wire& { return put(static_cast<std::uint16_t>(v), 2); }
  /// Appends a 32-bit unsigned integer.
  auto u32(std::uint32_t v) -> wire& { return put(v, 4); }
  /// Appends a 32-bit signed integer.
  auto i32(std::int32_t v) -> wire& { return put(static_cast<std::uint32_t>(v), 4); }
  /// Appends a 64-bit unsigned integer.
  auto u64(std::uint64_t v) -> wire& { return put(v, 8); }
  /// Appends a 64-bit signed integer.
  auto i64(std::int64_t v) -> wire& { return put(static_cast<std::uint64_t>(v), 8); }
  /// Appends a position.
  auto at(lsn v) -> wire& { return u64(v.value()); }
  /// A NUL-terminated string.
  auto str(std::string_view s) -> wire& { return raw(s).u8(0); }
  /// Bytes without a terminator.
  auto raw(std::string_view s) -> wire& {
    for (char c : s) out_.push_back(static_cast<std::byte>(c));
    return *this;
  }
  /// Appends bytes as they are.
  auto raw(std::span<const std::byte> b) -> wire& {
    out_.insert(out_.end(), b.begin(), b.end());
    return *this;
  }
  /// The bytes written; the writer is empty after.
  [[nodiscard]] auto take() -> bytes { return std::move(out_); }

 private:
  auto put(std::uint64_t v, int n) -> wire& {
    for (int i = n - 1; i >= 0; --i) out_.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFFU));
    return *this;
  }
  bytes out_;
};

/// One TupleData column.
struct col {
  /// `n` (NULL), `u` (unchanged TOAST), `t` (text) or `b` (binary).
  char kind = 'n';
  /// The value, for `t` and `b`.
  std::string value;

  /// A NULL column.
  static auto null() -> col { return {'n', {}}; }
  /// An unchanged TOAST column (no value sent).
  static auto unchanged() -> col { return {'u', {}}; }
  /// A column in text format.
  static auto text(std::string v) -> col { return {'t', std::move(v)}; }
  /// A column in binary format.
  static auto binary(std::string v) -> col { return {'b', std::move(v)}; }
};

/// One Relation column.
struct attr {
  /// The column's name.
  std::string name;
  /// The column type's OID (text by default).
  std::uint32_t type_oid = 25;
  /// The type modifier (-1: none).
  std::int32_t type_modifier = -1;
  /// Part of the replica identity.
  bool key = false;
};

/// Appends TupleData of @p cols to @p w.
inline auto tuple(wire& w, const std::vector<col>& cols) -> wire& {
  w.u16(static_cast<std::uint16_t>(cols.size()));
  for (const col& c : cols) {
    w.ch(c.kind);
    if (c.kind == 't' || c.kind == 'b') w.i32(static_cast<std::int32_t>(c.value.size())).raw(c.value);
  }
  return w;
}

/// Appends a streamed message's transaction id, when it has one.
inline auto with_xid(wire& w, std::optional<std::uint32_t> xid) -> wire& {
  if (xid) w.u32(*xid);
  return w;
}

// --- framing ------------------------------------------------------------------------------------

/// XLogData (`w`) framing @p payload at @p start.
inline auto xlog(lsn start, std::int64_t send_time, const bytes& payload) -> bytes {
  return wire{}.ch('w').at(start).at(start).i64(send_time).raw(payload).take();
}
/// A primary keepalive (`k`), asking for a reply when @p reply.
inline auto keepalive(lsn wal_end, std::int64_t send_time, bool reply) -> bytes {
  return wire{}.ch('k').at(wal_end).i64(send_time).u8(reply ? 1 : 0).take();
}

// --- pgoutput messages (PROTOCOL.md §2.2) --------------------------------------------------------

/// Begin (`B`).
inline auto begin(lsn final_lsn, std::int64_t time, std::uint32_t xid) -> bytes {
  return wire{}.ch('B').at(final_lsn).i64(time).u32(xid).take();
}
/// Commit (`C`).
inline auto commit(lsn commit_lsn, lsn end_lsn, std::int64_t time, std::uint8_t flags = 0) -> bytes {
  return wire{}.ch('C').u8(flags).at(commit_lsn).at(end_lsn).i64(time).take();
}
/// Origin (`O`).
inline auto origin(lsn origin_lsn, std::string_view name) -> bytes {
  return wire{}.ch('O').at(origin_lsn).str(name).take();
}
/// Relation (`R`).
inline auto relation(std::optional<std::uint32_t> xid, std::uint32_t oid, std::string_view schema,
                     std::string_view table, char identity, const std::vector<attr>& attrs) -> bytes {
  wire w;
  w.ch('R');
  with_xid(w, xid).u32(oid).str(schema).str(table).ch(identity).u16(static_cast<std::uint16_t>(attrs.size()));
  for (const attr& a : attrs) w.u8(a.key ? 1 : 0).str(a.name).u32(a.type_oid).i32(a.type_modifier);
  return w.take();
}
/// Type (`Y`).
inline auto type(std::optional<std::uint32_t> xid, std::uint32_t oid, std::string_view schema, std::string_view name)
    -> bytes {
  wire w;
  w.ch('Y');
  with_xid(w, xid).u32(oid).str(schema).str(name);
  return w.take();
}
/// Insert (`I`).
inline auto insert(std::optional<std::uint32_t> xid, std::uint32_t relid, const std::vector<col>& cols) -> bytes {
  wire w;
  w.ch('I');
  with_xid(w, xid).u32(relid).ch('N');
  tuple(w, cols);
  return w.take();
}
/// @p old_kind is 0 for no old tuple, else 'K' or 'O'.
inline auto update(std::optional<std::uint32_t> xid, std::uint32_t relid, char old_kind,
                   const std::vector<col>& old_cols, const std::vector<col>& new_cols) -> bytes {
  wire w;
  w.ch('U');
  with_xid(w, xid).u32(relid);
  if (old_kind != 0) tuple(w.ch(old_kind), old_cols);
  tuple(w.ch('N'), new_cols);
  return w.take();
}
/// Delete (`D`) with its old key or row (@p old_kind `K` or `O`).
inline auto remove(std::optional<std::uint32_t> xid, std::uint32_t relid, char old_kind, const std::vector<col>& cols)
    -> bytes {
  wire w;
  w.ch('D');
  with_xid(w, xid).u32(relid).ch(old_kind);
  tuple(w, cols);
  return w.take();
}
/// Truncate (`T`).
inline auto truncate(std::optional<std::uint32_t> xid, std::uint8_t options, const std::vector<std::uint32_t>& relids)
    -> bytes {
  wire w;
  w.ch('T');
  with_xid(w, xid).i32(static_cast<std::int32_t>(relids.size())).u8(options);
  for (std::uint32_t r : relids) w.u32(r);
  return w.take();
}
/// Logical message (`M`); @p at is the end of its record.
inline auto message(std::optional<std::uint32_t> xid, bool transactional, lsn at, std::string_view prefix,
                    std::string_view content) -> bytes {
  wire w;
  w.ch('M');
  with_xid(w, xid)
      .u8(transactional ? 1 : 0)
      .at(at)
      .str(prefix)
      .i32(static_cast<std::int32_t>(content.size()))
      .raw(content);
  return w.take();
}
/// Stream Start (`S`).
inline auto stream_start(std::uint32_t xid, bool first) -> bytes {
  return wire{}.ch('S').u32(xid).u8(first ? 1 : 0).take();
}
/// Stream Stop (`E`).
inline auto stream_stop() -> bytes { return wire{}.ch('E').take(); }
/// Stream Commit (`c`).
inline auto stream_commit(std::uint32_t xid, lsn commit_lsn, lsn end_lsn, std::int64_t time, std::uint8_t flags = 0)
    -> bytes {
  return wire{}.ch('c').u32(xid).u8(flags).at(commit_lsn).at(end_lsn).i64(time).take();
}
/// With @p abort_info (streaming = parallel) the abort LSN and time follow.
inline auto stream_abort(std::uint32_t xid, std::uint32_t subxid,
                         std::optional<std::pair<lsn, std::int64_t>> abort_info = std::nullopt) -> bytes {
  wire w;
  w.ch('A').u32(xid).u32(subxid);
  if (abort_info) w.at(abort_info->first).i64(abort_info->second);
  return w.take();
}
/// Begin Prepare (`b`).
inline auto begin_prepare(lsn prepare_lsn, lsn end_lsn, std::int64_t time, std::uint32_t xid, std::string_view gid)
    -> bytes {
  return wire{}.ch('b').at(prepare_lsn).at(end_lsn).i64(time).u32(xid).str(gid).take();
}
/// Prepare ('P') or Stream Prepare ('p'), which share a layout.
inline auto prepare(char type, lsn prepare_lsn, lsn end_lsn, std::int64_t time, std::uint32_t xid, std::string_view gid,
                    std::uint8_t flags = 0) -> bytes {
  return wire{}.ch(type).u8(flags).at(prepare_lsn).at(end_lsn).i64(time).u32(xid).str(gid).take();
}
/// Commit Prepared (`K`).
inline auto commit_prepared(lsn commit_lsn, lsn end_lsn, std::int64_t time, std::uint32_t xid, std::string_view gid,
                            std::uint8_t flags = 0) -> bytes {
  return wire{}.ch('K').u8(flags).at(commit_lsn).at(end_lsn).i64(time).u32(xid).str(gid).take();
}
/// Rollback Prepared (`r`).
inline auto rollback_prepared(lsn prepare_end, lsn rollback_end, std::int64_t prepare_time, std::int64_t rollback_time,
                              std::uint32_t xid, std::string_view gid, std::uint8_t flags = 0) -> bytes {
  return wire{}
      .ch('r')
      .u8(flags)
      .at(prepare_end)
      .at(rollback_end)
      .i64(prepare_time)
      .i64(rollback_time)
      .u32(xid)
      .str(gid)
      .take();
}

}  // namespace replicant::testing::pgoutput

#endif  // REPLICANT_TESTING_PGOUTPUT_WRITER_HPP
