// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_SERVER_SESSION_HPP
#define REPLICANT_PIPELINE_SERVER_SESSION_HPP

/// @file
/// replicant::server_session: the engine's seam to the server before it streams. The connect
/// chain asks the replication connection what it must know (the server's identity and version,
/// its recovery state, the slot, the publications), creates the slot, and starts streaming, all
/// through it: the libpq connection (`detail::pq_server`) is one model, the simulator's server
/// (replicant/testing/) another, so the whole connect chain runs in-process under a seeded
/// schedule. Together with replicant::server_stream it is everything the engine asks of a server.

#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/core/slot_invalidation.hpp>
#include <replicant/pipeline/publication_shape.hpp>
#include <replicant/pipeline/server_stream.hpp>
#include <replicant/pq/replication_stream.hpp>
#include <replicant/sink/vocabulary.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace replicant {

/// Whether the server is a standby, and whether it tells its primary what its slots still read.
struct server_recovery {
  bool in_recovery = false;           ///< `pg_is_in_recovery()`
  bool hot_standby_feedback = false;  ///< `hot_standby_feedback` is on
};

/// A replication slot of the pipeline's name, as the server holds it.
struct slot_facts {
  bool logical = false;                           ///< a logical slot (else a physical one)
  std::optional<std::string> plugin;              ///< its output plugin; none for a physical slot
  std::optional<lsn> confirmed_flush;             ///< none while its creation is still in progress
  std::optional<slot_invalidation> invalidation;  ///< why the server invalidated it, if it did
  bool synced = false;                            ///< 17+: a standby's copy of a primary's failover slot
  bool failover = false;                          ///< 17+: a failover slot
};

/// What `CREATE_REPLICATION_SLOT` is asked for.
struct slot_request {
  std::string_view name;         ///< the slot's name (validated)
  std::string_view plugin;       ///< the output plugin
  bool export_snapshot = false;  ///< export a snapshot (else `SNAPSHOT 'nothing'`)
  bool failover = false;         ///< a failover slot (17+)
  bool two_phase = false;        ///< decode prepared transactions
};

/// What `CREATE_REPLICATION_SLOT` answered.
struct created_slot {
  lsn consistent_point{};     ///< every transaction committing after it is streamed
  std::string snapshot_name;  ///< the exported snapshot, when one was asked for
};

/// What `START_REPLICATION` is asked for.
struct stream_request {
  std::string_view slot;     ///< the slot's name (validated)
  lsn at{};                  ///< where to start (the server starts at the greater of this and the slot's position)
  std::string_view options;  ///< the plugin's options, as the decoder wrote them
};

/**
 * The replication connection, as the connect chain uses it.
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `S::stream_type` | a model of replicant::server_stream | What a started session streams over. |
 * | `s.identify()` | `result<session_identity>` | `IDENTIFY_SYSTEM`. |
 * | `s.server_version()` | `std::uint32_t` | The server's version number (`150004` for 15.4). |
 * | `s.recovery()` | `result<server_recovery>` | Whether the server is a standby, and its feedback setting. |
 * | `s.find_slot(name)` | `result<std::optional<slot_facts>>` | The slot of that name, of any type, if there is one. |
 * | `s.publications_exist(names)` | `result<bool>` | Whether every publication named exists. |
 * | `s.publication_shapes(names)` | `result<publication_definitions>` | What the publications publish now (the periodic check's baseline). |
 * | `s.check_publication_shapes(names, baseline)` | `result<std::optional<halt>>` | The halt a narrowing of the publications since `baseline` calls for, if any; `baseline` gains what was added. |
 * | `s.create_slot(request)` | `result<created_slot>` | `CREATE_REPLICATION_SLOT`. |
 * | `std::move(s).start(request, options)` | `result<S::stream_type>` | `START_REPLICATION`; on failure `s` is as it was, to try again. |
 * | `s.last_sqlstate()` | convertible to `std::string_view` | The SQLSTATE of the last command that failed, empty if none. |
 *
 * An error is the connection's (`errc::server_error` with `last_sqlstate()`, `errc::connection_failed`):
 * the connect chain reconnects after it, or halts when the SQLSTATE says a retry cannot succeed.
 */
template <class S>
concept server_session =
    server_stream<typename S::stream_type> &&
    requires(S& s, std::string_view name, std::span<const std::string> names, publication_definitions& baseline,
             const slot_request& slot, const stream_request& start, const pq::stream_options& options) {
      { s.identify() } -> std::same_as<result<session_identity>>;
      { s.server_version() } -> std::same_as<std::uint32_t>;
      { s.recovery() } -> std::same_as<result<server_recovery>>;
      { s.find_slot(name) } -> std::same_as<result<std::optional<slot_facts>>>;
      { s.publications_exist(names) } -> std::same_as<result<bool>>;
      { s.publication_shapes(names) } -> std::same_as<result<publication_definitions>>;
      { s.check_publication_shapes(names, baseline) } -> std::same_as<result<std::optional<halt>>>;
      { s.create_slot(slot) } -> std::same_as<result<created_slot>>;
      { std::move(s).start(start, options) } -> std::same_as<result<typename S::stream_type>>;
      { s.last_sqlstate() } -> std::convertible_to<std::string_view>;
    };

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_SERVER_SESSION_HPP
