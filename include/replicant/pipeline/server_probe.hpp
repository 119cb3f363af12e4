// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_SERVER_PROBE_HPP
#define REPLICANT_PIPELINE_SERVER_PROBE_HPP

/// @file
/// replicant::server_probe: the engine's seam to the server beside the stream. The session loop
/// makes its periodic checks (the publications, the WAL lag, what the walsender sent, the
/// heartbeat) on a connection of their own, so that a slow or failed query never touches the
/// replication connection, and only on its timers. The libpq model (`detail::pq_probe`) is what
/// the pipeline uses; the simulator's probe (replicant/testing/) answers from the simulated world
/// and fails when its schedule says, so that the idle advance and a failing check run in-process.

#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/pipeline/publication_shape.hpp>

#include <concepts>
#include <optional>
#include <span>
#include <string>

namespace replicant {

/**
 * The side connection, as the session loop uses it: opened when a check first needs it, and again
 * after a query failed on it.
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `p.open()` | `result<void>` | Makes the connection ready: nothing when it is, else opens it; the error when it cannot be opened now (the check is then not made). |
 * | `p.heartbeat(statement)` | `result<std::optional<lsn>>` | Runs `pipeline_options::heartbeat_statement`; the position its first column names, if it names one. |
 * | `p.walsender_sent(pid)` | `result<std::optional<lsn>>` | What the server's statistics say walsender `pid` has sent; nothing when no such walsender is listed. |
 * | `p.wal_position()` | `result<lsn>` | Where the server's WAL is now (a standby's: its replay position). |
 * | `p.publications_exist(names)` | `result<bool>` | Whether every publication named still exists. |
 * | `p.check_publication_shapes(names, baseline)` | `result<std::optional<halt>>` | The halt a narrowing of the publications since `baseline` calls for, if any; `baseline` gains what was added. |
 * | `p.close()` | `void`, `noexcept` | Forgets the connection: the next `open()` opens a new one. |
 *
 * Pre: every query follows an `open()` that succeeded. Post: a query that failed has forgotten
 * the connection itself, so that the next check opens a new one (a check is never made on a
 * connection in an unknown state). An error is the connection's (`errc::connection_failed`,
 * `errc::server_error`, `errc::cancelled` after a stop); the session loop counts the failures of
 * its checks (`pipeline_options::max_side_check_failures`) and never takes one for a check that
 * found nothing.
 *
 * Optional: `p.catalog()` giving a `query_function` over the same connection (see
 * replicant::catalog_probe), for a decoder that reads the catalog again while it streams
 * (wal2json, pglogical).
 *
 * @par Thread safety
 * The session thread alone calls it.
 */
template <class P>
concept server_probe = requires(P& p, const std::string& statement, int pid, std::span<const std::string> names,
                                publication_definitions& baseline) {
  { p.open() } -> std::same_as<result<void>>;
  { p.heartbeat(statement) } -> std::same_as<result<std::optional<lsn>>>;
  { p.walsender_sent(pid) } -> std::same_as<result<std::optional<lsn>>>;
  { p.wal_position() } -> std::same_as<result<lsn>>;
  { p.publications_exist(names) } -> std::same_as<result<bool>>;
  { p.check_publication_shapes(names, baseline) } -> std::same_as<result<std::optional<halt>>>;
  { p.close() } noexcept -> std::same_as<void>;
};

/**
 * A side connection that also runs a decoder's catalog queries: what a decoder with a periodic
 * recheck (wal2json, pglogical) needs while it streams. The libpq model is one; a probe that is
 * not cannot run such a decoder (the pipeline says so at compile time).
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `p.catalog()` | `query_function` | Runs the decoder's queries on the probe's connection (after an `open()` that succeeded); valid until the next `open()` or `close()`. |
 */
template <class P>
concept catalog_probe = server_probe<P> && requires(P& p) {
  { p.catalog() } -> std::same_as<query_function>;
};

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_SERVER_PROBE_HPP
