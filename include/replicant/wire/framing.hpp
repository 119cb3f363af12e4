// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_WIRE_FRAMING_HPP
#define REPLICANT_WIRE_FRAMING_HPP

/// @file
/// The streaming-replication framing inside the CopyBoth stream, shared by every output plugin:
/// XLogData ('w') and primary keepalive ('k') from the server, the standby status update ('r')
/// from the client, and PostgreSQL's microseconds-since-2000 timestamps.
///
/// Layouts: PostgreSQL's protocol documentation, "Streaming Replication Protocol"
/// (https://www.postgresql.org/docs/current/protocol-replication.html), which matches
/// `walsender.c` (`WalSndPrepareWrite`, `WalSndKeepalive`, `ProcessStandbyReplyMessage`).

#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/core/sys_microseconds.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <variant>

namespace replicant {

/**
 * How far PostgreSQL's epoch (2000-01-01 00:00:00 UTC) lies after the Unix epoch:
 * (2451545 - 2440588) days, the two epochs' Julian day numbers (`POSTGRES_EPOCH_JDATE`,
 * `UNIX_EPOCH_JDATE`), = 946 684 800 s.
 */
inline constexpr std::chrono::microseconds postgres_epoch_offset{946'684'800'000'000};

/**
 * Converts a wire timestamp (microseconds since 2000-01-01 UTC) to a system-clock time point.
 *
 * Saturates at `sys_microseconds::max()` instead of overflowing, so a hostile or corrupt value
 * cannot cause undefined behaviour (PostgreSQL itself uses INT64_MAX for `infinity`).
 * @par Exceptions
 * Never throws.
 */
[[nodiscard]] constexpr auto from_postgres_time(std::int64_t postgres_us) noexcept -> sys_microseconds {
  using rep = std::chrono::microseconds::rep;
  constexpr rep offset = postgres_epoch_offset.count();
  if (postgres_us > std::numeric_limits<rep>::max() - offset) return sys_microseconds::max();
  return sys_microseconds{std::chrono::microseconds{postgres_us + offset}};
}

/**
 * Converts a system-clock time point to a wire timestamp (microseconds since 2000-01-01 UTC),
 * truncating toward the past to whole microseconds; saturates instead of overflowing.
 *
 * @par Example
 * @code
 * std::int64_t clock = replicant::to_postgres_time(std::chrono::system_clock::now());
 * @endcode
 * @par Exceptions
 * Never throws.
 */
template <class Duration>
[[nodiscard]] constexpr auto to_postgres_time(std::chrono::sys_time<Duration> at) noexcept -> std::int64_t {
  using rep = std::chrono::microseconds::rep;
  constexpr rep offset = postgres_epoch_offset.count();
  const rep us = std::chrono::floor<std::chrono::microseconds>(at).time_since_epoch().count();
  if (us < std::numeric_limits<rep>::min() + offset) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(us - offset);
}

/// Size of the 'w' header that precedes the output plugin's bytes: type, dataStart, walEnd, sendTime.
inline constexpr std::size_t xlog_data_header_size = 25;
/// Size of a primary keepalive message ('k'), which is fixed.
inline constexpr std::size_t primary_keepalive_size = 18;
/// Size of a standby status update ('r'), which is fixed.
inline constexpr std::size_t standby_status_update_size = 34;

/**
 * XLogData ('w'): one output-plugin message and the WAL position it came from.
 *
 * In logical replication `data_start` and `wal_end` are the same value: the LSN the plugin wrote
 * the message at, or 0 for a message that is not the last of its callback (pgoutput's Relation,
 * Type, and a Begin followed by Origin). It is **not** the server's end of WAL and is not monotonic,
 * so it must never be acknowledged as a flush position (PROTOCOL.md §1.9.1, §1.10).
 *
 * @par Thread safety
 * A view: valid only while the CopyData buffer it was parsed from is alive and unchanged.
 */
struct xlog_data {
  /// Start of the WAL data in this message (0 when the plugin did not flag it as last write).
  lsn data_start{};
  /// Same as `data_start` in logical mode; see above.
  lsn wal_end{};
  /// Server clock when the message was sent.
  sys_microseconds send_time{};
  /// The output plugin's message: exactly one pgoutput message, one wal2json document, ...
  std::span<const std::byte> data{};
};

/**
 * Primary keepalive ('k'): the server's progress, and whether it wants an answer now.
 *
 * When `reply_requested` is set the client must send a status update promptly or the walsender
 * drops the connection after `wal_sender_timeout`.
 */
struct primary_keepalive {
  /// The end of the WAL the walsender has processed. Acknowledging it as flush is safe only when
  /// nothing received is still pending (PROTOCOL.md §1.10, rule 2).
  lsn wal_end{};
  /// Server clock when the message was sent.
  sys_microseconds send_time{};
  /// True when the server asks for an immediate status update.
  bool reply_requested = false;
};

/// A server-to-client CopyData payload of the replication stream.
using copy_data_message = std::variant<xlog_data, primary_keepalive>;

/**
 * Standby status update ('r'): what the client reports; only `flush` moves a logical slot.
 *
 * `flush` must be the durable position (what the sink or checkpoint store persisted), never the
 * received position, and must never go backwards between updates. A zero `flush` leaves the slot
 * where it is.
 */
struct standby_status_update {
  /// Last WAL byte + 1 received (reporting only for a logical slot).
  lsn write{};
  /// Last WAL byte + 1 durably processed: the acknowledgement.
  lsn flush{};
  /// Last WAL byte + 1 applied (reporting only).
  lsn apply{};
  /// Client clock when the update is sent.
  sys_microseconds clock{};
  /// Asks the server for an immediate keepalive back.
  bool reply_requested = false;
};

/**
 * Parses one CopyData payload of the replication stream.
 *
 * @param payload the bytes of one CopyData message, as `PQgetCopyData` returns them.
 * @return an @ref xlog_data whose `data` views into @p payload, or a @ref primary_keepalive; or
 *   `errc::decode_failure` when the payload is empty, of an unknown type, shorter than its header,
 *   or (keepalive) not exactly 18 bytes. The error never carries any of the bytes.
 * @par Exceptions
 * Never throws.
 * @par Thread safety
 * Safe: a pure function.
 * @par Example
 * @code
 * auto msg = replicant::parse_copy_data(frame);
 * if (!msg) return msg.error();
 * if (const auto* w = std::get_if<replicant::xlog_data>(&*msg)) consume(decoder.decode(w->data));
 * @endcode
 */
[[nodiscard]] inline auto parse_copy_data(std::span<const std::byte> payload) noexcept -> result<copy_data_message> {
  detail::byte_reader in{payload};
  switch (in.u8()) {
    case 'w': {
      xlog_data out;
      out.data_start = lsn{in.u64()};
      out.wal_end = lsn{in.u64()};
      out.send_time = from_postgres_time(in.i64());
      if (!in.ok()) break;
      out.data = in.rest();
      return copy_data_message{out};
    }
    case 'k': {
      primary_keepalive out;
      out.wal_end = lsn{in.u64()};
      out.send_time = from_postgres_time(in.i64());
      // The walsender writes 0 or 1; like the server's own receiver, read any other value as "yes".
      out.reply_requested = in.u8() != 0;
      // A keepalive has a fixed size; the server's own walreceiver rejects any other length.
      if (!in.finished()) break;
      return copy_data_message{out};
    }
    default: break;
  }
  return fail(errc::decode_failure);
}

/**
 * Writes @p update in its 34-byte wire form into @p out.
 *
 * @par Exceptions
 * Never throws.
 * @par Example
 * @code
 * std::array<std::byte, replicant::standby_status_update_size> buf;
 * replicant::encode_status_update({.write = received, .flush = durable, .apply = durable,
 *                                  .clock = std::chrono::time_point_cast<std::chrono::microseconds>(
 *                                      std::chrono::system_clock::now())}, buf);
 * // PQputCopyData(conn, reinterpret_cast<const char*>(buf.data()), buf.size()); PQflush(conn);
 * @endcode
 */
constexpr auto encode_status_update(const standby_status_update& update,
                                    std::span<std::byte, standby_status_update_size> out) noexcept -> void {
  detail::byte_writer w{out};
  w.u8(static_cast<std::uint8_t>('r'));
  w.u64(update.write.value());
  w.u64(update.flush.value());
  w.u64(update.apply.value());
  w.i64(to_postgres_time(update.clock));
  w.u8(static_cast<std::uint8_t>(update.reply_requested ? 1 : 0));
}

/// Returns the 34-byte wire form of @p update. Never throws.
[[nodiscard]] constexpr auto encode_status_update(const standby_status_update& update) noexcept
    -> std::array<std::byte, standby_status_update_size> {
  std::array<std::byte, standby_status_update_size> out{};
  encode_status_update(update, out);
  return out;
}

/**
 * Parses a standby status update (the client's message; the reverse of @ref encode_status_update),
 * for tests and for tools that inspect a client's traffic.
 *
 * @return the update, or `errc::decode_failure` unless @p bytes is exactly one 'r' message.
 * @par Exceptions
 * Never throws.
 */
[[nodiscard]] auto parse_status_update(std::span<const std::byte> bytes) noexcept -> result<standby_status_update>;

}  // namespace replicant

// The status update's parser (for tests and tools, never on the stream's path): in every unit
// header-only, in the one unit that includes <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/wire/impl/framing.hpp>
#endif

#endif  // REPLICANT_WIRE_FRAMING_HPP
