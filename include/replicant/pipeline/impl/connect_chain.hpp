// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_IMPL_CONNECT_CHAIN_HPP
#define REPLICANT_PIPELINE_IMPL_CONNECT_CHAIN_HPP

// The connect chain of replicant::pipeline (included at the bottom of pipeline.hpp, after impl/pipeline.hpp): from the
// replication connection to START_REPLICATION, each step value-free on failure. A transient failure
// returns its error (the caller reconnects); a decision to stop for good sets the pipeline's halt.

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant {

// The checkpoint to resume after, as the checkpoint policy decides (the sink's, a store's). On
// failure the session has halted, unless stop() interrupted a store retry.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::read_checkpoint(session& s) -> result<std::optional<lsn>> {
  auto ctx = s.context();
  auto resumed = call_user([&] { return s.delivery.resume(ctx); });
  // A policy that failed without deciding a halt: a sink or store fault all the same, unless stop()
  // interrupted it.
  if (!resumed && !s.failed && !state_.stopping.load())
    s.failed = detail::to_halt(halt_reason::sink_failed, resumed.error());
  return resumed;
}

// Moves a halt the session's delivery decided during the connect chain to the pipeline's; true
// when there was one.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::adopt_halt(session& s) -> bool {
  if (s.failed) halt_with(std::move(*std::exchange(s.failed, std::nullopt)));
  return state_.halted.has_value();
}

// The snapshot start mode: reads every published table as of @p exported into the sink, then
// hands it the consistent point, and makes that the checkpoint. False on failure (state_.halted is set,
// unless stop() interrupted it, which leaves the snapshot incomplete for the next start to report).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::read_snapshot(session& s, const exported_snapshot& exported) -> bool {
  if constexpr (detail::has_handle_snapshot<Sink> && detail::has_handle_snapshot_complete<Sink>) {
    const auto started = std::chrono::steady_clock::now();
    emit<telemetry::events::snapshot_started>(telemetry::keys::commit_lsn = exported.consistent_point);
    std::optional<pq::connection> conn;
    const auto failed = [&](halt_reason why, std::error_code cause) {
      if (state_.stopping.load() || cause == errc::cancelled) return false;
      emit<telemetry::events::snapshot_failed>(telemetry::keys::reason = why,
                                               telemetry::keys::error_class = detail::error_class_of(cause));
      halt h = detail::to_halt(why, cause);
      // The server's own code for what it refused (a row filter's division by zero, a snapshot
      // that expired): a code, never its message.
      if (cause == errc::server_error && conn && !conn->last_error().sqlstate.empty()) {
        h.sqlstate = conn->last_error().sqlstate;
      }
      halt_with(std::move(h));
      return false;
    };
    pq::connect_options copts;
    copts.timeout = state_.options.connect_timeout;
    copts.cancel_fd = state_.stop_fd;
    copts.command_cancel_fd = state_.stop_fd;
    auto opened = pq::connection::open(state_.options.conninfo, pq::session_kind::normal, copts);
    if (!opened) return failed(halt_reason::snapshot_failed, opened.error());
    conn.emplace(std::move(*opened));
    std::optional<std::error_code> sink_error;
    const auto deliver = [&](const snapshot_batch& batch, const snapshot_context& ctx) -> result<void> {
      auto stored = s.context().call_sink([&] { return sink_.handle_snapshot(batch, ctx); });
      if (!stored) {
        sink_error = stored.error();
        return stored;
      }
      REPLICANT_FAULT_POINT("mid_snapshot");
      if (ctx.last_for_table) {
        emit<telemetry::events::snapshot_table_completed>(
            telemetry::keys::table = batch.table(),
            telemetry::keys::change_count = ctx.table_rows_before + batch.size());
      }
      return {};
    };
    snapshot_options so;
    so.batch_rows = start_as<start::point_in_time_snapshot>()->batch_rows;
    so.cancel_fd = state_.stop_fd;
    auto summary = read_point_in_time_snapshot(*conn, exported, plugin().publications, deliver, so);
    if (!summary) {
      if (sink_error) return failed(halt_reason::sink_failed, *sink_error);
      if (summary.error() == errc::publication_missing) return failed(halt_reason::publication_missing, {});
      return failed(halt_reason::snapshot_failed, summary.error());
    }
    auto completed = s.context().call_sink([&] { return sink_.handle_snapshot_complete(summary->consistent_point); });
    if (!completed) return failed(halt_reason::sink_failed, completed.error());
    {
      auto ctx = s.context();
      auto taken = call_user([&] { return s.delivery.snapshot_taken(ctx, summary->consistent_point); });
      if (!taken) {
        if (!s.failed) s.failed = detail::to_halt(halt_reason::sink_failed, taken.error());
        adopt_halt(s);
        return false;
      }
    }
    REPLICANT_FAULT_POINT("snapshot_handoff");
    state_.checkpoint = summary->consistent_point;
    state_.resumed_from.store(state_.checkpoint->value());
    emit<telemetry::events::snapshot_completed>(telemetry::keys::duration = std::chrono::steady_clock::now() - started,
                                                telemetry::keys::commit_lsn = summary->consistent_point,
                                                telemetry::keys::change_count = summary->rows);
    return true;
  } else {
    static_cast<void>(s);
    static_cast<void>(exported);
    halt_with(detail::to_halt(halt_reason::snapshot_unsupported));
    return false;
  }
}

// The connect chain on a new replication connection (libpq's model of server_session).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::connect(session& s) -> result<pq::replication_stream> {
  pq::connect_options copts;
  copts.timeout = state_.options.connect_timeout;
  copts.cancel_fd = state_.stop_fd;
  copts.command_cancel_fd = state_.stop_fd;
  auto opened = pq::connection::open(state_.options.conninfo, pq::session_kind::replication, copts, &s.refusal);
  if (!opened) return unexpected(opened.error());
  detail::pq_server server{std::move(*opened)};
  return connect_on(s, server);
}

// Stops for good: halts with @p h, and returns the error that says so.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::stop_for(halt h) -> unexpected<std::error_code> {
  halt_with(std::move(h));
  return fail(errc::halted);
}

// Stops for good for @p why, caused by @p cause.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::stop_for(halt_reason why, std::error_code cause) -> unexpected<std::error_code> {
  return stop_for(detail::to_halt(why, cause));
}

// The server refused a command (its SQLSTATE kept for the halt a bound may reach), or answered
// what it never answers: a transient failure, which the caller retries.
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::server_failed(session& s, Server& server, std::error_code ec)
    -> unexpected<std::error_code> {
  if (ec != errc::protocol_violation) s.sqlstate = std::string{server.last_sqlstate()};
  return unexpected(ec);
}

// The connect chain: each step value-free on failure. A transient failure returns its error code
// (the caller reconnects); a decision to stop for good sets state_.halted.
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::connect_on(session& s, Server& server) -> result<typename Server::stream_type> {
  auto identity = identify(s, server);
  if (!identity) return unexpected(identity.error());
  if (auto supported = check_version(s, server); !supported) return unexpected(supported.error());
  auto slot = inspect_slot(s, server);
  if (!slot) return unexpected(slot.error());
  const bool slot_exists = *slot && (*slot)->logical;
  if (auto checked = check_server_side(s, server); !checked) {
    return checked.error() == errc::halted ? unexpected(checked.error()) : server_failed(s, server, checked.error());
  }
  auto take_snapshot = adopt_checkpoint(s, *identity, slot_exists);
  if (!take_snapshot) return unexpected(take_snapshot.error());
  if (!slot_exists) {
    if (auto created = create_slot(s, server, *take_snapshot); !created) return unexpected(created.error());
  }
  if (*take_snapshot && !state_.checkpoint) {
    // Someone else created the slot in the meantime: no snapshot of ours to read.
    return stop_for(halt_reason::snapshot_incomplete);
  }
  if (auto handed = hand_slot_origin(s, *slot); !handed) return unexpected(handed.error());
  // The incremental snapshot: its progress, its reader, and its arming before anything streams.
  if (auto armed = prepare_incremental(s); !armed) return unexpected(armed.error());
  return start_streaming(s, server);
}

// IDENTIFY_SYSTEM on the replication connection itself: the identity, which the sink may check.
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::identify(session& s, Server& server) -> result<session_identity> {
  auto identity = server.identify();
  if (!identity) return server_failed(s, server, identity.error());
  if constexpr (detail::has_handle_session_identity<Sink>) {
    const session_context ctx{state_.options.slot, plugin().publications};
    if (auto verdict = call_user([&] { return sink_.handle_session_identity(*identity, ctx); }); !verdict) {
      emit<telemetry::events::connection_session_identity_rejected>(telemetry::keys::reason =
                                                                        halt_reason::session_identity_rejected);
      return stop_for(halt_reason::session_identity_rejected, verdict.error());
    }
  }
  return identity;
}

// The server's version against what the options ask: pgoutput protocol 3 needs 15, 4 needs 16.
// Every decoder needs 15 (pgoutput itself exists from 10, and a server older than that has no
// pgoutput at all).
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::check_version(session& s, Server& server) -> result<void> {
  s.server_version = server.server_version();
  const auto too_old = make_error_code(errc::unsupported_server);
  if (s.server_version < 150000) return stop_for(halt_reason::decoder_unsupported_on_server, too_old);
  if (state_.options.failover && s.server_version < 170000) return stop_for(halt_reason::failover_unsupported, too_old);
  if (plugin().origin && s.server_version < 160000) return stop_for(halt_reason::origin_unsupported, too_old);
  if (state_.options.failover && plugin().two_phase && s.server_version < 180000) {
    // PostgreSQL 17 creates such a slot, but its slot sync leaves two_phase_at behind: after a
    // failover a transaction prepared before that point could be skipped. 18 syncs it.
    return stop_for(halt_reason::two_phase_failover_conflict, too_old);
  }
  return {};
}

// Whether the server is a standby, then the slot of the name, with the columns this version has:
// halts for a slot or a server this pipeline cannot stream from. @return the slot, if any.
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::inspect_slot(session& s, Server& server) -> result<std::optional<slot_facts>> {
  auto recovery = server.recovery();
  if (!recovery) return server_failed(s, server, recovery.error());
  s.standby = recovery->in_recovery;
  auto found = server.find_slot(state_.options.slot);
  if (!found) return server_failed(s, server, found.error());
  const std::optional<slot_facts>& slot = *found;
  const bool slot_exists = slot && slot->logical;
  if (slot_exists) {
    if (recovery->in_recovery && slot->synced) return stop_for(halt_reason::slot_synced_unpromoted);
    // Also how a slot invalidated while it streamed is found: the server ends its walsender before
    // marking it, and this is the reconnect's first look at it.
    if (slot->invalidation) {
      halt h = detail::to_halt(halt_reason::slot_invalidated);
      h.invalidation = *slot->invalidation;
      return stop_for(std::move(h));
    }
  }
  if (recovery->in_recovery) {
    // Logical decoding on a standby arrived in PostgreSQL 16. It needs the standby to tell the
    // primary which catalog rows its slots still read: without that feedback the primary's vacuum
    // removes them and the server invalidates the slot (rows_removed), which costs a resync.
    if (s.server_version < 160000) {
      return stop_for(halt_reason::standby_unsupported, make_error_code(errc::unsupported_server));
    }
    if (!recovery->hot_standby_feedback) return stop_for(halt_reason::standby_feedback_off);
  }
  // Failover asked (17+, the version step saw to that): the slot must be a failover slot, or be
  // created as one here, which a standby cannot do. A slot that is one without being asked is
  // fine: a promoted standby's synced slot is, whatever the pipeline now says.
  if (state_.options.failover && (slot_exists ? !slot->failover : recovery->in_recovery)) {
    return stop_for(halt_reason::slot_not_failover);
  }
  // A slot made for another output plugin (say, pgoutput's, before the decoder was changed) would
  // refuse this decoder's options at START on every retry; a physical slot of the name (no plugin
  // at all) cannot be created over nor decoded from.
  if (slot && slot->plugin != std::optional<std::string>{std::string{D::plugin_name}}) {
    return stop_for(halt_reason::slot_plugin_mismatch);
  }
  return std::move(*found);
}

// The checkpoint (the sink's or the store's), then the start mode's guard. @return whether this
// connect takes a snapshot with the slot it creates.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::adopt_checkpoint(session& s, const session_identity& identity, bool slot_exists)
    -> result<bool> {
  auto checkpoint = read_checkpoint(s);
  if (!checkpoint) return fail(adopt_halt(s) ? errc::halted : errc::cancelled);
  state_.checkpoint = *checkpoint;
  // Every checkpoint is a position this server's WAL has passed (a commit, or a snapshot's
  // consistent point), so one past its end comes from another history: a store shared between
  // clusters, a server restored from a backup, a standby promoted before it had what the sink has.
  // Streaming from it would skip every transaction below it without a trace. (A checkpoint ahead
  // of the slot but within the WAL is ordinary: a slot whose last acknowledgement was lost in a
  // crash. Streaming starts at the checkpoint, and whatever the server sends at or below it is
  // skipped.)
  if (state_.checkpoint && identity.xlogpos.is_valid() && *state_.checkpoint > identity.xlogpos) {
    halt h = detail::to_halt(halt_reason::checkpoint_ahead_of_server);
    h.at = *state_.checkpoint;
    return stop_for(std::move(h));
  }
  if (state_.checkpoint) state_.resumed_from.store(state_.checkpoint->value());
  if (!state_.checkpoint && start_as<start::resume_only>() != nullptr)
    return stop_for(halt_reason::go_forward_required);
  // A snapshot is taken with the slot's creation; a slot that exists without a checkpoint is what an
  // interrupted snapshot leaves behind, and its exported snapshot is gone.
  const bool take_snapshot = !state_.checkpoint && start_as<start::point_in_time_snapshot>() != nullptr;
  if (take_snapshot && slot_exists) return stop_for(halt_reason::snapshot_incomplete);
  return take_snapshot;
}

// The position the slot streams from, handed to a sink that asks for it (and may refuse it): the
// slot's acknowledged position or the checkpoint, whichever is later, or where a slot created now
// begins.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::hand_slot_origin(session& s, const std::optional<slot_facts>& slot) -> result<void> {
  if constexpr (detail::has_handle_slot_origin<Sink>) {
    if (!s.slot_created) {
      if (!slot || !slot->confirmed_flush) return stop_for(halt_reason::slot_origin_unavailable);
      s.origin = std::max(*slot->confirmed_flush, state_.checkpoint.value_or(lsn{}));
    }
    if (!s.origin || !s.origin->is_valid()) return stop_for(halt_reason::slot_origin_unavailable);
    const slot_origin_context ctx{state_.options.slot, !s.slot_created};
    if (auto verdict = call_user([&] { return sink_.handle_slot_origin(*s.origin, ctx); }); !verdict) {
      return stop_for(halt_reason::slot_origin_rejected, verdict.error());
    }
  } else {
    static_cast<void>(s);
    static_cast<void>(slot);
  }
  return {};
}

// What the publications and the decoder's catalog say before anything streams: every requested
// publication exists (a missing one would silently narrow the stream), what they publish (the
// periodic check's baseline, or, on a reconnect, the check itself), and the decoder's own table
// set. errc::halted once it halted; another error is the server's.
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::check_server_side(session& s, Server& server) -> result<void> {
  if constexpr (D::capabilities.publications) {
    auto found = server.publications_exist(plugin().publications);
    if (!found) return unexpected(found.error());
    if (!*found) return stop_for(detail::to_halt(halt_reason::publication_missing));
    // A table removed from a publication (or a new row filter, a column list) vanishes from the
    // stream without a word. A reconnect compares with what the first session began with, and
    // halts as the periodic check would.
    if (state_.options.publication_check_interval.count() > 0) {
      if (s.publications) {
        auto changed = server.check_publication_shapes(plugin().publications, *s.publications);
        if (!changed) return unexpected(changed.error());
        if (*changed) return stop_for(std::move(**changed));
      } else {
        auto defined = server.publication_shapes(plugin().publications);
        if (!defined) return unexpected(defined.error());
        s.publications = std::move(*defined);
      }
    }
  }
  // A decoder that describes its tables from the catalog reads it now, and checks its own table
  // set (wal2json: every table exists and has a key; pglogical: the sets and the node exist).
  if constexpr (D::capabilities.catalog) {
    auto prepared = decoder_.prepare(detail::decoder_query(server.sql()));
    if (!prepared) return unexpected(prepared.error());
    if (*prepared) return stop_for(std::move(**prepared));
  }
  return {};
}

// Creates the slot (persistent: an error on this connection would drop a temporary one), after the
// start-mode guard, so that a refused start leaves nothing behind; and reads the snapshot it
// exports when the start mode asks for one.
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::create_slot(session& s, Server& server, bool take_snapshot) -> result<void> {
  if (!state_.options.create_slot) return stop_for(detail::to_halt(halt_reason::slot_missing));
  if (state_.options.failover && state_.checkpoint) {
    // A failover slot that should be here is not: most likely a promoted standby that had not
    // synced it. A new one would begin at the present, after a gap nobody would see.
    return stop_for(detail::to_halt(halt_reason::failover_slot_missing));
  }
  if (state_.checkpoint && !detail::has_handle_slot_origin<Sink>) {
    // The same for any slot: the checkpoint belongs to a slot that is gone (dropped, or this is
    // another server or slot name). A sink that judges origins is asked instead.
    return stop_for(detail::to_halt(halt_reason::slot_dropped));
  }
  auto created = server.create_slot(slot_request{.name = state_.options.slot,
                                                 .plugin = D::plugin_name,
                                                 .export_snapshot = take_snapshot,
                                                 .failover = state_.options.failover,
                                                 .two_phase = plugin().two_phase});
  if (!created) {
    const std::string sqlstate{server.last_sqlstate()};
    if (detail::plugin_missing(sqlstate)) {
      halt h = detail::to_halt(halt_reason::decoder_unsupported_on_server, created.error());
      h.sqlstate = sqlstate;
      return stop_for(std::move(h));
    }
    if (sqlstate == "42710") return {};  // created concurrently by someone else: it exists now, as wanted
    s.sqlstate = sqlstate;
    return unexpected(created.error());
  }
  s.slot_created = true;
  if (created->consistent_point.is_valid()) s.origin = created->consistent_point;
  if (take_snapshot) {
    // Nothing may run on this connection before the snapshot is read: it would end the export.
    const exported_snapshot exported{std::move(created->snapshot_name), s.origin.value_or(lsn{})};
    if (!read_snapshot(s, exported)) return fail(state_.halted ? errc::halted : errc::cancelled);
  }
  return {};
}

// START_REPLICATION with what the decoder asks of this server (pgoutput: the highest protocol the
// server speaks, or the one asked for).
template <class D, class C, class S, class Sink>
template <server_session Server>
auto pipeline<D, C, S, Sink>::start_streaming(session& s, Server& server) -> result<typename Server::stream_type> {
  const decoder_context ctx{s.server_version};
  auto request = decoder_.negotiate(ctx);
  if (!request) return stop_for(detail::to_halt(halt_reason::config_invalid, request.error()));
  s.protocol = request->protocol.version;
  s.streaming = request->protocol.streaming;
  // The incremental snapshot's watermarks are logical messages (only pgoutput serves that mode).
  if (start_as<start::incremental_snapshot>() != nullptr && !plugin().messages) {
    request->options += ", messages 'true'";
  }
  // The server starts after the greater of this position and the slot's acknowledged one. The
  // checkpoint saves re-sending what the sink has; with two-phase decoding it may lie past the
  // PREPARE of a transaction still outstanding, whose changes would then never be sent again, so
  // the slot's own position (never past such a PREPARE, see applier::advance) is used instead.
  const lsn start_at = plugin().two_phase ? lsn{} : state_.checkpoint.value_or(lsn{});
  decoder_.begin_session(ctx);
  const pq::stream_options stream_options{
      .receive_low_water_bytes = static_cast<int>(state_.options.receive_low_water_bytes),
      .gather_delay = state_.options.receive_gather_delay};
  auto started =
      std::move(server).start(stream_request{state_.options.slot, start_at, request->options}, stream_options);
  if (started) return started;
  // A failed start leaves the connection as it was. A plugin that cannot be loaded will not load
  // on retry.
  const std::string sqlstate{server.last_sqlstate()};
  if (detail::plugin_missing(sqlstate)) {
    halt h = detail::to_halt(halt_reason::decoder_unsupported_on_server, started.error());
    h.sqlstate = sqlstate;
    return stop_for(std::move(h));
  }
  if (request->fallback_options && started.error() == errc::server_error) {
    // The probe: the same START without the options some builds of the plugin do not know. If
    // that one starts, the plugin refused what was asked for, and a retry would be refused too.
    auto probe = std::move(server).start(stream_request{state_.options.slot, start_at, *request->fallback_options}, {});
    if (probe) {
      static_cast<void>(probe->finish());  // nothing was acknowledged: the slot stays where it was
      halt h = detail::to_halt(halt_reason::decoder_option_unsupported, started.error());
      h.sqlstate = sqlstate;
      return stop_for(std::move(h));
    }
  }
  s.sqlstate = std::string{server.last_sqlstate()};
  return unexpected(started.error());
}

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_IMPL_CONNECT_CHAIN_HPP
