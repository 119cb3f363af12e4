// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_IMPL_PROBE_HPP
#define REPLICANT_PIPELINE_IMPL_PROBE_HPP

// The probe connection of replicant::pipeline (included at the bottom of impl/pipeline.hpp): an
// ordinary session of its own for the periodic work beside the stream (heartbeats, publication
// checks, what the server sent, where its WAL is), opened when first needed and again after a
// failure, so that a slow or failed query never touches the replication connection.

#include <replicant/pipeline/impl/pipeline.hpp>

#include <optional>
#include <string>

namespace replicant {

// The session thread's ordinary connection for its periodic work (publication checks, heartbeats), opened
// when first needed and again after a failure. The error when it cannot be opened now.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::open_probe() -> result<void> {
  if (probe_) return {};
  pq::connect_options copts;
  copts.timeout = options_.connect_timeout;
  copts.cancel_fd = stop_fd_;
  copts.command_cancel_fd = stop_fd_;
  copts.command_timeout = std::min(options_.connect_timeout, std::chrono::milliseconds(std::chrono::seconds(10)));
  auto opened = pq::connection::open(options_.conninfo, pq::session_kind::normal, copts);
  if (!opened) return unexpected(opened.error());
  probe_.emplace(std::move(*opened));
  return {};
}

// Runs the heartbeat statement; a failure is left to the next beat (the stream itself reports
// what is wrong with the server).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::heartbeat() -> void {
  if (!open_probe()) return;
  auto beat = probe_->exec(options_.heartbeat_statement);
  if (!beat) {
    // A heartbeat that failed is reported; one that stop() cancelled did not fail.
    if (beat.error() != errc::cancelled) {
      emit<telemetry::events::connection_heartbeat>(telemetry::keys::error_class =
                                                        detail::error_class_of(beat.error()));
    }
    probe_.reset();
    return;
  }
  std::optional<lsn> at;
  if (beat->rows() > 0 && beat->columns() > 0) {
    if (auto parsed = parse_lsn(beat->get(0, 0))) at = *parsed;
  }
  if (at) {
    emit<telemetry::events::connection_heartbeat>(telemetry::keys::commit_lsn = *at);
  } else {
    emit<telemetry::events::connection_heartbeat>();
  }
}

// What the server's statistics say the walsender @p pid has sent, read on the probe connection.
// This is the idle advance's second source besides the keepalives, which travel in the stream and
// which a damaged network could alter: a slot is never advanced past a position both name.
// Nothing when it cannot be read now.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::walsender_sent(int pid) -> std::optional<lsn> {
  if (!open_probe()) return std::nullopt;
  auto found = probe_->exec("SELECT sent_lsn FROM pg_stat_replication WHERE pid = " + std::to_string(pid));
  if (!found) {
    probe_.reset();
    return std::nullopt;
  }
  if (found->rows() != 1 || found->columns() != 1 || found->is_null(0, 0)) return std::nullopt;
  auto sent = parse_lsn(found->get(0, 0));
  return sent ? std::optional<lsn>{*sent} : std::nullopt;
}

// Where the server's WAL is now (its insert position; a standby's replay position), read on the
// probe connection: how far a paced stream is behind. The error when it cannot be read now (no
// probe, a failed query, an answer that is not one position: the check is not made either way).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::server_wal_position() -> result<lsn> {
  if (auto opened = open_probe(); !opened) return unexpected(opened.error());
  auto found = probe_->exec(
      "SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END");
  if (!found) {
    probe_.reset();
    return unexpected(found.error());
  }
  if (found->rows() != 1 || found->columns() != 1 || found->is_null(0, 0)) return fail(errc::protocol_violation);
  auto at = parse_lsn(found->get(0, 0));
  if (!at) return fail(errc::protocol_violation);
  return *at;
}

// The periodic publication check while streaming, on an ordinary connection of its own (kept open
// between checks). PostgreSQL 18 skips a dropped publication with a warning instead of ending the
// stream, so without this a drop would silently narrow what the sink receives. False when a
// publication is known to be missing; the error when the check could not be made (no probe, a
// failed query), which the session loop counts (pipeline_options::max_side_check_failures).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::publications_still_exist() -> result<bool> {
  if (auto opened = open_probe(); !opened) return unexpected(opened.error());
  auto found = detail::publications_exist(*probe_, plugin().publications);
  if (!found) probe_.reset();
  return found;
}

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_IMPL_PROBE_HPP
