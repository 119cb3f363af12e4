// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_OPTIONS_HPP
#define REPLICANT_PIPELINE_OPTIONS_HPP

/// @file
/// replicant::pipeline_options: the runtime knobs of a replication pipeline, validated before any
/// connection is made.

#include <replicant/core/halt.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/result.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace replicant {

/// What the pipeline does when the sink falls behind: the sink holds the stream back (nothing is
/// read while it runs), or the held transactions fill the resident budget (`max_inflight_bytes`).
enum class overload_policy {
  /// Stop reading the socket: TCP pushes back on the walsender, which waits. Status updates keep
  /// going, so `wal_sender_timeout` never fires. The default.
  pace,
  /// Halt fail-closed with `sink_too_slow` once, while input waits unread, the server's WAL runs
  /// more than `max_inflight_bytes` past the durable position (checked every status interval, at
  /// most every second), or the held transactions fill the budget; the halt reports the lag.
  halt,
};

/// How a pipeline fills a sink that starts without a checkpoint (see docs/snapshots.md).
enum class snapshot_mode {
  /// No snapshot: a start without a checkpoint needs `go_forward_only`.
  none,
  /// Create the slot exporting a snapshot, hand every existing row to `handle_snapshot` as of that
  /// snapshot, then `handle_snapshot_complete(consistent_point)`, then stream from exactly there.
  /// All or nothing: an interrupted one halts `snapshot_incomplete` on the next start.
  point_in_time,
  /// Stream at once from a durable slot while a reader on its own connection backfills every
  /// published table in key-ordered chunks, each reconciled against the live stream between two
  /// watermarks and delivered to `handle_snapshot` with a progress token the sink stores with it
  /// (`snapshot_progress()`), or the checkpoint store keeps. A crash, halt or reconnect resumes
  /// after the last applied chunk.
  incremental,
};

/**
 * The value of `pipeline_options::snapshot`: a @ref snapshot_mode, also settable from a `bool`
 * (`true` is `snapshot_mode::point_in_time`, `false` is `snapshot_mode::none`), the spelling the
 * option had before it had modes.
 *
 * @par Example
 * @code
 * o.snapshot = replicant::snapshot_mode::incremental;
 * o.snapshot = true;  // point_in_time
 * if (o.snapshot) { ... }  // any snapshot mode
 * @endcode
 */
class snapshot_setting {
 public:
  /// `snapshot_mode::none`. Never throws.
  constexpr snapshot_setting() noexcept = default;
  /// @p mode. Never throws.
  // NOLINTNEXTLINE(google-explicit-constructor): assigning a mode is the point of the type.
  constexpr snapshot_setting(snapshot_mode mode) noexcept : mode_(mode) {}
  /// `point_in_time` for true, `none` for false. Only `bool` itself converts, not an integer.
  template <std::same_as<bool> Bool>
  // NOLINTNEXTLINE(google-explicit-constructor): keeps `o.snapshot = true` meaning what it always did.
  constexpr snapshot_setting(Bool on) noexcept : mode_(on ? snapshot_mode::point_in_time : snapshot_mode::none) {}

  /// The mode. Never throws.
  [[nodiscard]] constexpr auto mode() const noexcept -> snapshot_mode { return mode_; }
  /// True for any mode but `none`. Never throws.
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return mode_ != snapshot_mode::none; }
  /// Same mode. Never throws.
  friend constexpr auto operator==(snapshot_setting a, snapshot_setting b) noexcept -> bool {
    return a.mode_ == b.mode_;
  }

 private:
  snapshot_mode mode_ = snapshot_mode::none;
};

/**
 * The runtime options of a pipeline. Everything but the connection string, the slot and the
 * publications has a default.
 *
 * @par Example
 * @code
 * replicant::pipeline_options o;
 * o.conninfo = "host=db.internal dbname=orders user=replicator";
 * o.slot = "orders_mirror";
 * o.publications = {"orders_pub"};
 * o.go_forward_only = true;  // a new slot starts from now on
 * @endcode
 */
struct pipeline_options {
  /// libpq connection string (keyword/value or URI). `replication=database` is added by the library,
  /// as are the session settings that make value text deterministic.
  std::string conninfo;
  /// The logical replication slot (`[a-z0-9_]{1,63}`). Created if it does not exist, unless
  /// `create_slot` is off.
  std::string slot;
  /// The publications to stream (one or more, each a plain identifier). Every one must exist.
  std::vector<std::string> publications;

  /// Start-mode guard: with no checkpoint yet, stream only what commits from now on. Required for a
  /// new slot unless `snapshot` is set; setting both is an error.
  bool go_forward_only = false;
  /// Start mode (see @ref snapshot_mode). `point_in_time` (or `true`): with no checkpoint yet,
  /// create the slot exporting a snapshot, hand every existing row of the published tables to the
  /// sink's `handle_snapshot` as of that snapshot, then `handle_snapshot_complete(consistent_point)`,
  /// then stream from exactly that point; needs a sink with both members and a slot that does not
  /// exist yet. `incremental`: stream at once and backfill in chunks beside the stream, resumably;
  /// needs `handle_snapshot`, and `snapshot_progress()` unless the checkpoint is library-owned (whose
  /// store must then keep progress too). A sink that cannot take the mode is refused with
  /// `snapshot_unsupported`.
  snapshot_setting snapshot{};
  /// Point-in-time: rows per `handle_snapshot` batch at most.
  std::size_t snapshot_batch_rows = 1000;
  /// Incremental: rows per chunk at most (one `handle_snapshot` call each). Smaller chunks keep
  /// each watermark window short, so fewer of their rows collide with live writes.
  std::size_t snapshot_chunk_rows = 1024;
  /// Incremental: chunks the reader may read ahead of the stream (each held in memory until the
  /// stream reaches its high watermark).
  std::size_t snapshot_max_pending_chunks = 4;

  /// Create the slot when it does not exist (persistent, pgoutput, no snapshot). Off: a missing
  /// slot halts `slot_missing`, for deployments where slots are provisioned by someone else.
  bool create_slot = true;

  /// Ask pgoutput for logical decoding messages (`pg_logical_emit_message`). Needs a sink with
  /// `handle_message` for the non-transactional ones.
  bool messages = false;
  /// Create the slot with `FAILOVER` so that standbys with `sync_replication_slots` keep a copy
  /// of it, and a promoted standby can be streamed from where this pipeline left off (PostgreSQL
  /// 17+: below, `failover_unsupported`; with `two_phase` on 17, `two_phase_failover_conflict`).
  /// An existing slot must already be a failover slot, and a standby cannot create one: either
  /// halts `slot_not_failover`. Off, an existing failover slot is streamed as it is.
  bool failover = false;
  /// Filter transactions by origin (PostgreSQL 16+; on 15 asking for it halts
  /// `origin_unsupported`). None: the server's default, which is `any`.
  std::optional<origin_filter> origin{};
  /// Receive large transactions while they are still in progress (pgoutput `streaming`: `on` with
  /// protocol 2-3, `parallel` with protocol 4 on PostgreSQL 16+), so the server does not spill them
  /// to its own disk and delivery follows the commit at once. They are held until they commit and
  /// count against `max_inflight_bytes`.
  bool streaming = false;
  /// With `streaming`, the most transactions in progress held at once; one more halts
  /// `transaction_too_large`.
  std::size_t max_concurrent_txns = 64;
  /// Decode two-phase transactions (protocol 3+): a prepared transaction is delivered once, when
  /// COMMIT PREPARED arrives, and never after ROLLBACK PREPARED. The slot keeps two-phase decoding
  /// for good once streamed with it. While a prepared transaction is outstanding, the slot is not
  /// acknowledged past its PREPARE (the server would otherwise not send its changes again).
  bool two_phase = false;
  /// Ask pgoutput for binary column values (`binary 'true'`): faster for some types, same values.
  bool binary = false;
  /// pgoutput protocol version; 0 picks the highest the server speaks (3 on 15, 4 on 16+).
  std::uint32_t protocol_version = 0;

  /// Bytes held in the process (transactions being assembled, and what the checkpoint policy holds,
  /// such as a batch).
  std::size_t max_inflight_bytes = 64U * 1024U * 1024U;
  /// What to do when that budget is full.
  overload_policy overload = overload_policy::pace;

  /// On TCP, let the session thread sleep until this many bytes have arrived (`SO_RCVLOWAT`), so
  /// that one wakeup carries many messages and the walsender is not woken for each of them either.
  /// 0 (the default) wakes for every arrival. Ignored on unix sockets.
  std::size_t receive_low_water_bytes = 0;
  /// With `receive_low_water_bytes`, the longest a smaller arrival may wait to be read: the latency
  /// it can add to a quiet stream, and to the reply to a keepalive.
  std::chrono::milliseconds receive_max_delay = std::chrono::milliseconds(5);

  /// How often, while streaming, the publications are checked to still exist (on an ordinary
  /// connection of their own). PostgreSQL 18 skips a dropped publication with a warning rather than
  /// ending the stream; this bounds how long such a drop goes unnoticed. 0 turns the check off.
  std::chrono::milliseconds publication_check_interval = std::chrono::seconds(10);

  /// Run `heartbeat_statement` this often on an ordinary connection (0, the default: never). It
  /// moves WAL on a quiet server so that the slot can move with it and, when the statement writes
  /// to a published table, gives an `append_log` sink a transaction to store, which is the only way
  /// such a sink's slot advances while its own tables are idle.
  std::chrono::milliseconds heartbeat_interval{0};
  /// The heartbeat. Its first column, when it is an LSN, is reported in telemetry.
  std::string heartbeat_statement = "SELECT pg_logical_emit_message(false, 'replicant.heartbeat', '')";

  /// A connection on which nothing at all arrives for this long (not even the reply to a status
  /// update that asks for one, sent halfway) is given up and reconnected: it catches a server or a
  /// network that went silent without closing the connection. 0 turns the check off.
  std::chrono::milliseconds receive_timeout = std::chrono::seconds(60);

  /// How often a status update goes to the server even when nothing changed.
  std::chrono::milliseconds status_interval = std::chrono::seconds(10);
  /// Failed connect cycles before the stream started that are tolerated before halting
  /// `command_error_limit` (0: halt on the first). A server that is down is retried regardless.
  std::uint32_t max_command_retries = 5;
  /// First reconnect delay; doubles per consecutive failure up to `max_reconnect_delay`.
  std::chrono::milliseconds reconnect_delay = std::chrono::milliseconds(100);
  /// Longest reconnect delay.
  std::chrono::milliseconds max_reconnect_delay = std::chrono::seconds(10);
  /// Longest a single connection attempt may take.
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(30);
};

namespace detail {
// Everything validate() checks but the publications, which only the pgoutput decoder streams: the
// other decoders name their tables in their own options (the pipeline refuses publications then).
[[nodiscard]] inline auto validate_without_publications(const pipeline_options& o) noexcept -> halt_or<void>;
}  // namespace detail

/// The settings of @p o that the output plugin is asked for (a view of `o.publications`).
[[nodiscard]] inline auto plugin_settings_of(const pipeline_options& o) noexcept -> plugin_settings {
  return plugin_settings{.publications = o.publications,
                         .protocol_version = o.protocol_version,
                         .binary = o.binary,
                         .streaming = o.streaming,
                         .two_phase = o.two_phase,
                         .messages = o.messages,
                         .origin = o.origin};
}

/**
 * Checks @p o without connecting anywhere.
 *
 * @return nothing, or the halt of a start-time rejection: `invalid_identifier` (slot or a publication is not of
 * an allowed shape; which one is not said), `conflicting_start_mode` (`go_forward_only` and
 * `snapshot` both set), `config_invalid`
 * (no connection string, no publication, a zero budget or interval, a protocol version outside 1-4,
 * a zero chunk size, or `binary` with the incremental snapshot).
 * Never throws.
 */
[[nodiscard]] inline auto validate(const pipeline_options& o) noexcept -> halt_or<void> {
  if (!identifier::validate_slot_name(o.slot)) return refuse(halt_reason::invalid_identifier);
  if (o.publications.empty()) return refuse(halt_reason::config_invalid);
  for (const auto& p : o.publications) {
    if (!identifier::validate(p)) return refuse(halt_reason::invalid_identifier);
  }
  return detail::validate_without_publications(o);
}

inline auto detail::validate_without_publications(const pipeline_options& o) noexcept -> halt_or<void> {
  if (!identifier::validate_slot_name(o.slot)) return refuse(halt_reason::invalid_identifier);
  if (o.conninfo.empty() || o.max_inflight_bytes == 0 || o.status_interval.count() <= 0 ||
      o.reconnect_delay.count() <= 0 || o.max_reconnect_delay < o.reconnect_delay || o.connect_timeout.count() <= 0 ||
      o.protocol_version > 4 || o.receive_low_water_bytes > (1U << 30U) || o.publication_check_interval.count() < 0 || o.receive_timeout.count() < 0 ||
      o.heartbeat_interval.count() < 0 || (o.heartbeat_interval.count() > 0 && o.heartbeat_statement.empty()) ||
      (o.receive_low_water_bytes > 0 && o.receive_max_delay.count() <= 0) ||
      (o.streaming && (o.max_concurrent_txns == 0 || (o.protocol_version != 0 && o.protocol_version < 2))) ||
      (o.two_phase && o.protocol_version != 0 && o.protocol_version < 3)) {
    return refuse(halt_reason::config_invalid);
  }
  if (o.go_forward_only && o.snapshot) return refuse(halt_reason::conflicting_start_mode);
  if (o.snapshot.mode() == snapshot_mode::point_in_time && o.snapshot_batch_rows == 0) {
    return refuse(halt_reason::config_invalid);
  }
  // Incremental chunks are reconciled with the stream by comparing key text, which binary values
  // do not have.
  if (o.snapshot.mode() == snapshot_mode::incremental &&
      (o.snapshot_chunk_rows == 0 || o.snapshot_max_pending_chunks == 0 || o.binary)) {
    return refuse(halt_reason::config_invalid);
  }
  return {};
}

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_OPTIONS_HPP
