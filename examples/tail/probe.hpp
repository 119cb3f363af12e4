// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_TAIL_PROBE_HPP
#define REPLICANT_EXAMPLES_TAIL_PROBE_HPP

/// @file
/// replicant-tail's start-up probe: one replication connection, opened and closed before the
/// replication pipeline starts, so that a server that cannot be reached fails the command at once
/// instead of being retried forever.

#include "failure.hpp"
#include "options.hpp"

#include <replicant/decoder/pgoutput.hpp>
#include <replicant/error.hpp>
#include <replicant/pq/connection.hpp>

#include <cstdint>
#include <string_view>

namespace replicant::examples::tail {

/// The oldest server replicant-tail supports (the replication pipeline's own minimum: pgoutput
/// protocol 3 and `CREATE_REPLICATION_SLOT ... (SNAPSHOT 'nothing')` arrived in PostgreSQL 15).
inline constexpr int min_server_version = 150000;

/**
 * Checks that `--proto-version` is one the server's pgoutput speaks (3 on PostgreSQL 15, 4 on 16
 * and later) and that the server is new enough.
 * @param server_version as `PQserverVersion` reports it, e.g. 160004.
 * @return nothing, or a failure with `errc::unsupported_server`.
 */
[[nodiscard]] inline auto check_server(int server_version, const options& o) -> outcome<void> {
  if (server_version < min_server_version) {
    return failure{.step = "checking the server",
                   .code = make_error_code(errc::unsupported_server),
                   .hint = "replicant-tail needs PostgreSQL 15 or later"};
  }
  const std::uint32_t highest = server_version >= 160000 ? pgoutput_protocol::max_version : 3U;
  if (o.proto_version && *o.proto_version > highest) {
    return failure{.step = "checking --proto-version",
                   .code = make_error_code(errc::unsupported_server),
                   .hint = "the server's pgoutput knows protocols up to 3 (PostgreSQL 15) or 4 (16 and later)"};
  }
  return {};
}

/**
 * Opens one replication connection (`replication=database`) with @p conninfo, checks the server
 * (check_server()) and closes it again.
 *
 * The replication pipeline retries a server that is down until it is stopped, which is right once
 * a tail is running (a restart of the server is waited out) but wrong for a command that was just
 * typed with a wrong `--dsn`: this probe makes that case fail fast, value-free.
 *
 * @param cancel_fd a descriptor that aborts the attempt when readable (the stop signal).
 * @return the server version, or a failure: `errc::cancelled` (stop requested),
 * `errc::connection_failed`, `errc::invalid_options` (unparseable connection string),
 * `errc::unsupported_server`.
 */
[[nodiscard]] inline auto probe_server(std::string_view conninfo, const options& o, int cancel_fd) -> outcome<int> {
  auto c = pq::connection::open(conninfo, pq::session_kind::replication, {.cancel_fd = cancel_fd});
  if (!c) {
    return failure{.step = "connecting",
                   .code = c.error(),
                   .hint = c.error() == errc::invalid_options
                               ? "--dsn is not a valid connection string"
                               : "check --dsn (or the PG* variables), that the server runs, and that the role may "
                                 "connect for replication"};
  }
  const int version = c->server_version();
  if (auto ok = check_server(version, o); !ok) return ok.error();
  return version;
}

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_PROBE_HPP
