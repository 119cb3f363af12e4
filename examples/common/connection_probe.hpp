// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_CONNECTION_PROBE_HPP
#define REPLICANT_EXAMPLES_COMMON_CONNECTION_PROBE_HPP

/// @file
/// The connection a program tries once before it starts its pipeline. The pipeline waits out a
/// server that is down, which is right once it streams; a command typed with a wrong `--dsn`
/// should fail at once instead.

#include "stop_signal.hpp"

#include <replicant/core/error.hpp>
#include <replicant/pq/connection.hpp>

#include <string>
#include <string_view>

namespace replicant::examples {

/**
 * Opens one replication connection to @p dsn and closes it again: whether the program may go on
 * to start its pipeline. A failure is said through @p say (the error's fixed text and what to
 * check, never the connection string or the server's message) and gives false. A stop signal
 * while connecting cancels the attempt and gives true: the caller then sees
 * stop_signal::requested() and ends as a stopped program does.
 *
 * @par Example
 * @code
 * if (!probe_replication_connection(o.dsn, say)) return exit_failure;
 * if (stop_signal::requested()) return exit_ok;
 * @endcode
 *
 * @throws std::bad_alloc only.
 */
[[nodiscard]] inline auto probe_replication_connection(std::string_view dsn, void (*say)(const std::string&)) -> bool {
  auto c = pq::connection::open(dsn, pq::session_kind::replication, {.cancel_fd = stop_signal::fd()});
  if (c || c.error() == errc::cancelled) return true;
  say("connecting failed: " + c.error().message() +
      "; check --dsn, that the server runs, and that the role may connect for replication");
  return false;
}

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_CONNECTION_PROBE_HPP
