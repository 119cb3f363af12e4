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

#include <replicant/core/error.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pq/connection.hpp>

#include <cstdint>
#include <string_view>
#include <system_error>
#include <utility>

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

/// What to tell the user about a failed connection: each refusal, and a server not reached, apart
/// (fixed text). Names no role, database or host: the user knows which they gave.
[[nodiscard]] inline auto connect_hint(std::error_code ec, pq::refusal why) -> std::string_view {
  if (ec == errc::invalid_options) return "--dsn is not a valid connection string";
  if (ec != errc::connection_refused) {
    return "the server was not reached: check the host and port in --dsn (or the PG* variables), and that the "
           "server runs";
  }
  switch (why) {
    case pq::refusal::authentication:
      return "the server refused the password: check it in --dsn, PGPASSWORD or the password file";
    case pq::refusal::role: return "the server refused the role: check the user name, and that the role may log in";
    case pq::refusal::host:
      return "a pg_hba.conf line rejects this connection: add one for this host, user and database";
    case pq::refusal::database: return "the database does not exist: check dbname in --dsn";
    case pq::refusal::tls: return "sslmode requires TLS and the server offers none: check the server's ssl setting";
    case pq::refusal::tls_verification:
      return "the server's certificate did not verify: check sslrootcert, and that the host in --dsn is one the "
             "certificate names";
    case pq::refusal::none: break;
  }
  return "the server refused the connection";
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
 * `errc::connection_refused` (with a hint that says which refusal: password, role, pg_hba.conf,
 * database or TLS), `errc::connection_failed` (not reached), `errc::invalid_options` (unparseable
 * connection string), `errc::unsupported_server`.
 */
[[nodiscard]] inline auto probe_server(std::string_view conninfo, const options& o, int cancel_fd) -> outcome<int> {
  pq::connect_refusal refused;
  auto c = pq::connection::open(conninfo, pq::session_kind::replication, {.cancel_fd = cancel_fd}, &refused);
  if (!c) {
    return failure{.step = "connecting",
                   .code = c.error(),
                   .hint = connect_hint(c.error(), refused.why),
                   .sqlstate = std::move(refused.sqlstate)};
  }
  const int version = c->server_version();
  if (auto ok = check_server(version, o); !ok) return ok.error();
  return version;
}

}  // namespace replicant::examples::tail

#endif  // REPLICANT_EXAMPLES_TAIL_PROBE_HPP
