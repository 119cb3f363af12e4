// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_HALT_HPP
#define REPLICANT_CORE_HALT_HPP

/// @file
/// Why a replication pipeline stopped, or refused to start: `replicant::halt_reason`, the value-free
/// `replicant::halt` record that carries it, `replicant::halt_or<T>` (a value or a halt: what the
/// checks made before starting return) and `replicant::error`, the exception the throwing `run()`
/// raises.
///
/// There is one error model: an operation reports a `std::error_code` (a @ref replicant::errc), and
/// a pipeline that stops reports `errc::halted` plus a halt. A halt reason is not an error code (it
/// has no category and no `make_error_code`), so `ec == halt_reason::decode_failure` does not
/// compile instead of being silently false; the reason is read from the halt.
///
/// Every failure mode of the pipeline is *fail-closed*: it stops and stays stopped instead of
/// dropping data or retrying forever, and nothing past the failure is acknowledged to the server.
/// Restarting resumes from the durable checkpoint. The operator's first question is therefore
/// "which halt, and what do I do about it?", which is what this header answers (see also
/// docs/errors.md).

#include <replicant/core/detail/config.hpp>
#include <replicant/core/detail/expected.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/slot_invalidation.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace replicant {

/**
 * Every reason a pipeline halts, and every reason it refuses to start.
 *
 * Most enumerators are **halts**: found while connecting or streaming, after which the pipeline
 * stops, keeps its slot and acknowledges nothing further. The nine from `invalid_identifier` to
 * `invalid_start_lsn` are **start-time rejections**: found by validating the options before any
 * connection is made, so nothing started (see @ref is_start_rejection). Reasons added later are
 * appended after them, whatever their kind, so that every existing code keeps its value.
 *
 * The snake_case name of each enumerator (@ref to_string(halt_reason)) is stable: it is the
 * `reason` of telemetry events and the word to alert on. Each has a fixed, value-free message
 * (@ref message(halt_reason)) and an operator action (@ref operator_action).
 *
 * It is a plain enumeration, not an error-code enum: a reason lives inside a @ref replicant::halt
 * only, and the `std::error_code` of a halted `run(ec)` is `errc::halted`. Several reasons share a
 * name with an @ref replicant::errc (`decode_failure`, `sink_failed`, ...) because an operation's
 * failure of that kind is what led to the halt; comparing the two does not compile.
 */
enum class halt_reason {
  // --- halts: delivery --------------------------------------------------------------------------

  /// The sink returned an error or threw while handling a transaction, a batch, a logical message or
  /// a snapshot batch. Nothing from the failed delivery on was acknowledged.
  /// Action: fix the sink or the store it writes to, then restart; delivery resumes at the checkpoint.
  sink_failed = 1,
  /// What the pipeline received and handed to the checkpoint policy ran more than
  /// `max_inflight_lag` past the durable position (the reference's bound: a sink that stalls, or
  /// confirms too slowly), or, while the sink held the stream back, the server's WAL ran more than
  /// `max_wal_lag` past it and kept growing: the sink cannot keep up, and the slot holds ever more
  /// WAL on the server. `halt::lag_bytes` is the lag.
  /// Action: make the sink faster, use batch delivery, or raise the bound that was crossed
  /// (`max_inflight_lag` or `max_wal_lag`; 0 turns either off).
  sink_too_slow,
  /// One transaction is larger than the resident memory budget and the spill policy is `no_spill`.
  /// Action: use `disk_spill`, raise `max_inflight_bytes`, or split the transaction at its source.
  transaction_too_large,
  /// Spilling an oversized transaction to disk would exceed `max_spill_bytes`.
  /// Action: free disk space or raise `max_spill_bytes`, or make the transaction smaller.
  spill_exhausted,
  /// Writing or reading back a spill file failed (disk full, permissions, I/O error).
  /// Action: check the spill directory and its file system, then restart.
  spill_io_failed,

  // --- halts: the slot and the connect chain ----------------------------------------------------

  /// The server invalidated the replication slot (`wal_status = 'lost'`, `conflicting`, or an
  /// `invalidation_reason`): what it needed to decode is gone (WAL, catalog rows), so continuing
  /// would silently lose changes. `halt::invalidation` says why (@ref replicant::slot_invalidation),
  /// found at connect or at the reconnect after the server ended a stream for it.
  /// Action: recreate the slot and re-synchronise the sink (snapshot, or accept the gap); then
  /// remove the cause: more room for slots (`max_slot_wal_keep_size`) for `wal_removed`,
  /// `hot_standby_feedback` for `rows_removed`, `wal_level = logical` on the primary for
  /// `wal_level_insufficient`, a longer `idle_replication_slot_timeout` for `idle_timeout`.
  slot_invalidated,
  /// A publication named in the options (with pglogical: a replication set) does not exist on the
  /// server. Streaming the others alone would silently skip tables, so the pipeline stops instead.
  /// Action: create or restore the publication, or correct its name, then restart.
  publication_missing,
  /// The slot does not exist and the options forbid creating it (`create_slot = false`).
  /// Action: create the slot (or let the pipeline create it), or correct its name, then restart.
  slot_missing,
  /// Replication commands failed before any frame (data or keepalive) arrived on `max_command_retries` connect
  /// cycles in a row (no free slot, the slot is in use by another consumer, an unexpected result).
  /// Action: read the SQLSTATE; free a slot or raise `max_replication_slots`, stop the other
  /// consumer, then restart.
  command_error_limit,
  /// The sink's `handle_session_identity` refused the server it was connected to (system identifier,
  /// timeline or database).
  /// Action: point the connection at the intended server, or update the identity the sink accepts.
  session_identity_rejected,
  /// The sink's `handle_slot_origin` refused the position a go-forward stream would begin at, for
  /// example because it leaves a gap after the last entry the sink appended.
  /// Action: reconcile the sink with the gap, then restart.
  slot_origin_rejected,
  /// The slot's start position could not be read, was missing or was malformed, so there is no
  /// trustworthy origin to offer the sink (replicant never makes one up).
  /// Action: inspect the slot in `pg_replication_slots`; recreate it if it is damaged.
  slot_origin_unavailable,
  /// A synced slot on a standby that has not been promoted was named: it cannot be consumed yet.
  /// Action: promote the standby, or connect to the primary, then restart.
  slot_synced_unpromoted,
  /// Failover slots were requested from a server older than PostgreSQL 17. Detected at connect,
  /// when the server version is known.
  /// Action: drop the failover option, or upgrade the server.
  failover_unsupported,
  /// Failover and two-phase decoding were requested on one slot from PostgreSQL 17. Its server
  /// accepts such a slot, but its slot synchronisation does not carry the point from which the
  /// slot decodes two-phase (`two_phase_at`) to the standby, so after a failover a transaction
  /// prepared before that point can be skipped; 18 synchronises it.
  /// Action: drop one of the two options, or upgrade to PostgreSQL 18.
  two_phase_failover_conflict,
  /// Failover was requested, but the slot is not a failover slot: it exists without the property,
  /// or the server is a standby, where a failover slot cannot be created. Streaming it would look
  /// protected and lose the slot at the next failover.
  /// Action: on the primary, `ALTER_REPLICATION_SLOT <slot> (FAILOVER true)` on a replication
  /// connection (or drop the slot and let the pipeline create it there), or drop the option.
  slot_not_failover,
  /// Failover was requested and the sink has a checkpoint, but the slot does not exist on this
  /// server: typically a promoted standby that had not synced it yet (or it was dropped). A new
  /// slot would start at the present and silently skip everything written since the checkpoint.
  /// Action: point the pipeline at the server that holds the slot; otherwise re-synchronise the
  /// sink (a snapshot) and clear its checkpoint before starting again.
  failover_slot_missing,
  /// The server is a standby and cannot decode logically for this pipeline (before PostgreSQL 16,
  /// or with the chosen decoder).
  /// Action: connect to the primary, or upgrade the standby.
  standby_unsupported,
  /// The server is a standby with `hot_standby_feedback` off: vacuum on the primary would remove
  /// catalog rows the slot still needs, and the server would then invalidate the slot.
  /// Action: set `hot_standby_feedback = on` on the standby (and stream it through a physical slot,
  /// `primary_slot_name`, so the feedback survives restarts), then restart.
  standby_feedback_off,
  /// Origin filtering (`origin 'none'`) was requested from a server older than PostgreSQL 16, whose
  /// pgoutput does not know the option.
  /// Action: drop the origin option, or upgrade the server.
  origin_unsupported,

  // --- halts: checkpoint store, schema, snapshot -------------------------------------------------

  /// The library-owned checkpoint store failed past its retry budget, or failed in a way retrying
  /// cannot fix (wrong table shape, bad configuration).
  /// Action: restore the store, correct its schema or configuration, then restart.
  checkpoint_store_failed,
  /// A destructive schema change (a dropped column, a narrowing type change, a new replica identity)
  /// reached a published table and the sink has no `handle_schema_change` to accept it.
  /// Action: adapt the sink to the new shape, or implement `handle_schema_change`, then restart.
  schema_change_destructive,
  /// The sink's `handle_schema_change` refused a destructive schema change or a widened type.
  /// Action: migrate the sink to the new shape, then restart.
  schema_change_rejected,
  /// A point-in-time snapshot was interrupted before it finished, so the sink holds part of a table
  /// set that cannot be completed from the slot.
  /// Action: clear the sink and start again with a fresh snapshot (or use the incremental mode,
  /// which resumes).
  snapshot_incomplete,
  /// The snapshot reader failed (including losing its connection during an incremental snapshot).
  /// Action: check connectivity to the source, then restart; an incremental snapshot resumes from
  /// its durable progress.
  snapshot_failed,
  /// A table being snapshotted stayed too busy: its chunk was discarded for contention three times.
  /// Action: run the snapshot at a quieter time, or use smaller chunks.
  snapshot_table_contended,

  // --- halts: decoding ------------------------------------------------------------------------

  /// The replication stream held malformed data: a truncated or unknown message, a malformed
  /// `numeric`, non-hex `bytea`. Ordinary data never causes this.
  /// Action: check the server and its output plugin (a corrupted or mismatched build); report it
  /// with the LSN.
  decode_failure,
  /// The output plugin announced a protocol version the decoder does not speak (pglogical outside
  /// protocol 1).
  /// Action: install a matching plugin build (pglogical 2.x), then restart.
  decoder_protocol_unsupported,
  /// A commit arrived without its commit LSN (wal2json is always asked for it), so exactly-once
  /// cannot be kept for it.
  /// Action: check the plugin build; this never comes from ordinary data.
  decoder_lsn_missing,
  /// The output plugin refused an option the decoder needs (probed at connect).
  /// Action: upgrade the plugin to a build with the option (wal2json 2.6 or later), then restart.
  decoder_option_unsupported,
  /// The server cannot run the chosen decoder at all (pgoutput before PostgreSQL 10, a missing
  /// plugin library, pglogical without its preloaded library, extension or local node).
  /// Action: choose another decoder, install the plugin, or upgrade the server.
  decoder_unsupported_on_server,
  /// A table configured for the decoder (or found in a pglogical replication set) does not exist.
  /// Action: create the table, or correct the configured table list, then restart.
  decoder_table_missing,
  /// A table configured for wal2json has no replica identity index and is not `REPLICA IDENTITY
  /// FULL`: the plugin would silently drop its updates and deletes.
  /// Action: add a primary key, set `REPLICA IDENTITY FULL`, or declare the table insert-only.
  table_keyless,
  /// The slot exists but was created for another output plugin than the chosen decoder's (say,
  /// for pgoutput, and the pipeline now runs wal2json): the plugin would refuse every start. Or a
  /// physical slot has the name.
  /// Action: use the decoder the slot was made for, or a new slot (name) for this decoder.
  slot_plugin_mismatch,

  // --- start-time rejections: nothing started --------------------------------------------------

  /// A slot, publication, table or schema name in the options is not of an allowed shape (see
  /// @ref replicant::identifier).
  /// Action: correct the name.
  invalid_identifier,
  /// The sink cannot serve these options (a callback the options need is missing at run time).
  /// Action: implement the callback, or change the options.
  invalid_sink,
  /// The options are invalid: a value out of range, a key in the wrong place, a missing setting.
  /// Action: correct the options.
  config_invalid,
  /// Nothing durable says where to start and the options choose no start mode, so starting would
  /// silently skip everything written before now.
  /// Action: choose go-forward (accept starting from now) or a snapshot.
  go_forward_required,
  /// A snapshot was requested but the sink, decoder or checkpoint mode cannot take one.
  /// Action: implement the snapshot callbacks, or change the start mode.
  snapshot_unsupported,
  /// Batch delivery was requested where it is not possible (with a library-owned checkpoint, or a
  /// sink without `handle_batch`).
  /// Action: use one checkpoint mode or the other, not both.
  batch_unsupported,
  /// Logical messages were requested but the sink has no `handle_message`.
  /// Action: implement `handle_message`, or do not request messages.
  messages_unsupported,
  /// The chosen decoder cannot provide a requested capability (streaming, two-phase, failover,
  /// origin filtering, binary values or a protocol version off pgoutput; messages on pglogical).
  /// Action: choose a decoder that has it, or drop the option.
  decoder_capability_unsupported,
  /// The requested start position is not a valid LSN.
  /// Action: give a valid LSN, or none.
  invalid_start_lsn,

  // --- halts added later (appended, so that existing codes keep their values) ------------------

  /// A publication of the stream was altered while streaming so that it now sends less: a table or
  /// a schema was removed from it (the table itself still exists), a row filter or a column list was
  /// set or changed, an operation (insert, update, delete, truncate) stopped being published,
  /// `publish_via_partition_root` changed, or stored generated columns stopped being published
  /// (PostgreSQL 18). pgoutput applies such a change from its point in the WAL on, and says nothing:
  /// the rows simply stop arriving. `halt::table` names the table when one table is concerned.
  /// Additions (a table, a schema, an operation) do not halt.
  /// Action: if the change was intended, restart (the session then starts from the new definition);
  /// otherwise restore the publication, then restart.
  publication_changed,
  /// The checkpoint (the sink's, or the store's under a library-owned checkpoint) lies past the end
  /// of the server's WAL, so it cannot come from this server's history: a store shared by mistake
  /// between clusters, a server restored from a backup, or a standby promoted before it received
  /// what the sink already has. Streaming from it would skip every transaction committed below it
  /// without a trace. `halt::at` is the checkpoint.
  /// Action: point the pipeline at the server the checkpoint came from; otherwise re-synchronise
  /// the sink and clear its checkpoint.
  checkpoint_ahead_of_server,
  /// The slot does not exist although the sink (or the store) has a checkpoint: it was dropped, or
  /// the pipeline points at another server or another slot name. A new slot would begin at the
  /// present and silently skip everything committed since the checkpoint. (A failover slot halts
  /// `failover_slot_missing`; a sink with `handle_slot_origin` is asked instead, with the new
  /// slot's origin.)
  /// Action: point the pipeline at the server and slot the checkpoint belongs to; otherwise
  /// re-synchronise the sink (a snapshot) and clear its checkpoint.
  slot_dropped,

  // --- halts: connection faults a retry cannot fix ------------------------------------------------
  // (A server that is down, restarting or unreachable is retried for as long as the pipeline runs.)

  /// The server refused the credentials (SQLSTATE 28P01), or asked for a password and the
  /// connection string gives none. `halt::sqlstate` is the server's, when it sent one.
  /// Action: correct the password (the connection string, `PGPASSWORD` or the password file).
  authentication_failed,
  /// The server refused the role (SQLSTATE 28000): it does not exist, may not log in, or the
  /// authentication method (peer, ident, certificate) did not accept it.
  /// Action: correct the user name, create the role, or grant it `LOGIN` and `REPLICATION`.
  role_rejected,
  /// A `pg_hba.conf` line rejects this host, user and database, or no line matches (SQLSTATE 28000).
  /// Action: add a `pg_hba.conf` line for the connection (a replication connection needs one that
  /// names its database or `all`), then reload the server.
  host_rejected,
  /// The database in the connection string does not exist (SQLSTATE 3D000).
  /// Action: correct the database name, or create the database.
  database_missing,
  /// The connection string requires TLS (`sslmode` require, verify-ca or verify-full) and the
  /// server offers none (`ssl = off`, or a server built without it).
  /// Action: enable `ssl` on the server (with a certificate and its key) and reload its
  /// configuration; never lower `sslmode` to get past it.
  tls_unavailable,
  /// The connection string requires TLS and the server's certificate did not verify: it is not
  /// signed by a certificate authority of `sslrootcert` (or that file is missing), or, under
  /// `sslmode=verify-full`, it names another host than the one connected to. Either way the server
  /// cannot be told from an impostor, so nothing is sent to it; a retry would meet the same
  /// certificate. libpq decides this before the server says anything, so there is no SQLSTATE.
  /// Action: give the client the root certificate that signed the server's (`sslrootcert`), connect
  /// by a name the certificate carries, or renew the server's certificate; never lower `sslmode` to
  /// get past it.
  tls_verification_failed,
  /// A checkpoint policy of the user's own halted for a reason of its own: `halt::own` names it,
  /// says what happened, and what the operator does (see @ref replicant::own_halt_reason).
  /// Action: as the policy's reason says (`describe` and `operator_action(const halt&)` give it).
  policy_halted,
  /// A check the pipeline makes beside the stream, on an ordinary connection of its own (the WAL
  /// lag behind the server, `max_wal_lag`; the publications, `publication_check_interval`), could
  /// not be made `max_side_check_failures` times in a row: that connection could not be opened, or
  /// its query failed. Streaming on would leave a dropped or narrowed publication, or a slot
  /// pinning ever more WAL, unseen. `halt::cause` is the last failure's error code.
  /// Action: let the pipeline's role open an ordinary connection to the database besides its
  /// replication connection (`pg_hba.conf`, the role's or the database's connection limit,
  /// `max_connections`) and read the catalog; or turn the failing check off, or raise
  /// `max_side_check_failures` (0: report failures, never halt).
  side_check_failed,
};

namespace detail {

// What the library does with a reason besides describing it. Each reason is of exactly one kind:
// what validating the options finds is never met on a server, and the reverse.
enum class halt_kind : std::uint8_t {
  // Met while connecting or streaming: the pipeline stops and keeps its slot.
  halt,
  // Met while connecting or streaming, about the slot, its publications or the server's setup: the
  // engine reports it as `replicant.connection.slot_invalidated` too, besides the halt (with the
  // invalidation class for `slot_invalidated`), so that one event carries every such refusal.
  slot_refusal,
  // Found by validating the options before anything connects (is_start_rejection).
  start_rejection,
};

// Everything fixed about one halt reason: its row in the halt table.
struct halt_entry {
  halt_reason reason;        // the enumerator, so that the table can be held against the enum
  std::string_view name;     // to_string: the enumerator's own spelling, stable (telemetry, alerts)
  halt_kind kind;            // what the library does with it (is_start_rejection, is_slot_refusal)
  std::string_view message;  // message: what happened, fixed and value-free
  std::string_view action;   // operator_action: what the operator does, in one sentence
};

// The halt table: one row per reason, in the enum's order, so that a reason's row is at its value
// minus one. Every function below reads it. A new reason is an enumerator appended to the enum
// (with its doc comment) and its row appended here; the check below refuses a row out of place,
// and tests/unit/core/halt.cpp an enumerator without its row or a name that is not its spelling.
// Each row is laid out alike: the reason, its name and kind; its message; its action.
// clang-format off
inline constexpr auto halt_table = std::to_array<halt_entry>({
    // --- halts: delivery
    {halt_reason::sink_failed, "sink_failed", halt_kind::halt,
     "the sink reported a failure",
     "fix the sink or the store it writes to, then restart"},
    {halt_reason::sink_too_slow, "sink_too_slow", halt_kind::halt,
     "received WAL ran too far ahead of the durable checkpoint",
     "make the sink faster, use batch delivery, or raise the bound crossed (max_inflight_lag or max_wal_lag)"},
    {halt_reason::transaction_too_large, "transaction_too_large", halt_kind::halt,
     "a transaction exceeds the resident memory budget",
     "use disk_spill, raise max_inflight_bytes, or split the transaction at its source"},
    {halt_reason::spill_exhausted, "spill_exhausted", halt_kind::halt,
     "spilled transactions would exceed the disk budget",
     "free disk space or raise max_spill_bytes, then restart"},
    {halt_reason::spill_io_failed, "spill_io_failed", halt_kind::halt,
     "writing or reading a spill file failed",
     "check the spill directory and its file system, then restart"},

    // --- halts: the slot and the connect chain
    {halt_reason::slot_invalidated, "slot_invalidated", halt_kind::slot_refusal,
     "the server invalidated the replication slot",
     "recreate the slot and re-synchronise the sink; then remove the cause its invalidation class names"},
    {halt_reason::publication_missing, "publication_missing", halt_kind::slot_refusal,
     "a requested publication does not exist",
     "create or restore the publication, or correct its name, then restart"},
    {halt_reason::slot_missing, "slot_missing", halt_kind::slot_refusal,
     "the slot does not exist and may not be created",
     "create the slot, allow the pipeline to create it, or correct its name"},
    {halt_reason::command_error_limit, "command_error_limit", halt_kind::halt,
     "replication commands kept failing before streaming began",
     "read the SQLSTATE; free a replication slot or stop the slot's other consumer, then restart"},
    {halt_reason::session_identity_rejected, "session_identity_rejected", halt_kind::halt,
     "the sink rejected the replication session's identity",
     "connect to the intended server, or update the identity the sink accepts"},
    {halt_reason::slot_origin_rejected, "slot_origin_rejected", halt_kind::halt,
     "the sink rejected the slot's start position",
     "reconcile the sink with the gap before the origin, then restart"},
    {halt_reason::slot_origin_unavailable, "slot_origin_unavailable", halt_kind::halt,
     "the slot's start position is missing or malformed",
     "inspect the slot in pg_replication_slots; recreate it if damaged"},
    {halt_reason::slot_synced_unpromoted, "slot_synced_unpromoted", halt_kind::slot_refusal,
     "the slot is a synced copy on an unpromoted standby",
     "promote the standby, or connect to the primary, then restart"},
    {halt_reason::failover_unsupported, "failover_unsupported", halt_kind::slot_refusal,
     "failover slots need PostgreSQL 17 or later",
     "drop the failover option, or upgrade to PostgreSQL 17 or later"},
    {halt_reason::two_phase_failover_conflict, "two_phase_failover_conflict", halt_kind::slot_refusal,
     "this server version cannot keep a two-phase slot safe across a failover",
     "drop failover or two-phase, or upgrade to PostgreSQL 18"},
    {halt_reason::slot_not_failover, "slot_not_failover", halt_kind::slot_refusal,
     "failover was requested but the slot is not a failover slot",
     "make it a failover slot on the primary (ALTER_REPLICATION_SLOT), or drop the failover option"},
    {halt_reason::failover_slot_missing, "failover_slot_missing", halt_kind::slot_refusal,
     "the failover slot is missing although the sink has a checkpoint",
     "point at the server that holds the slot, or re-synchronise the sink and clear its checkpoint"},
    {halt_reason::standby_unsupported, "standby_unsupported", halt_kind::slot_refusal,
     "logical decoding is not possible on this standby",
     "connect to the primary, or upgrade the standby"},
    {halt_reason::standby_feedback_off, "standby_feedback_off", halt_kind::slot_refusal,
     "the standby does not send hot standby feedback",
     "set hot_standby_feedback = on on the standby (with a physical slot), then restart"},
    {halt_reason::origin_unsupported, "origin_unsupported", halt_kind::slot_refusal,
     "origin filtering needs PostgreSQL 16 or later",
     "drop the origin option, or upgrade to PostgreSQL 16 or later"},

    // --- halts: checkpoint store, schema, snapshot
    {halt_reason::checkpoint_store_failed, "checkpoint_store_failed", halt_kind::halt,
     "the checkpoint store failed beyond its retry budget",
     "restore the checkpoint store, correct its schema or configuration, then restart"},
    {halt_reason::schema_change_destructive, "schema_change_destructive", halt_kind::halt,
     "a destructive schema change reached a published table",
     "adapt the sink to the new shape, or implement handle_schema_change, then restart"},
    {halt_reason::schema_change_rejected, "schema_change_rejected", halt_kind::halt,
     "the sink rejected a schema change",
     "migrate the sink to the new shape, then restart"},
    {halt_reason::snapshot_incomplete, "snapshot_incomplete", halt_kind::halt,
     "an earlier snapshot was interrupted before it finished",
     "clear the sink and take a fresh snapshot"},
    {halt_reason::snapshot_failed, "snapshot_failed", halt_kind::halt,
     "the snapshot reader failed",
     "check connectivity to the source, then restart"},
    {halt_reason::snapshot_table_contended, "snapshot_table_contended", halt_kind::halt,
     "a table being snapshotted stayed too busy to copy",
     "snapshot at a quieter time, or use smaller chunks"},

    // --- halts: decoding
    {halt_reason::decode_failure, "decode_failure", halt_kind::halt,
     "the replication stream contained malformed data",
     "check the server and its output plugin; report it with the LSN"},
    {halt_reason::decoder_protocol_unsupported, "decoder_protocol_unsupported", halt_kind::halt,
     "the output plugin speaks an unsupported protocol version",
     "install a plugin build the decoder speaks, then restart"},
    {halt_reason::decoder_lsn_missing, "decoder_lsn_missing", halt_kind::halt,
     "a commit arrived without its LSN",
     "check the output plugin build; ordinary data never causes this"},
    {halt_reason::decoder_option_unsupported, "decoder_option_unsupported", halt_kind::slot_refusal,
     "the output plugin refused a requested option",
     "upgrade the output plugin, then restart"},
    {halt_reason::decoder_unsupported_on_server, "decoder_unsupported_on_server", halt_kind::halt,
     "the server cannot run the chosen decoder",
     "choose another decoder, install the plugin, or upgrade the server"},
    {halt_reason::decoder_table_missing, "decoder_table_missing", halt_kind::slot_refusal,
     "a configured table does not exist on the server",
     "create the table or correct the table list, then restart"},
    {halt_reason::table_keyless, "table_keyless", halt_kind::halt,
     "a configured table has no replica identity",
     "add a primary key, set REPLICA IDENTITY FULL, or declare the table insert-only"},
    {halt_reason::slot_plugin_mismatch, "slot_plugin_mismatch", halt_kind::halt,
     "the slot was created for another output plugin",
     "use the decoder the slot was made for, or a new slot"},

    // --- start-time rejections: nothing started
    {halt_reason::invalid_identifier, "invalid_identifier", halt_kind::start_rejection,
     "a name in the options is not of an allowed shape",
     "correct the name's shape"},
    {halt_reason::invalid_sink, "invalid_sink", halt_kind::start_rejection,
     "the sink cannot serve these options",
     "implement the callback the options need, or change the options"},
    {halt_reason::config_invalid, "config_invalid", halt_kind::start_rejection,
     "the options are invalid",
     "correct the options"},
    {halt_reason::go_forward_required, "go_forward_required", halt_kind::start_rejection,
     "no checkpoint exists and no start mode was chosen",
     "choose a start mode: go-forward or a snapshot"},
    {halt_reason::snapshot_unsupported, "snapshot_unsupported", halt_kind::start_rejection,
     "a snapshot was requested but cannot be taken",
     "implement the snapshot callbacks, or change the start mode"},
    {halt_reason::batch_unsupported, "batch_unsupported", halt_kind::start_rejection,
     "batch delivery is not possible with these options",
     "use batch delivery or a library-owned checkpoint, not both"},
    {halt_reason::messages_unsupported, "messages_unsupported", halt_kind::start_rejection,
     "logical messages were requested but the sink cannot take them",
     "implement handle_message, or do not request messages"},
    {halt_reason::decoder_capability_unsupported, "decoder_capability_unsupported", halt_kind::start_rejection,
     "the chosen decoder lacks a requested capability",
     "choose a decoder that has the capability, or drop it"},
    {halt_reason::invalid_start_lsn, "invalid_start_lsn", halt_kind::start_rejection,
     "the requested start position is not a valid LSN",
     "give a valid LSN, or none"},

    // --- halts added later
    {halt_reason::publication_changed, "publication_changed", halt_kind::slot_refusal,
     "a publication was altered to send less while streaming",
     "if the publication change was intended, restart; otherwise restore the publication, then restart"},
    {halt_reason::checkpoint_ahead_of_server, "checkpoint_ahead_of_server", halt_kind::slot_refusal,
     "the checkpoint lies past the end of the server's WAL",
     "point at the server the checkpoint came from, or re-synchronise the sink and clear its checkpoint"},
    {halt_reason::slot_dropped, "slot_dropped", halt_kind::slot_refusal,
     "the slot does not exist although the sink has a checkpoint",
     "point at the slot the checkpoint belongs to, or re-synchronise the sink and clear its checkpoint"},

    // --- halts: connection faults a retry cannot fix
    {halt_reason::authentication_failed, "authentication_failed", halt_kind::halt,
     "the server refused the credentials",
     "correct the password in the connection string or password file"},
    {halt_reason::role_rejected, "role_rejected", halt_kind::halt,
     "the server refused the role",
     "correct the user name, or create the role with LOGIN and REPLICATION"},
    {halt_reason::host_rejected, "host_rejected", halt_kind::halt,
     "a pg_hba.conf rule rejects the connection",
     "add a pg_hba.conf line for this connection, then reload the server"},
    {halt_reason::database_missing, "database_missing", halt_kind::halt,
     "the database does not exist",
     "correct the database name, or create the database"},
    {halt_reason::tls_unavailable, "tls_unavailable", halt_kind::halt,
     "TLS is required and the server offers none",
     "enable ssl on the server and reload it; never lower sslmode"},
    {halt_reason::tls_verification_failed, "tls_verification_failed", halt_kind::halt,
     "the server's TLS certificate did not verify",
     "give the client the CA that signed the server's certificate (sslrootcert) and a host name it carries"},

    // --- halts: a policy's own, the checks beside the stream
    {halt_reason::policy_halted, "policy_halted", halt_kind::halt,
     "the checkpoint policy halted for a reason of its own",
     "do what the checkpoint policy's own reason says"},
    {halt_reason::side_check_failed, "side_check_failed", halt_kind::halt,
     "a check beside the stream kept failing on its own connection",
     "let the role open an ordinary connection beside the stream (pg_hba.conf, connection limits), then restart"},
});
// clang-format on

// The table is complete and in order exactly when its reasons are 1, 2, ..., N and N is the last
// enumerator.
constexpr auto halt_table_is_complete() noexcept -> bool {
  for (std::size_t i = 0; i < halt_table.size(); ++i) {
    if (static_cast<std::size_t>(halt_table[i].reason) != i + 1) return false;
  }
  return halt_table.back().reason == halt_reason::side_check_failed;
}
static_assert(halt_table_is_complete(), "replicant: halt_reasons must list every halt_reason in order");

// The row of @p reason, or null for a value that names no reason (such as `halt_reason{}`).
constexpr auto halt_entry_of(halt_reason reason) noexcept -> const halt_entry* {
  const int value = static_cast<int>(reason);
  if (value < 1 || value > static_cast<int>(halt_table.size())) return nullptr;
  return &halt_table[static_cast<std::size_t>(value - 1)];
}

// Whether the engine reports a halt for @p reason as `replicant.connection.slot_invalidated` too.
constexpr auto is_slot_refusal(halt_reason reason) noexcept -> bool {
  const halt_entry* entry = halt_entry_of(reason);
  return entry != nullptr && entry->kind == halt_kind::slot_refusal;
}

// The reasons column of the table.
constexpr auto reasons_of_halt_table() noexcept -> std::array<halt_reason, halt_table.size()> {
  std::array<halt_reason, halt_table.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = halt_table[i].reason;
  return out;
}

}  // namespace detail

/// Every @ref replicant::halt_reason, in declaration order (for tables, docs and tests).
inline constexpr std::array halt_reasons = detail::reasons_of_halt_table();

/**
 * The stable snake_case name of @p reason, e.g. `"sink_too_slow"`: the telemetry `reason` and the
 * word in logs. Never changes for an existing enumerator. `"unknown"` for a value that names no
 * reason. Never throws.
 */
[[nodiscard]] constexpr auto to_string(halt_reason reason) noexcept -> std::string_view {
  const detail::halt_entry* entry = detail::halt_entry_of(reason);
  return entry != nullptr ? entry->name : "unknown";
}

/**
 * The reason named @p name (the inverse of @ref to_string(halt_reason)), or `std::nullopt` for a
 * text that names none — for configuration such as alert rules. Never throws.
 */
[[nodiscard]] constexpr auto parse_halt_reason(std::string_view name) noexcept -> std::optional<halt_reason> {
  for (const detail::halt_entry& entry : detail::halt_table) {
    if (entry.name == name) return entry.reason;
  }
  return std::nullopt;
}

/// Writes `to_string(reason)`.
inline auto operator<<(std::ostream& os, halt_reason reason) -> std::ostream& { return os << to_string(reason); }

/**
 * True for the reasons found by validating the options before anything connects (nothing was
 * started, so there is nothing to resume); false for halts of a pipeline that ran. Never throws.
 */
[[nodiscard]] constexpr auto is_start_rejection(halt_reason reason) noexcept -> bool {
  const detail::halt_entry* entry = detail::halt_entry_of(reason);
  return entry != nullptr && entry->kind == detail::halt_kind::start_rejection;
}

/**
 * What an operator should do about @p reason, in one sentence (the same advice as its doc comment
 * and docs/errors.md). Fixed text, never a value. Never throws.
 */
[[nodiscard]] constexpr auto operator_action(halt_reason reason) noexcept -> std::string_view {
  const detail::halt_entry* entry = detail::halt_entry_of(reason);
  return entry != nullptr ? entry->action : "consult docs/errors.md";
}

/**
 * The fixed, value-free message of @p reason, e.g. `"received WAL ran too far ahead of the durable
 * checkpoint"` for `sink_too_slow`: the text @ref describe puts after the reason's name.
 * `"unknown halt reason"` for a value that names no reason. Never throws.
 */
[[nodiscard]] constexpr auto message(halt_reason reason) noexcept -> std::string_view {
  const detail::halt_entry* entry = detail::halt_entry_of(reason);
  return entry != nullptr ? entry->message : "unknown halt reason";
}

/**
 * A halt reason of a user's own checkpoint policy (or other user code the pipeline calls): its
 * snake_case name, what happened, and what the operator does. Each is a string literal, checked
 * when the reason is made at compile time (`consteval`), so a reason can never carry a runtime
 * string, and so never a row value. Declare it once, at namespace scope, and halt with
 * @ref replicant::halt_for (the halt's reason is `halt_reason::policy_halted`, and `halt::own`
 * points to it).
 *
 * @par Example
 * @code
 * inline constexpr replicant::own_halt_reason store_unreadable{
 *     "wal_bytes_store_unreadable", "the checkpoint store could not be read",
 *     "check the store's file system, then restart"};
 * return ctx.halt_with(replicant::halt_for(store_unreadable, read.error()));
 * @endcode
 *
 * @par Thread safety
 * Immutable: safe.
 */
class own_halt_reason {
 public:
  /// A reason named @p name (snake_case letters, digits and `_`), with its @p message (what
  /// happened) and the operator's @p action. Not a constant expression (so not compiled) when the
  /// name is empty or not snake_case, or the message or action is empty.
  consteval own_halt_reason(const char* name, const char* message, const char* action)
      : name_(name), message_(message), action_(action) {
    if (name_.empty() || message_.empty() || action_.empty())
      throw "an own_halt_reason needs a name, a message and an action";
    for (const char c : name_) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
        throw "an own_halt_reason's name is snake_case";
    }
  }
  /// The reason's name, e.g. `"wal_bytes_store_unreadable"`.
  [[nodiscard]] constexpr auto name() const noexcept -> std::string_view { return name_; }
  /// What happened.
  [[nodiscard]] constexpr auto message() const noexcept -> std::string_view { return message_; }
  /// What the operator does.
  [[nodiscard]] constexpr auto action() const noexcept -> std::string_view { return action_; }

 private:
  std::string_view name_;
  std::string_view message_;
  std::string_view action_;
};

/**
 * Everything replicant reports about one halt: the reason plus the metadata an operator needs,
 * and nothing else.
 *
 * Value-free by construction: the fields are a reason, a table *name*, positions, counts, an
 * invalidation class, a SQLSTATE and an error code. There is deliberately no free-text field, so no
 * row value, WAL byte or server message text can be put into a halt. Fields that do not apply to a
 * reason stay empty.
 *
 * @par Example
 * @code
 * replicant::halt h{.reason = replicant::halt_reason::sink_too_slow, .at = received, .lag_bytes = lag};
 * log(replicant::describe(h));
 * @endcode
 *
 * @par Thread safety
 * A value type: distinct objects are safe, shared objects are safe to read.
 */
struct halt {
  /// Why the pipeline stopped (or did not start). Always set it: the value-initialized `halt_reason{}`
  /// names no reason and describes itself as `unknown`.
  halt_reason reason{};
  /// The table concerned, for schema, snapshot, decoder-table and publication-change halts. A name,
  /// never row data.
  std::optional<table_name> table{};
  /// The WAL position concerned: the failed transaction's commit LSN, the received position for
  /// `sink_too_slow`, the position of malformed data for `decode_failure`, the checkpoint for
  /// `checkpoint_ahead_of_server`.
  std::optional<lsn> at{};
  /// The server's SQLSTATE (five characters, e.g. `"55000"`) when a server error caused the halt
  /// (for `checkpoint_store_failed`: the store's last one, e.g. `"55P03"` for a lock wait that timed
  /// out). The server's message text is never kept: it can quote row values.
  std::optional<std::string> sqlstate{};
  /// How far, in bytes, received WAL ran ahead of the durable checkpoint (`sink_too_slow`).
  std::optional<std::int64_t> lag_bytes{};
  /// The attempt count at which a retry budget ran out (`command_error_limit`,
  /// `checkpoint_store_failed`, `snapshot_table_contended`).
  std::optional<std::uint32_t> attempts{};
  /// How long the failed sink call took (`sink_failed`, where the call was timed): the `duration`
  /// of the `sink.failed` event.
  std::optional<std::chrono::nanoseconds> duration{};
  /// Why the server invalidated the slot (`slot_invalidated`): the class, never the server's text.
  /// The `kind` of the `replicant.connection.slot_invalidated` event.
  std::optional<slot_invalidation> invalidation{};
  /// The underlying error, when there is one: the code the sink returned, the OS error of a spill
  /// or checkpoint file, a @ref replicant::errc. Empty otherwise.
  std::error_code cause{};
  /// For `policy_halted`: the policy's own reason (static storage, see @ref own_halt_reason).
  const own_halt_reason* own = nullptr;

  /// Member-wise equality.
  friend auto operator==(const halt&, const halt&) -> bool = default;
};

namespace detail {

// A halt for @p reason, with its @p cause (value-free by construction).
REPLICANT_DECL auto to_halt(halt_reason reason, std::error_code cause = {}) -> halt;

}  // namespace detail

/**
 * A value of type `T`, or the @ref replicant::halt saying why there is none: what the checks made
 * before a pipeline starts return (`replicant::validate(options)`, a decoder's `validate`).
 *
 * The same `std::expected`-shaped type as @ref replicant::result, with a halt instead of a
 * `std::error_code` as its error, so that a start-time rejection keeps its exact
 * @ref replicant::halt_reason without passing it off as an error code. `if (!v)` means "refused",
 * and the reason is `v.error().reason`.
 *
 * @par Example
 * @code
 * if (auto v = replicant::validate(options); !v) {
 *   std::cerr << replicant::describe(v.error()) << '\n';  // "replicant refused to start: config_invalid (...)"
 * }
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
template <class T>
using halt_or = detail::expected<T, halt>;

/// A halt for a checkpoint policy's own @p reason (a namespace-scope constant), with its @p cause:
/// `halt_reason::policy_halted`, and `halt::own` pointing to @p reason. Never throws.
[[nodiscard]] REPLICANT_DECL auto halt_for(const own_halt_reason& reason, std::error_code cause = {}) noexcept -> halt;

/// What an operator should do about @p h: its reason's action, or its policy's own. Never throws.
[[nodiscard]] inline auto operator_action(const halt& h) noexcept -> std::string_view {
  return h.own != nullptr ? h.own->action() : operator_action(h.reason);
}

/// Shorthand for a failed @ref halt_or holding a halt for @p reason (and its @p cause, if any):
/// `return replicant::refuse(halt_reason::config_invalid);`. Never throws.
[[nodiscard]] inline auto refuse(halt_reason reason, std::error_code cause = {}) noexcept -> detail::unexpected<halt> {
  return detail::unexpected<halt>(detail::to_halt(reason, cause));
}

/**
 * A one-line, value-free description of @p h for logs, e.g.
 * `replicant halted: sink_too_slow (received WAL ran too far ahead of the durable checkpoint);
 * at 16/B374D848; lag 67108864 bytes; action: make the sink faster, ...`.
 *
 * A `slot_invalidated` halt adds its class: `...; invalidation rows_removed; action: ...`.
 * Start-time rejections read `replicant refused to start: config_invalid (...)`. The table name is
 * shown in its escaped display form (@ref to_string(table_ref)), so the line holds no control
 * characters; a malformed SQLSTATE is shown as `(malformed)`.
 * @par Exceptions
 * Throws `std::bad_alloc` only.
 */
[[nodiscard]] REPLICANT_DECL auto describe(const halt& h) -> std::string;

/**
 * The exception thrown by the throwing `run()` when the pipeline halts or refuses to start.
 *
 * It carries the halt: @ref details gives the whole value-free record, @ref reason its
 * @ref replicant::halt_reason, and `what()` is @ref describe of it. `code()` is `errc::halted`,
 * the same code the non-throwing `run(std::error_code&)` reports: the code says *that* the pipeline
 * stopped, the halt says *why*.
 *
 * @par Example
 * @code
 * try {
 *   pipeline.run();
 * } catch (const replicant::error& e) {
 *   if (e.reason() == replicant::halt_reason::sink_too_slow) alert(e.details().lag_bytes);
 *   std::cerr << e.what() << '\n';
 * }
 * @endcode
 *
 * @par Thread safety
 * Like any exception object: safe to read from several threads.
 */
class error : public std::system_error {
 public:
  /// Wraps @p h; `code()` is `errc::halted` and `what()` becomes `describe(h)`. Throws
  /// `std::bad_alloc` only.
  explicit error(replicant::halt h);

  /// `describe(details())`. Never throws.
  [[nodiscard]] auto what() const noexcept -> const char* override { return state_->what.c_str(); }

  /// The halt this exception reports. Never throws.
  [[nodiscard]] auto details() const noexcept -> const replicant::halt& { return state_->details; }

  /// Why the pipeline stopped: `details().reason`. Never throws.
  [[nodiscard]] auto reason() const noexcept -> halt_reason { return state_->details.reason; }

 private:
  // Shared and immutable, so that copying the exception (which must not throw) copies a pointer.
  struct state {
    explicit state(replicant::halt h) : details(std::move(h)), what(describe(details)) {}
    replicant::halt details;
    std::string what;
  };
  std::shared_ptr<const state> state_;
};

}  // namespace replicant

// The halts' making and describing: in every unit header-only, in the one unit that includes
// <replicant/src.hpp> with REPLICANT_SEPARATE_COMPILATION.
#if !defined(REPLICANT_SEPARATE_COMPILATION)
#include <replicant/core/impl/halt.hpp>
#endif

#endif  // REPLICANT_CORE_HALT_HPP
