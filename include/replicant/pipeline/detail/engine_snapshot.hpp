// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_ENGINE_SNAPSHOT_HPP
#define REPLICANT_PIPELINE_DETAIL_ENGINE_SNAPSHOT_HPP

// The incremental snapshot, as the engine runs it: the connect chain prepares it, a session starts
// and ends its reader, and the session's delivery shows it every transaction and schema change
// (through the pipeline's hooks). It reaches the engine through its state and the session or
// delivery it is handed, and keeps what the snapshot carries across sessions.
//
// The parts:
// - the connect chain reads the progress (the sink's `snapshot_progress()`, or the store's), opens
//   the reader's connection and lists the tables; with no progress yet it *arms* the snapshot: one
//   empty `handle_snapshot` batch per table with `first_for_table`, before anything else is
//   delivered, so a sink clears what it holds while no live change has reached it yet;
// - the session starts the reader thread (detail::incremental_worker) and a reconciler
//   (detail::incremental_reconciler) with a fresh nonce;
// - the delivery shows every committed transaction to the reconciler. Watermark transactions are not
//   delivered; at a high watermark the chunk is reconciled and delivered, after everything that
//   committed before it, through `handle_snapshot` with its progress token. A contended chunk is
//   discarded and read again, three times at most, then the pipeline halts
//   `snapshot_table_contended`.
// Nothing here survives a session but the contention budget and the start time: a reconnect starts
// again from the durable progress.

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/pgoutput_reader.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/pipeline/detail/engine_session.hpp>
#include <replicant/pipeline/detail/engine_state.hpp>
#include <replicant/pipeline/options.hpp>
#include <replicant/pipeline/sink_for.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/sink/vocabulary.hpp>
#include <replicant/snapshot/batch.hpp>
#include <replicant/snapshot/incremental.hpp>
#include <replicant/snapshot/incremental_worker.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::detail {

// Contended attempts of one chunk before the pipeline halts.
inline constexpr std::uint32_t incremental_contention_budget = 3;

// The incremental snapshot of a pipeline whose checkpoint policy is @p CheckpointPolicy and whose
// sink is @p Sink (see above).
template <class CheckpointPolicy, class Sink>
class engine_snapshot {
  using session_type = engine_session<CheckpointPolicy, Sink>;

 public:
  /// The snapshot of the engine @p engine, reading the tables of @p published (pgoutput's
  /// publications; a view the pipeline's decoder keeps).
  engine_snapshot(engine_state& engine, std::span<const std::string> published)
      : state(engine), publications(published) {}

  /// Whether this session's snapshot is running (its reconciler sees the transactions).
  [[nodiscard]] auto active() const noexcept -> bool { return incremental.reconciler.has_value(); }

  // Connect-chain step: where the snapshot stands, the reader's connection and tables, and the arming
  // of a snapshot that has not begun. A transient failure returns its error (the caller reconnects);
  // a decision to stop for good sets state.halted.
  auto prepare(session_type& s) -> result<void> {
    incremental.worker.reset();
    incremental.reconciler.reset();
    const auto* mode = state.start_as<start::incremental_snapshot>();
    if (mode == nullptr) return {};
    if constexpr (!supports_incremental_snapshot<Sink, CheckpointPolicy>) {
      static_cast<void>(s);
      return state.stop_for(halt_reason::snapshot_unsupported);
    } else {
      auto progress = read_progress(s);
      if (!progress) return fail(s.adopt_halt() ? errc::halted : errc::cancelled);
      std::optional<snapshot_position> at;
      if (*progress) {
        auto decoded = decode_position(**progress);
        if (!decoded) return snapshot_halt(halt_reason::snapshot_failed, decoded.error());
        if (decoded->at == snapshot_position::phase::complete) return {};
        at = std::move(*decoded);
      }
      auto worker = open_reader(*mode);
      if (!worker) return unexpected(worker.error());
      const auto tables = (*worker)->tables();
      if (tables.empty()) return {};  // no table to read: no progress to keep either
      if (!at || at->at == snapshot_position::phase::arming) {
        auto armed = arm(s, tables);
        if (!armed) return unexpected(armed.error());
        at = std::move(*armed);
      } else {
        state.emit<telemetry::events::snapshot_resumed>(telemetry::keys::slot_name = *state.slot,
                                                        telemetry::keys::change_count = at->rows);
      }
      if (!incremental.began) incremental.began = std::chrono::steady_clock::now();
      incremental.start = std::move(*at);
      incremental.worker = std::move(*worker);
      return {};
    }
  }

  // Session start: the reconciler (a fresh nonce: watermarks of earlier runs mean nothing now) tracks
  // every table not yet done, and the reader thread starts.
  auto start() -> void {
    if (!incremental.worker) return;
    const std::uint64_t nonce = incremental_state::draw_nonce();
    incremental.reconciler.emplace(nonce);
    const auto tables = incremental.worker->tables();
    for (std::size_t i = normalize_position(incremental.start, tables).second; i < tables.size(); ++i) {
      std::vector<std::string> key;
      for (const std::size_t k : tables[i].key_columns) key.push_back(tables[i].relation->columns[k].name);
      incremental.reconciler->track(tables[i].relation->oid, std::move(key));
    }
    incremental.worker->start(incremental.start, nonce);
  }

  // Session end: the reader stops; chunks in hand are dropped (the next session reads them again).
  auto end() noexcept -> void {
    if (incremental.worker) incremental.worker->stop();
    incremental.worker.reset();
    incremental.reconciler.reset();
  }

  // Whether the reader stopped by itself. A halt goes to the delivery; otherwise the session ends and
  // the next one resumes from the durable progress.
  template <class Delivery>
  auto failed(Delivery& a) -> bool {
    if (!incremental.worker) return false;
    auto f = incremental.worker->failure();
    if (!f) return false;
    if (f->halt) {
      const auto error_class = error_class_of(f->cause);
      if (f->table) {
        state.emit<telemetry::events::snapshot_failed>(telemetry::keys::reason = f->reason,
                                                       telemetry::keys::table = *f->table,
                                                       telemetry::keys::error_class = error_class);
      } else {
        state.emit<telemetry::events::snapshot_failed>(telemetry::keys::reason = f->reason,
                                                       telemetry::keys::error_class = error_class);
      }
      halt h = to_halt(f->reason, f->cause);
      h.table = f->table;
      if (!f->sqlstate.empty()) h.sqlstate = f->sqlstate;
      a.failed = std::move(h);
    }
    return true;
  }

  // Delivery hook, for every committed transaction: the reconciler sees it first. A transaction of
  // watermarks only is not delivered (none: deliver as usual); a high watermark delivers its chunk.
  template <class Delivery>
  auto transaction(Delivery& a, transaction& t) -> std::optional<result<void>> {
    if constexpr (!supports_incremental_snapshot<Sink, CheckpointPolicy>) {
      static_cast<void>(a);
      static_cast<void>(t);
      return std::nullopt;  // never started for this sink: prepare() refuses it
    } else {
      const auto seen = incremental.reconciler->observe(t);
      if (const auto unreadable = t.read_error()) {
        halt h = to_halt(halt_reason::spill_io_failed, unreadable);
        h.at = t.commit_lsn();
        return a.stop_with(std::move(h));
      }
      if (seen.closed) {
        if (auto delivered = deliver_chunk(a, *seen.closed); !delivered) return delivered;
      }
      if (!seen.watermark_only) return std::nullopt;
      // Nothing in it for the sink: as an empty commit, a state mirror may move past it.
      const lsn end = t.end_lsn();
      a.asm_.recycle(std::move(t));
      if (kind_of<Sink>() == sink_kind::state_mirror && !a.holding()) a.advance(end);
      return result<void>{};
    }
  }

  // Delivery hook, for a schema change: a table the snapshot still reads was described anew, so the
  // reader's shape of it is stale. The session ends after this transaction; the next one lists the
  // tables again and resumes from the durable progress.
  template <class Delivery>
  auto reshaped(Delivery& a, const schema_change& c) -> void {
    if (!incremental.reconciler || !incremental.reconciler->tracking(c.relation_oid)) return;
    a.s.end_requested.store(true);
    state.wake();
  }

 private:
  engine_state& state;
  std::span<const std::string> publications;
  incremental_state incremental;

  // The snapshot's progress, kept by the checkpoint policy's delivery (the sink's, or the store's).
  // On failure the session has halted, unless stop() interrupted a store retry.
  auto read_progress(session_type& s) -> result<std::optional<std::string>> {
    if constexpr (supports_incremental_snapshot<Sink, CheckpointPolicy>) {
      auto ctx = s.context();
      return state.call_user([&] { return s.delivery.read_progress(ctx); });
    } else {
      state.halted = to_halt(halt_reason::snapshot_unsupported);
      return fail(errc::halted);
    }
  }

  // After the sink stored a chunk: the delivery writes the progress where it keeps it (a store: a
  // crash in between reads that chunk again; the sink stored it with the chunk, and does nothing).
  auto write_progress(session_type& s, std::string_view token) -> result<void> {
    if constexpr (supports_incremental_snapshot<Sink, CheckpointPolicy>) {
      auto ctx = s.context();
      return state.call_user([&] { return s.delivery.write_progress(ctx, token); });
    } else {
      static_cast<void>(s);
      static_cast<void>(token);
      return {};
    }
  }

  // The snapshot failed for good: reported as such, then the halt for @p why (with the server's
  // @p sqlstate, when it sent one).
  auto snapshot_halt(halt_reason why, std::error_code cause, std::string_view sqlstate = {})
      -> unexpected<std::error_code> {
    state.emit<telemetry::events::snapshot_failed>(telemetry::keys::reason = why,
                                                   telemetry::keys::error_class = error_class_of(cause));
    halt h = to_halt(why, cause);
    if (!sqlstate.empty()) h.sqlstate = std::string{sqlstate};
    return state.stop_for(std::move(h));
  }

  // The snapshot reader's own connection and its list of tables. A connection that could not be
  // made is retried; a publication gone, or a reader that cannot list its tables, halts.
  auto open_reader(const start::incremental_snapshot& mode) -> result<std::unique_ptr<incremental_worker>> {
    pq::connect_options copts;
    copts.timeout = state.options.connect_timeout;
    copts.cancel_fd = state.stop_fd;
    incremental_snapshot_options reading;
    reading.chunk_rows = mode.chunk_rows;
    std::string sqlstate;
    auto worker = incremental_worker::open(state.options.conninfo, copts, publications, reading,
                                           mode.max_pending_chunks, sqlstate);
    if (worker) return worker;
    const std::error_code ec = worker.error();
    if (ec == errc::cancelled || state.stopping.load()) return fail(errc::cancelled);
    if (ec == errc::connection_failed) return unexpected(ec);
    if (ec == errc::publication_missing) return state.stop_for(halt_reason::publication_missing);
    return snapshot_halt(halt_reason::snapshot_failed, ec, sqlstate);
  }

  // Arming a snapshot that has not begun: each table cleared (an empty first batch) before the
  // stream delivers anything, then the progress stored. A crash midway arms again: nothing else has
  // been delivered yet. @return the position the reading starts from.
  auto arm(session_type& s, std::span<const incremental_table> tables) -> result<snapshot_position>
    requires supports_incremental_snapshot<Sink, CheckpointPolicy>
  {
    const std::optional<lsn> from = s.slot_created ? s.origin : state.checkpoint;
    if (from) {
      state.emit<telemetry::events::snapshot_started>(telemetry::keys::commit_lsn = *from);
    } else {
      state.emit<telemetry::events::snapshot_started>();
    }
    const snapshot_position first{snapshot_position::phase::table,
                                  tables.front().relation->schema,
                                  tables.front().relation->table,
                                  false,
                                  {},
                                  0,
                                  0};
    const std::string armed = encode_position(first);
    const std::string arming = encode_position({snapshot_position::phase::arming, {}, {}, false, {}, 0, 0});
    for (std::size_t i = 0; i < tables.size(); ++i) {
      snapshot_context ctx;
      ctx.first_for_table = true;
      ctx.table_index = i;
      ctx.table_count = tables.size();
      ctx.progress = i + 1 == tables.size() ? std::string_view{armed} : std::string_view{arming};
      const snapshot_batch batch{*tables[i].relation, {}};
      auto stored = s.context().call_sink([&] { return s.sink.handle_snapshot(batch, std::as_const(ctx)); });
      if (!stored) return snapshot_halt(halt_reason::sink_failed, stored.error());
    }
    if (auto written = write_progress(s, armed); !written) return fail(s.adopt_halt() ? errc::halted : errc::cancelled);
    return first;
  }

  // A high watermark arrived: reconcile the chunk, then deliver it or discard it for contention.
  template <class Delivery>
  auto deliver_chunk(Delivery& a, const snapshot_window& w) -> result<void> {
    if constexpr (!supports_incremental_snapshot<Sink, CheckpointPolicy>) {
      static_cast<void>(a);
      static_cast<void>(w);
      return {};
    } else {
      auto chunk = incremental.worker->take(w.epoch, w.seq);
      if (!chunk) return {};  // dropped by a rewind: its watermarks are stale
      // "Touched heavily": more than half a full chunk's rows changed while it was open.
      const std::size_t drop_cap =
          std::max<std::size_t>(1, state.start_as<start::incremental_snapshot>()->chunk_rows / 2);
      const auto outcome = incremental.reconciler->reconcile(w, *chunk, drop_cap);
      if (outcome.contended) return chunk_contended(a, w, *chunk);
      incremental.contended_at.clear();
      incremental.contended = 0;
      // Whatever committed before the high watermark reaches the sink before the chunk: a held batch
      // could otherwise overwrite newer chunk rows with older values.
      if (auto flushed = a.flush(); !flushed) return flushed;
      if (a.failed) return fail(errc::halted);
      return hand_chunk(a, w, *chunk, outcome.kept);
    }
  }

  // The chunk changed too much while it was read: it is read again, within a budget that is the
  // chunk's across reconnects (which re-read it without spending any); past it, the snapshot halts.
  template <class Delivery>
  auto chunk_contended(Delivery& a, const snapshot_window& w, const snapshot_chunk& chunk) -> result<void> {
    const table_name table{chunk.relation->schema, chunk.relation->table};
    std::string at = encode_position(chunk.start);
    if (incremental.contended_at != at) {
      incremental.contended_at = std::move(at);
      incremental.contended = 0;
    }
    ++incremental.contended;
    if (incremental.contended >= incremental_contention_budget) {
      state.emit<telemetry::events::snapshot_failed>(telemetry::keys::reason = halt_reason::snapshot_table_contended,
                                                     telemetry::keys::table = table);
      halt h = to_halt(halt_reason::snapshot_table_contended);
      h.table = table;
      h.attempts = incremental.contended;
      h.at = w.high;
      return a.stop_with(std::move(h));
    }
    state.emit<telemetry::events::snapshot_chunk_retried>(
        telemetry::keys::table = table, telemetry::keys::reason = halt_reason::snapshot_table_contended,
        telemetry::keys::attempt = incremental.contended);
    incremental.worker->rewind(chunk.start, incremental.reconciler->rewind());
    return {};
  }

  // The @p kept rows of @p chunk the reconciler kept, as changes; halts (snapshot_failed) on a row
  // that cannot be read back.
  template <class Delivery>
  auto kept_rows(Delivery& a, const snapshot_chunk& chunk, std::size_t kept) -> result<std::vector<change>> {
    std::vector<change> rows;
    rows.reserve(kept);
    std::size_t begin = 0;
    for (std::size_t i = 0; i < chunk.rows.rows(); ++i) {
      const std::size_t end = chunk.rows.row_ends[i];
      if (chunk.keep[i]) {
        const auto tuple =
            pgoutput::parse_tuple_data(std::span<const std::byte>{chunk.rows.tuples.data() + begin, end - begin});
        if (!tuple) {
          halt h = to_halt(halt_reason::snapshot_failed, tuple.error());
          h.table = table_name{chunk.relation->schema, chunk.relation->table};
          return unexpected(a.stop_with(std::move(h)).error());
        }
        rows.emplace_back(change_op::snapshot, *chunk.relation, *tuple);
      }
      begin = end;
    }
    return rows;
  }

  // Hands the reconciled chunk to the sink with its progress token, then stores the progress: the
  // sink's failure halts sink_failed; a progress write that stop() interrupted leaves the chunk to
  // be read again.
  template <class Delivery>
  auto hand_chunk(Delivery& a, const snapshot_window& w, const snapshot_chunk& chunk, std::size_t kept) -> result<void>
    requires supports_incremental_snapshot<Sink, CheckpointPolicy>
  {
    auto rows = kept_rows(a, chunk, kept);
    if (!rows) return unexpected(rows.error());
    const table_name table{chunk.relation->schema, chunk.relation->table};
    const std::string token = encode_position(chunk.end);
    snapshot_context ctx;
    ctx.consistent_point = w.high;
    ctx.first_for_table = !chunk.keyed;  // a table read whole replaces what the sink holds of it
    ctx.last_for_table = chunk.rows.last_for_table;
    ctx.table_index = chunk.table_index;
    ctx.table_count = chunk.table_count;
    ctx.table_rows_before = chunk.start.table_rows;
    ctx.rows_before = chunk.start.rows;
    ctx.progress = token;
    ctx.complete = chunk.end.at == snapshot_position::phase::complete;
    const snapshot_batch batch{*chunk.relation, *rows};
    const auto started = std::chrono::steady_clock::now();
    auto stored = a.ctx.call_sink([&] { return a.s.sink.handle_snapshot(batch, std::as_const(ctx)); });
    if (!stored) {
      state.emit<telemetry::events::snapshot_failed>(telemetry::keys::reason = halt_reason::sink_failed,
                                                     telemetry::keys::table = table,
                                                     telemetry::keys::error_class = errc::sink_failed);
      halt h = to_halt(halt_reason::sink_failed, stored.error());
      h.at = w.high;
      h.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started);
      h.table = table;
      return a.stop_with(std::move(h));
    }
    if (auto written = write_progress(a.s, token); !written) {
      if (!a.failed) return {};  // stop() interrupted the retries: the chunk is read again next time
      return fail(errc::halted);
    }
    state.emit<telemetry::events::snapshot_chunk_completed>(telemetry::keys::table = table,
                                                            telemetry::keys::change_count = rows->size());
    if (ctx.last_for_table) {
      state.emit<telemetry::events::snapshot_table_completed>(
          telemetry::keys::table = table, telemetry::keys::change_count = chunk.start.table_rows + chunk.rows.rows());
      incremental.reconciler->untrack(chunk.relation->oid);
    }
    if (ctx.complete) {
      state.emit<telemetry::events::snapshot_completed>(
          telemetry::keys::duration = std::chrono::steady_clock::now() - incremental.began.value_or(started),
          telemetry::keys::commit_lsn = w.high, telemetry::keys::change_count = chunk.end.rows);
    }
    return {};
  }
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_ENGINE_SNAPSHOT_HPP
