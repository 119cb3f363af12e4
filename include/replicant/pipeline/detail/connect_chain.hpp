// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_CONNECT_CHAIN_HPP
#define REPLICANT_PIPELINE_DETAIL_CONNECT_CHAIN_HPP

// The connect chain: from a replication connection (a server_session) to START_REPLICATION, each
// step value-free on failure. A transient failure returns its error (the caller reconnects); a
// decision to stop for good sets the engine's halt and returns errc::halted. It reaches the engine
// through its state, the session being connected (its sink, its checkpoint policy's delivery) and
// the decoder; and the pipeline through Hooks, for one thing: `prepare_incremental(session)`, the
// incremental snapshot's progress, reader and arming before anything streams.

#include <replicant/core/detail/fault_point.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/pipeline/detail/engine_state.hpp>
#include <replicant/pipeline/detail/pq_probe.hpp>
#include <replicant/pipeline/options.hpp>
#include <replicant/pipeline/server_session.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/sink/vocabulary.hpp>
#include <replicant/snapshot/point_in_time.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace replicant::detail {

// A server that cannot load the output plugin's library (58P01, "could not access file") will not
// be able to after a retry either.
inline auto plugin_missing(std::string_view sqlstate) noexcept -> bool { return sqlstate == "58P01"; }

// The connect chain of session @p Session (an engine_session) with decoder @p D (see above).
template <class D, class Session, class Hooks>
class connect_chain {
  using Sink = typename Session::sink_type;

 public:
  /// The chain for session @p ses, in @p engine, with @p translator's plugin; @p pipeline_hooks
  /// reaches the incremental snapshot.
  connect_chain(engine_state& engine, D& translator, Session& ses, Hooks pipeline_hooks)
      : state(engine), decoder(translator), s(ses), hooks(pipeline_hooks) {}

  // The connect chain: each step value-free on failure. A transient failure returns its error code
  // (the caller reconnects); a decision to stop for good sets state.halted.
  template <server_session Server>
  auto run(Server& server) -> result<typename Server::stream_type> {
    auto identity = identify(server);
    if (!identity) return unexpected(identity.error());
    if (auto supported = check_version(server); !supported) return unexpected(supported.error());
    auto slot = inspect_slot(server);
    if (!slot) return unexpected(slot.error());
    const bool slot_exists = logical(*slot);
    if (auto checked = check_server_side(server); !checked) {
      return checked.error() == errc::halted ? unexpected(checked.error()) : server_failed(server, checked.error());
    }
    auto take_snapshot = adopt_checkpoint(*identity, slot_exists);
    if (!take_snapshot) return unexpected(take_snapshot.error());
    if (!slot_exists) {
      if (auto created = create_slot(server, *take_snapshot); !created) return unexpected(created.error());
    }
    if (*take_snapshot && !state.checkpoint) {
      // Someone else created the slot in the meantime: no snapshot of ours to read.
      return state.stop_for(halt_reason::snapshot_incomplete);
    }
    if (auto handed = hand_slot_origin(*slot); !handed) return unexpected(handed.error());
    // The incremental snapshot: its progress, its reader, and its arming before anything streams.
    if (auto armed = hooks.prepare_incremental(s); !armed) return unexpected(armed.error());
    return start_streaming(server);
  }

 private:
  engine_state& state;
  D& decoder;
  Session& s;
  Hooks hooks;

  // Whether @p slot is a logical slot: one a physical slot of the same name is not.
  static auto logical(const std::optional<slot_facts>& slot) noexcept -> bool { return slot && slot->logical; }

  // What the decoder's options ask of the plugin (a view into the decoder).
  [[nodiscard]] auto plugin() const noexcept -> plugin_settings { return decoder.settings(); }

  // The checkpoint to resume after, as the checkpoint policy decides (the sink's, a store's). On
  // failure the session has halted, unless stop() interrupted a store retry.
  auto read_checkpoint() -> result<std::optional<lsn>> {
    auto ctx = s.context();
    auto resumed = state.call_user([&] { return s.delivery.resume(ctx); });
    // A policy that failed without deciding a halt: a sink or store fault all the same, unless stop()
    // interrupted it.
    if (!resumed && !s.failed && !state.stopping.load()) s.failed = to_halt(halt_reason::sink_failed, resumed.error());
    return resumed;
  }

  // The snapshot start mode: reads every published table as of @p exported into the sink, then
  // hands it the consistent point, and makes that the checkpoint. False on failure (state.halted is set,
  // unless stop() interrupted it, which leaves the snapshot incomplete for the next start to report).
  auto read_snapshot(const exported_snapshot& exported) -> bool {
    if constexpr (has_handle_snapshot<Sink> && has_handle_snapshot_complete<Sink>) {
      const auto started = std::chrono::steady_clock::now();
      state.emit<telemetry::events::snapshot_started>(telemetry::keys::commit_lsn = exported.consistent_point);
      std::optional<pq::connection> conn;
      const auto failed = [&](halt_reason why, std::error_code cause) {
        if (state.stopping.load() || cause == errc::cancelled) return false;
        state.emit<telemetry::events::snapshot_failed>(telemetry::keys::reason = why,
                                                       telemetry::keys::error_class = error_class_of(cause));
        halt h = to_halt(why, cause);
        // The server's own code for what it refused (a row filter's division by zero, a snapshot
        // that expired): a code, never its message.
        if (cause == errc::server_error && conn && !conn->last_error().sqlstate.empty()) {
          h.sqlstate = conn->last_error().sqlstate;
        }
        state.halted = std::move(h);
        return false;
      };
      auto opened = pq::connection::open(state.options.conninfo, pq::session_kind::normal, state.stoppable_connect());
      if (!opened) return failed(halt_reason::snapshot_failed, opened.error());
      conn.emplace(std::move(*opened));
      std::optional<std::error_code> sink_error;
      const auto deliver = [&](const snapshot_batch& batch, const snapshot_context& ctx) -> result<void> {
        auto stored = s.context().call_sink([&] { return s.sink.handle_snapshot(batch, ctx); });
        if (!stored) {
          sink_error = stored.error();
          return stored;
        }
        REPLICANT_FAULT_POINT("mid_snapshot");
        if (ctx.last_for_table) {
          state.emit<telemetry::events::snapshot_table_completed>(
              telemetry::keys::table = batch.table(),
              telemetry::keys::change_count = ctx.table_rows_before + batch.size());
        }
        return {};
      };
      snapshot_options so;
      so.batch_rows = state.start_as<start::point_in_time_snapshot>()->batch_rows;
      so.cancel_fd = state.stop_fd;
      auto summary = read_point_in_time_snapshot(*conn, exported, plugin().publications, deliver, so);
      if (!summary) {
        if (sink_error) return failed(halt_reason::sink_failed, *sink_error);
        if (summary.error() == errc::publication_missing) return failed(halt_reason::publication_missing, {});
        return failed(halt_reason::snapshot_failed, summary.error());
      }
      auto completed =
          s.context().call_sink([&] { return s.sink.handle_snapshot_complete(summary->consistent_point); });
      if (!completed) return failed(halt_reason::sink_failed, completed.error());
      {
        auto ctx = s.context();
        auto taken = state.call_user([&] { return s.delivery.snapshot_taken(ctx, summary->consistent_point); });
        if (!taken) {
          if (!s.failed) s.failed = to_halt(halt_reason::sink_failed, taken.error());
          s.adopt_halt();
          return false;
        }
      }
      REPLICANT_FAULT_POINT("snapshot_handoff");
      state.checkpoint = summary->consistent_point;
      state.resumed_from.store(state.checkpoint->value());
      state.emit<telemetry::events::snapshot_completed>(
          telemetry::keys::duration = std::chrono::steady_clock::now() - started,
          telemetry::keys::commit_lsn = summary->consistent_point, telemetry::keys::change_count = summary->rows);
      return true;
    } else {
      static_cast<void>(exported);
      state.halted = to_halt(halt_reason::snapshot_unsupported);
      return false;
    }
  }

  // The server refused a command (its SQLSTATE kept for the halt a bound may reach), or answered
  // what it never answers: a transient failure, which the caller retries.
  template <server_session Server>
  auto server_failed(Server& server, std::error_code ec) -> unexpected<std::error_code> {
    if (ec != errc::protocol_violation) s.sqlstate = std::string{server.last_sqlstate()};
    return unexpected(ec);
  }

  // IDENTIFY_SYSTEM on the replication connection itself: the identity, which the sink may check.
  template <server_session Server>
  auto identify(Server& server) -> result<session_identity> {
    auto identity = server.identify();
    if (!identity) return server_failed(server, identity.error());
    if constexpr (has_handle_session_identity<Sink>) {
      const session_context ctx{state.options.slot, plugin().publications};
      if (auto verdict = state.call_user([&] { return s.sink.handle_session_identity(*identity, ctx); }); !verdict) {
        state.emit<telemetry::events::connection_session_identity_rejected>(telemetry::keys::reason =
                                                                                halt_reason::session_identity_rejected);
        return state.stop_for(halt_reason::session_identity_rejected, verdict.error());
      }
    }
    return identity;
  }

  // The server's version against what the options ask: pgoutput protocol 3 needs 15, 4 needs 16.
  // Every decoder needs 15 (pgoutput itself exists from 10, and a server older than that has no
  // pgoutput at all).
  template <server_session Server>
  auto check_version(Server& server) -> result<void> {
    s.server_version = server.server_version();
    const auto too_old = make_error_code(errc::unsupported_server);
    if (s.server_version < 150000) return state.stop_for(halt_reason::decoder_unsupported_on_server, too_old);
    if (state.options.failover && s.server_version < 170000)
      return state.stop_for(halt_reason::failover_unsupported, too_old);
    if (plugin().origin && s.server_version < 160000) return state.stop_for(halt_reason::origin_unsupported, too_old);
    if (state.options.failover && plugin().two_phase && s.server_version < 180000) {
      // PostgreSQL 17 creates such a slot, but its slot sync leaves two_phase_at behind: after a
      // failover a transaction prepared before that point could be skipped. 18 syncs it.
      return state.stop_for(halt_reason::two_phase_failover_conflict, too_old);
    }
    return {};
  }

  // Whether the server is a standby, then the slot of the name, with the columns this version has:
  // halts for a slot or a server this pipeline cannot stream from. @return the slot, if any.
  template <server_session Server>
  auto inspect_slot(Server& server) -> result<std::optional<slot_facts>> {
    auto recovery = server.recovery();
    if (!recovery) return server_failed(server, recovery.error());
    s.standby = recovery->in_recovery;
    auto found = server.find_slot(state.options.slot);
    if (!found) return server_failed(server, found.error());
    const std::optional<slot_facts>& slot = *found;
    const bool slot_exists = logical(slot);
    if (slot_exists) {
      if (recovery->in_recovery && slot->synced) return state.stop_for(halt_reason::slot_synced_unpromoted);
      // Also how a slot invalidated while it streamed is found: the server ends its walsender before
      // marking it, and this is the reconnect's first look at it.
      if (slot->invalidation) {
        halt h = to_halt(halt_reason::slot_invalidated);
        h.invalidation = *slot->invalidation;
        return state.stop_for(std::move(h));
      }
    }
    if (recovery->in_recovery) {
      // Logical decoding on a standby arrived in PostgreSQL 16. It needs the standby to tell the
      // primary which catalog rows its slots still read: without that feedback the primary's vacuum
      // removes them and the server invalidates the slot (rows_removed), which costs a resync.
      if (s.server_version < 160000) {
        return state.stop_for(halt_reason::standby_unsupported, make_error_code(errc::unsupported_server));
      }
      if (!recovery->hot_standby_feedback) return state.stop_for(halt_reason::standby_feedback_off);
    }
    // Failover asked (17+, the version step saw to that): the slot must be a failover slot, or be
    // created as one here, which a standby cannot do. A slot that is one without being asked is
    // fine: a promoted standby's synced slot is, whatever the pipeline now says.
    if (state.options.failover && (slot_exists ? !slot->failover : recovery->in_recovery)) {
      return state.stop_for(halt_reason::slot_not_failover);
    }
    // A slot made for another output plugin (say, pgoutput's, before the decoder was changed) would
    // refuse this decoder's options at START on every retry; a physical slot of the name (no plugin
    // at all) cannot be created over nor decoded from.
    if (slot && slot->plugin != std::optional<std::string>{std::string{D::plugin_name}}) {
      return state.stop_for(halt_reason::slot_plugin_mismatch);
    }
    return std::move(*found);
  }

  // The checkpoint (the sink's or the store's), then the start mode's guard. @return whether this
  // connect takes a snapshot with the slot it creates.
  auto adopt_checkpoint(const session_identity& identity, bool slot_exists) -> result<bool> {
    auto checkpoint = read_checkpoint();
    if (!checkpoint) return fail(s.adopt_halt() ? errc::halted : errc::cancelled);
    state.checkpoint = *checkpoint;
    // Every checkpoint is a position this server's WAL has passed (a commit, or a snapshot's
    // consistent point), so one past its end comes from another history: a store shared between
    // clusters, a server restored from a backup, a standby promoted before it had what the sink has.
    // Streaming from it would skip every transaction below it without a trace. (A checkpoint ahead
    // of the slot but within the WAL is ordinary: a slot whose last acknowledgement was lost in a
    // crash. Streaming starts at the checkpoint, and whatever the server sends at or below it is
    // skipped.)
    if (state.checkpoint && identity.xlogpos.is_valid() && *state.checkpoint > identity.xlogpos) {
      halt h = to_halt(halt_reason::checkpoint_ahead_of_server);
      h.at = *state.checkpoint;
      return state.stop_for(std::move(h));
    }
    if (state.checkpoint) state.resumed_from.store(state.checkpoint->value());
    if (!state.checkpoint && state.start_as<start::resume_only>() != nullptr)
      return state.stop_for(halt_reason::go_forward_required);
    // A snapshot is taken with the slot's creation; a slot that exists without a checkpoint is what an
    // interrupted snapshot leaves behind, and its exported snapshot is gone.
    const bool take_snapshot = !state.checkpoint && state.start_as<start::point_in_time_snapshot>() != nullptr;
    if (take_snapshot && slot_exists) return state.stop_for(halt_reason::snapshot_incomplete);
    return take_snapshot;
  }

  // The position the slot streams from, handed to a sink that asks for it (and may refuse it): the
  // slot's acknowledged position or the checkpoint, whichever is later, or where a slot created now
  // begins.
  auto hand_slot_origin(const std::optional<slot_facts>& slot) -> result<void> {
    if constexpr (has_handle_slot_origin<Sink>) {
      if (!s.slot_created) {
        if (!slot || !slot->confirmed_flush) return state.stop_for(halt_reason::slot_origin_unavailable);
        s.origin = std::max(*slot->confirmed_flush, state.checkpoint.value_or(lsn{}));
      }
      if (!s.origin || !s.origin->is_valid()) return state.stop_for(halt_reason::slot_origin_unavailable);
      const slot_origin_context ctx{state.options.slot, !s.slot_created};
      if (auto verdict = state.call_user([&] { return s.sink.handle_slot_origin(*s.origin, ctx); }); !verdict) {
        return state.stop_for(halt_reason::slot_origin_rejected, verdict.error());
      }
    } else {
      static_cast<void>(slot);
    }
    return {};
  }

  // What the publications and the decoder's catalog say before anything streams: every requested
  // publication exists (a missing one would silently narrow the stream), what they publish (the
  // periodic check's baseline, or, on a reconnect, the check itself), and the decoder's own table
  // set. errc::halted once it halted; another error is the server's.
  template <server_session Server>
  auto check_server_side(Server& server) -> result<void> {
    if constexpr (D::capabilities.publications) {
      auto found = server.publications_exist(plugin().publications);
      if (!found) return unexpected(found.error());
      if (!*found) return state.stop_for(to_halt(halt_reason::publication_missing));
      // A table removed from a publication (or a new row filter, a column list) vanishes from the
      // stream without a word. A reconnect compares with what the first session began with, and
      // halts as the periodic check would.
      if (state.options.publication_check_interval.count() > 0) {
        if (s.publications) {
          auto changed = server.check_publication_shapes(plugin().publications, *s.publications);
          if (!changed) return unexpected(changed.error());
          if (*changed) return state.stop_for(std::move(**changed));
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
      auto prepared = decoder.prepare(decoder_query(server.sql()));
      if (!prepared) return unexpected(prepared.error());
      if (*prepared) return state.stop_for(std::move(**prepared));
    }
    return {};
  }

  // Creates the slot (persistent: an error on this connection would drop a temporary one), after the
  // start-mode guard, so that a refused start leaves nothing behind; and reads the snapshot it
  // exports when the start mode asks for one.
  template <server_session Server>
  auto create_slot(Server& server, bool take_snapshot) -> result<void> {
    if (!state.options.create_slot) return state.stop_for(to_halt(halt_reason::slot_missing));
    if (state.options.failover && state.checkpoint) {
      // A failover slot that should be here is not: most likely a promoted standby that had not
      // synced it. A new one would begin at the present, after a gap nobody would see.
      return state.stop_for(to_halt(halt_reason::failover_slot_missing));
    }
    if (state.checkpoint && !has_handle_slot_origin<Sink>) {
      // The same for any slot: the checkpoint belongs to a slot that is gone (dropped, or this is
      // another server or slot name). A sink that judges origins is asked instead.
      return state.stop_for(to_halt(halt_reason::slot_dropped));
    }
    auto created = server.create_slot(slot_request{.name = state.options.slot,
                                                   .plugin = D::plugin_name,
                                                   .export_snapshot = take_snapshot,
                                                   .failover = state.options.failover,
                                                   .two_phase = plugin().two_phase});
    if (!created) {
      const std::string sqlstate{server.last_sqlstate()};
      if (plugin_missing(sqlstate)) {
        halt h = to_halt(halt_reason::decoder_unsupported_on_server, created.error());
        h.sqlstate = sqlstate;
        return state.stop_for(std::move(h));
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
      if (!read_snapshot(exported)) return fail(state.halted ? errc::halted : errc::cancelled);
    }
    return {};
  }

  // START_REPLICATION with what the decoder asks of this server (pgoutput: the highest protocol the
  // server speaks, or the one asked for).
  template <server_session Server>
  auto start_streaming(Server& server) -> result<typename Server::stream_type> {
    const decoder_context ctx{s.server_version};
    auto request = decoder.negotiate(ctx);
    if (!request) return state.stop_for(to_halt(halt_reason::config_invalid, request.error()));
    s.protocol = request->protocol.version;
    s.streaming = request->protocol.streaming;
    // The incremental snapshot's watermarks are logical messages (only pgoutput serves that mode).
    if (state.start_as<start::incremental_snapshot>() != nullptr && !plugin().messages) {
      request->options += ", messages 'true'";
    }
    // The server starts after the greater of this position and the slot's acknowledged one. The
    // checkpoint saves re-sending what the sink has; with two-phase decoding it may lie past the
    // PREPARE of a transaction still outstanding, whose changes would then never be sent again, so
    // the slot's own position (never past such a PREPARE, see applier::advance) is used instead.
    const lsn start_at = plugin().two_phase ? lsn{} : state.checkpoint.value_or(lsn{});
    decoder.begin_session(ctx);
    const pq::stream_options stream_options{
        .receive_low_water_bytes = static_cast<int>(state.options.receive_low_water_bytes),
        .gather_delay = state.options.receive_gather_delay};
    auto started =
        std::move(server).start(stream_request{state.options.slot, start_at, request->options}, stream_options);
    if (started) return started;
    // A failed start leaves the connection as it was. A plugin that cannot be loaded will not load
    // on retry.
    const std::string sqlstate{server.last_sqlstate()};
    if (plugin_missing(sqlstate)) {
      halt h = to_halt(halt_reason::decoder_unsupported_on_server, started.error());
      h.sqlstate = sqlstate;
      return state.stop_for(std::move(h));
    }
    if (request->fallback_options && started.error() == errc::server_error) {
      // The probe: the same START without the options some builds of the plugin do not know. If
      // that one starts, the plugin refused what was asked for, and a retry would be refused too.
      auto probe =
          std::move(server).start(stream_request{state.options.slot, start_at, *request->fallback_options}, {});
      if (probe) {
        static_cast<void>(probe->finish());  // nothing was acknowledged: the slot stays where it was
        halt h = to_halt(halt_reason::decoder_option_unsupported, started.error());
        h.sqlstate = sqlstate;
        return state.stop_for(std::move(h));
      }
    }
    s.sqlstate = std::string{server.last_sqlstate()};
    return unexpected(started.error());
  }
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_CONNECT_CHAIN_HPP
