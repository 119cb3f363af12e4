// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_OPTIONS_HPP
#define REPLICANT_PIPELINE_OPTIONS_HPP

/// @file
/// replicant::pipeline_options: the runtime knobs of a replication pipeline (its connection,
/// slot, start mode, bounds and timers), validated before any connection is made. The output
/// plugin's settings are not here: they are the decoder's options.

#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace replicant {

/**
 * How a pipeline starts when it has no checkpoint yet: one value of @ref start_mode, each
 * alternative carrying its own settings, so that two start modes cannot be asked for at once (see
 * docs/snapshots.md). With a checkpoint, every mode resumes from it; the snapshot modes then only
 * finish what an earlier run began.
 */
namespace start {

/// No checkpoint is an error (`go_forward_required`): the pipeline only ever resumes. The default,
/// so that a first start never silently skips what is already in the database.
struct resume_only {};

/// With no checkpoint yet, stream from the slot's acknowledged position (`confirmed_flush_lsn`): a
/// slot that exists gives what it still holds, one created now only what commits from then on.
struct go_forward {};

/**
 * With no checkpoint yet, create the slot exporting a snapshot, hand every existing row of the
 * published tables to the sink's `handle_snapshot` as of that snapshot, then
 * `handle_snapshot_complete(consistent_point)`, then stream from exactly that point. Needs a sink
 * with both members and a slot that does not exist yet. All or nothing: an interrupted one halts
 * `snapshot_incomplete` on the next start.
 */
struct point_in_time_snapshot {
  /// Rows per `handle_snapshot` batch at most (not 0).
  std::size_t batch_rows = 1000;
};

/**
 * Stream at once from a durable slot while a reader on its own connection snapshots every
 * published table in key-ordered chunks, each reconciled against the live stream between two
 * watermarks and delivered to `handle_snapshot` with a progress token the sink stores with it
 * (`snapshot_progress()`), or the checkpoint store keeps. A crash, halt or reconnect resumes after
 * the last applied chunk. Needs `handle_snapshot`, and `snapshot_progress()` unless the checkpoint
 * is library-owned (whose store must then keep progress too); refuses binary values (chunks are
 * reconciled by comparing key text).
 */
struct incremental_snapshot {
  /// Rows per chunk at most (one `handle_snapshot` call each; not 0). Smaller chunks keep each
  /// watermark window short, so fewer of their rows collide with live writes.
  std::size_t chunk_rows = 1024;
  /// Chunks the reader may read ahead of the stream (each held in memory until the stream reaches
  /// its high watermark; not 0).
  std::size_t max_pending_chunks = 4;
};

}  // namespace start

/**
 * The start mode of a pipeline: exactly one of @ref start::resume_only (the default),
 * @ref start::go_forward, @ref start::point_in_time_snapshot and @ref start::incremental_snapshot.
 * Only the pgoutput decoder serves the snapshot modes (another refuses them before connecting,
 * `snapshot_unsupported`), and a sink that cannot take the mode is refused the same way.
 *
 * @par Example
 * @code
 * o.start = replicant::start::incremental_snapshot{.chunk_rows = 4096};
 * @endcode
 */
using start_mode =
    std::variant<start::resume_only, start::go_forward, start::point_in_time_snapshot, start::incremental_snapshot>;

/// Whether @p mode reads the existing rows (either snapshot mode). Never throws.
[[nodiscard]] constexpr auto takes_snapshot(const start_mode& mode) noexcept -> bool {
  return std::holds_alternative<start::point_in_time_snapshot>(mode) ||
         std::holds_alternative<start::incremental_snapshot>(mode);
}

/**
 * The runtime options of a pipeline: what is the pipeline's own (connection, slot, start mode,
 * bounds, timers). What the output plugin is asked for (for pgoutput: publications, protocol
 * version, binary, streaming, two-phase, messages, origin) is the decoder's, in its options
 * (`pgoutput_options`, `wal2json_options`, `pglogical_options`). An aggregate whose every member
 * has a default member initializer, so that designated initializers may name any subset of them
 * (GCC's -Wmissing-field-initializers is silent then). Everything but the connection string and
 * the slot has a useful default.
 *
 * @par Example
 * @code
 * replicant::pipeline_options o{.conninfo = "host=db.internal dbname=orders user=replicator",
 *                               .slot = "orders_mirror",
 *                               .start = replicant::start::go_forward{}};  // a new slot starts from now on
 * @endcode
 */
struct pipeline_options {
  /// libpq connection string (keyword/value or URI). `replication=database` is added by the library,
  /// as are the session settings that make value text deterministic.
  std::string conninfo{};
  /// The logical replication slot (`[a-z0-9_]{1,63}`). Created if it does not exist, unless
  /// `create_slot` is off.
  std::string slot{};

  /// What to do without a checkpoint (see @ref start_mode): by default, refuse to start
  /// (`go_forward_required`).
  start_mode start{};

  /// Create the slot when it does not exist (persistent, no snapshot unless the start mode takes
  /// one). Off: a missing slot halts `slot_missing`, for deployments where slots are provisioned by
  /// someone else.
  bool create_slot = true;
  /// Create the slot with `FAILOVER` so that standbys with `sync_replication_slots` keep a copy
  /// of it, and a promoted standby can be streamed from where this pipeline left off (PostgreSQL
  /// 17+: below, `failover_unsupported`; with the decoder's two-phase on 17,
  /// `two_phase_failover_conflict`). An existing slot must already be a failover slot, and a
  /// standby cannot create one: either halts `slot_not_failover`. Off, an existing failover slot is
  /// streamed as it is. Only pgoutput's slots (`decoder_capability_unsupported` otherwise).
  bool failover = false;
  /// With the decoder's streaming of in-progress transactions, the most held at once; one more
  /// halts `transaction_too_large`.
  std::size_t max_concurrent_txns = 64;

  /// Bytes held in the process (transactions being assembled, and what the checkpoint policy holds,
  /// such as a batch). When it is full the pipeline stops reading the socket: TCP pushes back on
  /// the walsender, which waits, and status updates keep going, so `wal_sender_timeout` never fires.
  std::size_t max_inflight_bytes = 64U * 1024U * 1024U;
  /**
   * The in-flight lag bound, in bytes (the reference's `max_inflight_lag`): how far what the
   * pipeline received on the stream and handed to the checkpoint policy may run past the durable
   * position. Measured on the replication stream itself, after every read, with no second
   * connection; crossing it halts fail-closed at once with `sink_too_slow`, the lag in
   * `halt::lag_bytes` and in the `lag` and `lag_bytes` of `replicant.connection.disconnected`.
   *
   * It is what catches a sink that takes transactions and then stalls: a deferred-acknowledgement
   * sink whose confirmations stop coming, a batch that is never handed over. A sink that keeps the
   * session thread (a synchronous `handle_transaction`) holds the stream back instead, so what it
   * has not made durable is at most the transaction in hand; `max_wal_lag` is the alarm for that.
   * The transaction being assembled is the spill policy's to bound, not this; but one handed over
   * counts whole, so under deferred acknowledgement with `disk_spill` keep the bound above the WAL
   * of the largest transaction, and above half of `max_inflight_bytes` (a batch may span that
   * much) when batching. 0: no bound.
   */
  std::size_t max_inflight_lag = 64U * 1024U * 1024U;
  /**
   * The WAL-lag bound behind the server, in bytes: how far the server's WAL may run past the
   * durable position while the sink holds the stream back (input waits unread between two
   * transactions). Unlike `max_inflight_lag`, this sees the backlog still on the server, which a
   * sink slower than the server's write rate leaves there. Past it, and not shrinking for ten
   * measurements in a row (a backlog being caught up on shrinks), the pipeline halts fail-closed
   * with `sink_too_slow` and the lag; at half of it, it emits `replicant.sink.lagging` (once each
   * time the lag crosses half). Checked every status interval, at most every second, on the
   * pipeline's ordinary connection: a check that cannot be made there counts toward
   * `max_side_check_failures`. 0: no bound.
   */
  std::size_t max_wal_lag = 64U * 1024U * 1024U;
  /**
   * How many times in a row a check made beside the stream on the pipeline's ordinary connection
   * (the WAL lag behind the server, `max_wal_lag`; the publications, `publication_check_interval`)
   * may fail before the pipeline halts `side_check_failed`. A check fails when that connection
   * cannot be opened or its query fails; each failure emits `replicant.connection.side_check_failed`,
   * and a success starts the count again (each check counts its own failures). Without the halt,
   * a role that may not open a second connection would leave those checks blind for good, saying
   * nothing. 5 rides out a connection refused during a server's restart or a failover (the stream
   * reconnects too), and halts within a minute of the publication check going blind at its
   * default interval. 0: never halt (the events still say each failure).
   */
  std::uint32_t max_side_check_failures = 5;

  /// On TCP, let the session thread sleep until this many bytes have arrived (`SO_RCVLOWAT`), so
  /// that one wakeup carries many messages and the walsender is not woken for each of them either.
  /// 0 (the default) wakes for every arrival. Ignored on unix sockets.
  std::size_t receive_low_water_bytes = 0;
  /// With `receive_low_water_bytes`, the longest a smaller arrival may wait to be read: the latency
  /// it can add to a quiet stream, and to the reply to a keepalive.
  std::chrono::milliseconds receive_max_delay = std::chrono::milliseconds(5);
  /**
   * How long the session thread pauses before it sleeps on a socket it has emptied. Whatever the
   * server sends meanwhile is then taken in one wakeup: a consumer that sleeps after every message
   * makes the walsender wake it for every message, and that wakeup is the server's work. The
   * default cuts the walsender's CPU on a stream of small transactions by about a fifth, and the
   * consumer's by more than half (docs/performance.md). It adds at most its length to the latency
   * of a transaction that arrives into a quiet stream. 0 sleeps at once. At most 100 ms.
   */
  std::chrono::microseconds receive_gather_delay{300};

  /// How often, while streaming, the publications are checked to still exist and to send no less
  /// (on an ordinary connection of their own). PostgreSQL 18 skips a dropped publication with a
  /// warning rather than ending the stream; this bounds how long such a drop goes unnoticed. A check
  /// that cannot be made counts toward `max_side_check_failures`. 0 turns the check off.
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
  /**
   * The longest a newly durable position waits before a status update acknowledges it. Positions
   * that become durable within one delay share an update, so that a stream of small transactions
   * costs the walsender one reply per delay rather than one per transaction (each reply is a read,
   * and a wake-up, on the primary). Sent at once regardless: the reply a keepalive asks for, the
   * end position (`end_lsn`), an idle advance, and the last update of a stop or a halt. 0 reports
   * every durable position as soon as it is known. A consumer named in `synchronous_standby_names`
   * makes commits on the primary wait for this feedback: see docs/operations.md. At most
   * `status_interval`.
   */
  std::chrono::milliseconds acknowledge_delay = std::chrono::milliseconds(20);
  /// Failed connect cycles before the stream started that are tolerated before halting
  /// `command_error_limit` (0: halt on the first). A server that is down is retried regardless.
  std::uint32_t max_command_retries = 5;
  /// First reconnect delay; doubles per consecutive failure up to `max_reconnect_delay`.
  std::chrono::milliseconds reconnect_delay = std::chrono::milliseconds(100);
  /// Longest reconnect delay.
  std::chrono::milliseconds max_reconnect_delay = std::chrono::seconds(10);
  /// Longest a single connection attempt may take.
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(30);

  /**
   * Where run() ends by itself, as `pg_recvlogical --endpos` does (none, the default: it streams
   * until stop() or a halt). Every transaction whose commit LSN is at or before it is delivered,
   * and run() then returns as after stop(), once the acknowledged position has reached it (after a
   * delivery, or idle over WAL that published nothing), or when a transaction committed after it
   * arrives: that one is neither delivered nor acknowledged, so the next run receives it.
   * reached_end() tells this return from the others.
   */
  std::optional<lsn> end_lsn{};
};

namespace detail {
// The settings of the start mode, each alternative by its own rule.
[[nodiscard]] constexpr auto valid_start(const start::resume_only&) noexcept -> bool { return true; }
[[nodiscard]] constexpr auto valid_start(const start::go_forward&) noexcept -> bool { return true; }
[[nodiscard]] constexpr auto valid_start(const start::point_in_time_snapshot& s) noexcept -> bool {
  return s.batch_rows != 0;
}
[[nodiscard]] constexpr auto valid_start(const start::incremental_snapshot& s) noexcept -> bool {
  return s.chunk_rows != 0 && s.max_pending_chunks != 0;
}
}  // namespace detail

/**
 * Checks @p o without connecting anywhere. The decoder's options are the decoder's to check
 * (`Decoder::validate()`); the pipeline checks both, and how they combine, before it connects.
 *
 * @return nothing, or a start-time rejection: `invalid_identifier` (the slot is not of an allowed
 * shape), `config_invalid` (no connection string, a zero budget or interval, a zero batch or chunk
 * size of the start mode, an interval shorter than the one it bounds). Never throws.
 */
[[nodiscard]] inline auto validate(const pipeline_options& o) noexcept -> halt_or<void> {
  if (!identifier::validate_slot_name(o.slot)) return refuse(halt_reason::invalid_identifier);
  if (o.conninfo.empty() || o.max_inflight_bytes == 0 || o.status_interval.count() <= 0 ||
      o.reconnect_delay.count() <= 0 || o.max_reconnect_delay < o.reconnect_delay || o.connect_timeout.count() <= 0 ||
      o.receive_low_water_bytes > (1U << 30U) || o.publication_check_interval.count() < 0 ||
      o.receive_timeout.count() < 0 || o.heartbeat_interval.count() < 0 || o.acknowledge_delay.count() < 0 ||
      o.acknowledge_delay > o.status_interval || o.receive_gather_delay.count() < 0 ||
      o.receive_gather_delay > std::chrono::milliseconds(100) ||
      (o.heartbeat_interval.count() > 0 && o.heartbeat_statement.empty()) ||
      (o.receive_low_water_bytes > 0 && o.receive_max_delay.count() <= 0) ||
      !std::visit([](const auto& mode) { return detail::valid_start(mode); }, o.start)) {
    return refuse(halt_reason::config_invalid);
  }
  return {};
}

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_OPTIONS_HPP
