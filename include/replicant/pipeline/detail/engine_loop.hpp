// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_ENGINE_LOOP_HPP
#define REPLICANT_PIPELINE_DETAIL_ENGINE_LOOP_HPP

// The session loop: one thread does everything of a streaming session. It waits for the socket,
// reads every complete CopyData available, and applies the frames in order (decode, assemble,
// deliver through the checkpoint policy: detail/engine_delivery.hpp), then reports the durable
// position. There is no queue and no second wake-up per transaction; while the sink runs nothing
// is read, so TCP holds the walsender back for free. The keepalive guard
// (detail/keepalive_guard.hpp) sends status updates only while a call outlasts the status interval,
// so that a slow sink or store never lets wal_sender_timeout fire. The checks beside the stream
// (publications, WAL lag, the walsender's sent position, heartbeats) go through a server_probe, on
// timers only. It reaches the engine through its delivery: the session, the state, the hooks.

#include <replicant/assembler/assembler.hpp>
#include <replicant/core/detail/fault_point.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/pipeline/detail/engine_state.hpp>
#include <replicant/pipeline/detail/keepalive_guard.hpp>
#include <replicant/pipeline/detail/side_checks.hpp>
#include <replicant/pipeline/detail/wal_lag_watch.hpp>
#include <replicant/pipeline/server_probe.hpp>
#include <replicant/pipeline/server_stream.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/telemetry/telemetry.hpp>
#include <replicant/wire/framing.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace replicant::detail {

// The halt for an error a decoder's translation (or the assembler behind it) returned: the
// assembler's spill faults have halts of their own, and so do a decoder's own findings (a commit
// without its LSN, a protocol the plugin announced that the decoder does not speak); an
// unsupported server encoding means the server cannot run this decoder; anything else is bad input.
inline auto halt_for_translation(std::error_code ec) noexcept -> halt_reason {
  if (ec == errc::spill_exhausted) return halt_reason::spill_exhausted;
  if (ec == errc::io_failed) return halt_reason::spill_io_failed;
  if (ec == errc::lsn_missing) return halt_reason::decoder_lsn_missing;
  if (ec == errc::protocol_unsupported) return halt_reason::decoder_protocol_unsupported;
  if (ec == errc::unsupported_server) return halt_reason::decoder_unsupported_on_server;
  return halt_reason::decode_failure;
}

// The session loop of one streaming session (see above), made and run by pipeline::stream.
template <class D, class Delivery, server_stream Stream, server_probe Probe>
class engine_loop {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr bool may_idle_advance = kind_of<typename Delivery::sink_type>() == sink_kind::state_mirror;
  static_assert(!has_recheck<D> || catalog_probe<Probe>,
                "replicant: a Decoder that rechecks the catalog while it streams needs a probe that runs its queries "
                "(a model of catalog_probe)");

  /// The loop of delivery @p app's session, over @p st, with @p translator decoding and the checks
  /// beside the stream on @p pr (their failures in a row counted in @p check_runs).
  engine_loop(D& translator, side_checks& check_runs, Delivery& app, Stream& st, Probe& pr)
      : decoder(translator),
        checks(check_runs),
        a(app),
        s(app.s),
        state(app.state),
        stream(st),
        probe(pr),
        received(lsn{app.state.durable.load()}) {
    const auto now = state.clock.now();
    next_publication_check = now + state.options.publication_check_interval;
    next_heartbeat = now + state.options.heartbeat_interval;
    next_recheck = now;
    if constexpr (has_recheck<D>) next_recheck += decoder.recheck_interval();
  }

 private:
  D& decoder;
  side_checks& checks;
  Delivery& a;
  typename Delivery::session_type& s;
  engine_state& state;
  Stream& stream;
  Probe& probe;  // the side connection: the checks beside the stream
  stream_guard_state guard_state{};
  lsn received;  // the highest position the server said it sent
  wal_lag_watch lag_watch{static_cast<std::int64_t>(state.options.max_wal_lag)};
  lsn reported{};
  lsn keepalive_end{};  // the lower of the last two keepalives' positions (for the idle advance)
  lsn previous_keepalive_end{};
  lsn server_sent{};      // what the server's statistics say its walsender sent (the idle advance's second source)
  bool reply_now = true;  // report our position at once
  bool maybe_buffered = false;
  bool pinged = false;
  // At most this much of the stream is taken in before it is applied, whatever the memory budget
  // leaves. libpq allocates every frame it hands over, and the frames of one turn are freed only
  // after the turn: a batch of a few frames keeps those allocations within malloc's per-thread
  // cache, where a batch of a whole socket read (hundreds of frames of a few sizes) ran past it into
  // malloc's slow path. Measured, callgrind, 20,000 single-row transactions: 1 KiB ran 1.5 % fewer
  // instructions than no cap, 4 KiB 0.5 %; a turn costs far less than the misses it saves.
  static constexpr std::size_t receive_batch_bytes = 1024;
  clock::time_point next_status = state.clock.now();
  clock::time_point last_status = state.clock.now() - state.options.acknowledge_delay;  // the first is not held back
  clock::time_point last_heard = state.clock.now();
  clock::time_point next_publication_check;
  clock::time_point next_heartbeat;
  clock::time_point next_recheck;
  clock::time_point next_sent_check = state.clock.now();
  clock::time_point next_lag_check = state.clock.now();
  bool lag_due = false;  // the WAL-lag check waits for the end of the transaction being received
  // The clock, read once a turn and again after whatever waits on the server or the sink (a side
  // query, a batch handed over): not on every frame, where its cost would be the receive path's.
  clock::time_point now_ = state.clock.now();
  // A data frame received, with its header read once (the payload views the frame's buffer, which
  // moving the frame does not move).
  struct received_frame {
    typename Stream::frame_type bytes;
    std::optional<xlog_data> header;  // none: a header that does not parse (a decode failure)
  };
  std::vector<received_frame> frames{};

 public:
  // Streams until the session ends: stop(), a halt, or the connection's own end (s.error).
  auto run() -> void {
    {
      std::optional<keepalive_guard<Stream>> guard;
      if constexpr (on_real_time<Stream>) {
        guard.emplace(stream, guard_state, state.durable, state.options.status_interval, state.stop_fd,
                      [this] { a.hooks.interrupt_overdue_store_write(); });
      }
      while (turn()) {
      }
    }
    if (!s.error && !s.too_slow_lag) {
      // A clean end (stop or halt): acknowledge what is durable, then end the copy so the walsender
      // exits at once.
      static_cast<void>(refresh());
      static_cast<void>(report(true));
      const std::scoped_lock lock{guard_state.stream_mutex};
      static_cast<void>(stream.finish());
    }
  }

 private:
  [[nodiscard]] auto ended() const noexcept -> bool { return a.failed.has_value() || s.end_requested.load(); }
  auto end() noexcept -> void { s.end_requested.store(true); }

  // One turn: a stop, the timers, a status update, then a wait for input and what it brings.
  // False once the session is over.
  auto turn() -> bool {
    honour_stop();
    static_cast<void>(refresh());
    if (!ended()) timers();
    if (ended()) return false;
    if (auto r = report(reply_now); !r) {
      s.error = r.error();
      return false;
    }
    reply_now = false;
    // Liveness: a server that sends nothing at all (not even a keepalive) for receive_timeout is
    // gone, or the network in between is; halfway there it is asked for a reply.
    if (state.options.receive_timeout.count() > 0 && now_ - last_heard > state.options.receive_timeout) {
      s.error = make_error_code(errc::connection_failed);  // reconnect
      return false;
    }
    const std::size_t held = a.resident_bytes();
    if (held >= state.options.max_inflight_bytes) return overloaded();
    if (!maybe_buffered && !guard_state.consumed_input.exchange(false)) {
      auto w = stream.wait(state.wake_fd, wait_time());
      if (!w) {
        s.error = w.error();
        return false;
      }
      if (*w == pq::wait_outcome::woken) {
        state.take_wake();
        return true;
      }
      if (*w == pq::wait_outcome::timed_out && state.options.receive_low_water_bytes == 0) return true;
    }
    if (!receive(std::min(receive_batch_bytes, state.options.max_inflight_bytes - held))) return false;
    apply_frames();
    check_inflight_lag();
    return true;
  }

  // On stop(), hand over what is held and finish the delivery in hand, then end the session, whose
  // last status update acknowledges it. Checked before every frame, so that a stop does not wait
  // for a whole batch of received frames to be applied.
  auto honour_stop() -> void {
    if (state.stopping.load() && !s.end_requested.load()) {
      if (!a.failed) static_cast<void>(a.flush());
      // A transaction past the end position arrived: every one committed at or before it is
      // durable once nothing is held, so the end itself is acknowledged. The server sends the
      // later one again, since it committed after what is acknowledged.
      if (a.past_end && !a.failed && !a.holding()) a.advance(*state.options.end_lsn);
      end();
    }
  }

  // Runs the heartbeat statement on the probe; a failure is left to the next beat (the stream
  // itself reports what is wrong with the server), and so is a probe that cannot be opened now.
  auto heartbeat() -> void {
    if (!probe.open()) return;
    auto beat = probe.heartbeat(state.options.heartbeat_statement);
    if (!beat) {
      // A heartbeat that failed is reported; one that stop() cancelled did not fail.
      if (beat.error() != errc::cancelled) {
        state.emit<telemetry::events::connection_heartbeat>(telemetry::keys::error_class =
                                                                error_class_of(beat.error()));
      }
      return;
    }
    if (*beat) {
      state.emit<telemetry::events::connection_heartbeat>(telemetry::keys::commit_lsn = **beat);
    } else {
      state.emit<telemetry::events::connection_heartbeat>();
    }
  }

  // Opens the probe when needed, then asks it @p query: the error when it cannot be opened now.
  template <class Query>
  auto on_probe(Query&& query) -> decltype(std::forward<Query>(query)()) {
    if (auto opened = probe.open(); !opened) return unexpected(opened.error());
    return std::forward<Query>(query)();
  }

  // Reads the clock anew (after something that took time) and returns what it read.
  auto refresh() -> clock::time_point { return now_ = state.clock.now(); }

  // Everything the session does on time rather than on input.
  auto timers() -> void {
    const auto now = now_;
    if (const auto due = a.due(); due && now >= *due) {
      static_cast<void>(a.tick(now));
      static_cast<void>(refresh());
      if (a.failed) return;
    }
    // The incremental snapshot's reader stopped by itself: a halt, or a new session to resume.
    if (a.hooks.snapshot_failed(a)) return end();
    if (state.options.publication_check_interval.count() > 0 && D::capabilities.publications &&
        now >= next_publication_check) {
      check_publications();
      next_publication_check = refresh() + state.options.publication_check_interval;
      if (ended()) return;
    }
    if constexpr (has_recheck<D>) {
      const auto every = decoder.recheck_interval();
      if (every.count() > 0 && now >= next_recheck) {
        // When it cannot run now, it is tried again at the next interval.
        next_recheck = now_ + every;
        static_cast<void>(recheck_decoder());
        static_cast<void>(refresh());
        if (ended()) return;
      }
    }
    if (state.options.heartbeat_interval.count() > 0 && now >= next_heartbeat) {
      heartbeat();
      next_heartbeat = refresh() + state.options.heartbeat_interval;
    }
    if (may_idle_advance && now >= next_sent_check) {
      // The idle advance's second source besides the keepalives, which travel in the stream and
      // which a damaged network could alter: a slot is never advanced past a position both name.
      // Nothing new when it cannot be read now.
      if (probe.open()) {
        if (const auto sent = probe.walsender_sent(s.walsender_pid); sent && *sent) server_sent = **sent;
      }
      next_sent_check = refresh() + state.options.status_interval;
    }
    if (state.options.max_wal_lag > 0 && now >= next_lag_check) lag_due = true;
    lag_between_transactions();
  }

  // The WAL-lag check, once due, at the first moment between two transactions: now, or after the
  // frame that completes the transaction being received (apply_frames), since a read that ends
  // inside one (which, under a steady backlog, is most reads) would otherwise put it off again and
  // again.
  auto lag_between_transactions() -> void {
    if (!lag_due || !a.asm_.idle()) return;
    lag_due = false;
    check_lag();
    next_lag_check =
        refresh() + std::min<std::chrono::milliseconds>(state.options.status_interval, std::chrono::seconds(1));
  }

  // The in-flight lag bound (pipeline_options::max_inflight_lag, the reference's): what was handed
  // to the checkpoint policy and is not durable yet, measured on the stream itself after every
  // read, so that it needs no second connection and cannot fail open. Crossing it halts at once:
  // a policy that holds that much (a confirmation that does not come) is what it is for. Measured
  // from the first transaction of the session before anything is acknowledged, since a run that
  // starts without a checkpoint has no durable position to measure from.
  auto check_inflight_lag() -> void {
    const auto bound = state.options.max_inflight_lag;
    if (bound == 0 || a.failed || !a.first_handed_over.is_valid()) return;
    const lsn durable = std::max(state.durable_lsn(), a.first_handed_over);
    if (a.handed_over <= durable) return;
    const auto lag = distance(durable, a.handed_over);
    if (static_cast<std::uint64_t>(lag) <= bound) return;
    // A halt of the delivery's, not a slow stream's: what the policy holds is not waited for (a
    // stalled confirmation would never come), and the durable position is still acknowledged.
    halt h = to_halt(halt_reason::sink_too_slow);
    h.at = a.handed_over;
    h.lag_bytes = lag;
    a.failed = std::move(h);
    end();
  }

  // The WAL-lag bound behind the server (pipeline_options::max_wal_lag, judged by
  // wal_lag_watch). Measured only while the sink is what holds the stream back (input
  // waits unread), so that an idle or filtered stream, which has nothing waiting, never trips it on
  // a busy server; and only between transactions (lag_between_transactions), because the WAL of
  // one being assembled is the spill policy's to bound, not lag. A probe that failed is counted
  // (side_check_failed) and waits for the next interval, as the other checks do.
  auto check_lag() -> void {
    if (!stream.input_waiting()) {
      lag_watch.caught_up();
      return;
    }
    // Where the server's WAL is now (the probe's answer): how far a paced stream is behind.
    const auto at = on_probe([&] { return probe.wal_position(); });
    if (!at) return side_check_failed(side_checks::check::wal_lag, at.error());
    checks.succeeded(side_checks::check::wal_lag);
    const lsn durable{state.durable.load()};
    const auto lag = distance(durable, *at);
    switch (lag_watch.measure(lag)) {
      case wal_lag_watch::verdict::fine: break;
      case wal_lag_watch::verdict::lagging:
        state.emit<telemetry::events::sink_lagging>(telemetry::keys::lag_bytes = lag, telemetry::keys::lag = lag,
                                                    telemetry::keys::commit_lsn = durable);
        break;
      case wal_lag_watch::verdict::too_slow:
        s.too_slow_lag = lag;
        end();
        break;
    }
  }

  // A check beside the stream could not be made (its connection refused, its query failed): said
  // every time, and a run of them as long as max_side_check_failures halts, so that a blind check
  // never passes for one that found nothing. A stop's cancellation is not a failure.
  auto side_check_failed(side_checks::check c, std::error_code ec) -> void {
    if (ec == errc::cancelled || state.stopping.load()) return;
    const auto run = checks.failed(c);
    state.emit<telemetry::events::connection_side_check_failed>(
        telemetry::keys::kind =
            c == side_checks::check::wal_lag ? telemetry::kind::wal_lag : telemetry::kind::publications,
        telemetry::keys::error_class = error_class_of(ec), telemetry::keys::attempt = run,
        telemetry::keys::max_retries = state.options.max_side_check_failures);
    if (checks.exhausted(run)) a.failed = to_halt(halt_reason::side_check_failed, ec);
  }

  // The periodic publication check (on its own connection). PostgreSQL 18 skips a dropped
  // publication with a warning instead of ending the stream, and a table removed from one (or a
  // new row filter, a column list) vanishes from the stream without a word. A check that cannot be
  // made is counted, never taken for one that found nothing.
  auto check_publications() -> void {
    const auto check = side_checks::check::publications;
    const auto names = decoder.settings().publications;
    auto exist = on_probe([&] { return probe.publications_exist(names); });
    if (!exist) return side_check_failed(check, exist.error());
    if (!*exist) {
      state.emit<telemetry::events::connection_slot_invalidated>(
          telemetry::keys::slot_name = *state.slot, telemetry::keys::reason = halt_reason::publication_missing);
      a.failed = to_halt(halt_reason::publication_missing);
      return;
    }
    if (s.publications) {
      auto changed = probe.check_publication_shapes(names, *s.publications);
      if (!changed) return side_check_failed(check, changed.error());
      if (*changed) {
        state.emit<telemetry::events::connection_slot_invalidated>(
            telemetry::keys::slot_name = *state.slot, telemetry::keys::reason = halt_reason::publication_changed);
        a.failed = std::move(**changed);
        return;
      }
    }
    checks.succeeded(check);
  }

  // The decoder's own check on the ordinary connection (wal2json: the catalog, for a dropped column
  // no change shows; pglogical: the types of a table described again). What it describes anew goes
  // through the assembler, so a schema change is reported (and halts, or is accepted) as one from
  // the stream would be. False when it could not run now (no probe, a failed query).
  auto recheck_decoder() -> bool {
    if constexpr (has_recheck<D>) {
      if (!probe.open()) return false;
      std::error_code refused;
      auto checked = decoder.recheck(probe.catalog(), [&](std::span<const std::byte> m) -> result<void> {
        auto pushed = a.asm_.push(m, a);
        if (!pushed) refused = pushed.error();
        return pushed;
      });
      if (!a.failed && refused) a.failed = to_halt(halt_for_translation(refused), refused);
      if (!a.failed && checked && *checked) {
        if ((*checked)->reason == halt_reason::decoder_table_missing) {
          state.emit<telemetry::events::connection_slot_invalidated>(telemetry::keys::slot_name = *state.slot,
                                                                     telemetry::keys::reason = (*checked)->reason);
        }
        a.failed = std::move(**checked);
      }
      if (a.failed) return true;
      if (!checked) {
        probe.close();  // a failed query is left to the next check
        return false;
      }
    }
    return true;
  }

  // How long to wait for input: until the next status update or timer, at most 100 ms.
  [[nodiscard]] auto wait_time() const -> std::chrono::milliseconds {
    const auto now = now_;
    auto until = std::min(next_status, now + std::chrono::milliseconds(100));
    // A durable position not yet acknowledged is reported once its delay has passed.
    if (lsn{state.durable.load()} > reported) until = std::min(until, last_status + state.options.acknowledge_delay);
    if (const auto due = a.due()) until = std::min(until, *due);
    auto timeout = std::max(std::chrono::ceil<std::chrono::milliseconds>(until - now), std::chrono::milliseconds(0));
    // With a low-water mark the socket is reported readable only once that much has arrived: look
    // anyway after the delay, so a small message (or a keepalive) waits no longer.
    if (state.options.receive_low_water_bytes > 0) timeout = std::min(timeout, state.options.receive_max_delay);
    if (state.options.receive_timeout.count() > 0) timeout = std::min(timeout, state.options.receive_timeout / 4);
    return timeout;
  }

  // The budget is full with what nothing but a timer can hand over: wait for it without reading,
  // so that TCP holds the walsender back (the lag bound, check_lag, says how long). Silence is
  // ours then.
  auto overloaded() -> bool {
    last_heard = now_;
    pinged = false;
    state.wait_for_wake(wait_time());
    return true;
  }

  // Reads every complete message available, within @p room bytes; keepalives are taken in at once,
  // data frames kept for apply_frames(). False when the connection ended.
  auto receive(std::size_t room) -> bool {
    frames.clear();
    bool bad_frame = false;
    bool heard = false;  // a frame arrived: the server is alive now (the clock read once, after the read)
    result<std::size_t> got = 0U;
    {
      const std::scoped_lock lock{guard_state.stream_mutex};
      got = stream.receive(
          [&](typename Stream::frame_type&& f) {
            heard = true;
            if (!take(std::move(f))) bad_frame = true;
          },
          room);
      if (!got) s.sqlstate = std::string{stream.last_sqlstate()};
    }
    if (heard) {
      last_heard = state.clock.now();
      pinged = false;
    }
    if (!got) {
      s.error = got.error();
      return false;
    }
    if (bad_frame) {
      s.error = make_error_code(errc::protocol_violation);
      return false;
    }
    maybe_buffered = *got >= room;
    guard_state.received.store(received.value());
    return true;
  }

  // One received frame: a keepalive is taken in, data is kept. False for anything else.
  auto take(typename Stream::frame_type&& f) -> bool {
    const auto bytes = f.bytes();
    if (bytes.empty()) return false;
    if (static_cast<char>(bytes[0]) == 'k') {
      auto k = parse_copy_data(bytes);
      const auto* ka = k ? std::get_if<primary_keepalive>(&*k) : nullptr;
      if (ka == nullptr) return false;
      received = std::max(received, ka->wal_end);
      // The idle advance trusts the lower of the last two positions, so that one damaged keepalive
      // cannot move the slot past WAL that was never sent.
      keepalive_end = std::min(ka->wal_end, previous_keepalive_end);
      previous_keepalive_end = ka->wal_end;
      reply_now = reply_now || ka->reply_requested;
      s.frame_received.store(true);
      return true;
    }
    if (static_cast<char>(bytes[0]) != 'w' || bytes.size() < 25) return false;
    auto x = parse_copy_data(bytes);
    const auto* w = x ? std::get_if<xlog_data>(&*x) : nullptr;
    if (w != nullptr) received = std::max(received, w->wal_end);
    s.frame_received.store(true);
    frames.push_back({std::move(f), w != nullptr ? std::optional<xlog_data>{*w} : std::nullopt});
    return true;
  }

  // Applies the frames received, in order, until the session ends. What was not applied is
  // received again by the next session.
  auto apply_frames() -> void {
    if (frames.empty()) return;  // bytes of a message not yet complete: nothing heard yet
    for (const auto& f : frames) {
      honour_stop();
      if (ended()) {
        // Frames left unapplied: a keepalive taken in with them may lie past them, so it must not
        // move the slot idle (report()) before they are received again.
        keepalive_end = lsn{};
        previous_keepalive_end = lsn{};
        break;
      }
      if (f.header) {
        apply(*f.header);
      } else {
        a.failed = to_halt(halt_reason::decode_failure, make_error_code(errc::decode_failure));
      }
      if (!a.failed) lag_between_transactions();
      if (a.failed) end();
    }
    frames.clear();
    // The time spent applying was ours, not the server's silence.
    last_heard = std::max(last_heard, state.clock.now());
  }

  // Decodes one frame's payload and delivers whatever it completes.
  auto apply(const xlog_data& x) -> void {
    const auto* w = &x;
    const auto spilled_before = a.asm_.spill_totals();
    // The decoder turns the payload into pgoutput messages (pgoutput's own: the payload as it is),
    // and the assembler holds every Commit among them to the position of the frame it came in.
    const frame_position frame{w->data_start, w->wal_end};
    const auto to_assembler = [&](std::span<const std::byte> message) -> result<void> {
      return a.asm_.push(message, frame, a);
    };
    if constexpr (has_recheck<D>) {
      // The decoder's catalog went stale (pglogical: a table described again): read it anew before
      // anything else is translated with it. If that cannot be done now, the session ends without
      // applying this frame, and the reconnect's prepare() reads the catalog.
      if (decoder.recheck_due() && (!recheck_decoder() || a.failed)) return end();
    }
    result<void> pushed = decoder.translate(w->data, to_assembler);
    if (const auto spilled = a.asm_.spill_totals(); spilled != spilled_before) {
      REPLICANT_FAULT_POINT("during_spill");
      state.emit<telemetry::events::stream_spilled>(
          telemetry::keys::byte_size = spilled.second - spilled_before.second,
          telemetry::keys::change_count = spilled.first - spilled_before.first);
    }
    if (!pushed && pushed.error() == errc::spill_exhausted) {
      state.emit<telemetry::events::stream_spill_exhausted>(telemetry::keys::byte_size = a.asm_.spilled_bytes(),
                                                            telemetry::keys::reason = halt_reason::spill_exhausted);
    }
    if (!pushed && !a.failed) {
      halt h = to_halt(halt_for_translation(pushed.error()), pushed.error());
      h.at = w->data_start;
      a.failed = std::move(h);
    }
    if (!a.failed) check_budget();
    if (!a.failed && !a.asm_.idle()) REPLICANT_FAULT_POINT("mid_transaction");
  }

  // What is held cannot shrink before it commits, and no more can be read: held for good. Whatever
  // the spill policy: one that spills has already brought what is held under its threshold, so only
  // what it could not move (or a policy that never spills) gets here.
  auto check_budget() -> void {
    if (a.asm_.open_streams() > state.options.max_concurrent_txns ||
        a.asm_.largest_open_transaction_bytes() > state.options.max_inflight_bytes ||
        a.asm_.resident_bytes() >= state.options.max_inflight_bytes) {
      a.failed = to_halt(halt_reason::transaction_too_large);
    }
  }

  // The status update: the durable position (never what was merely received), or, for a state
  // mirror with nothing assembling or held, the position of an idle stream. Sent when forced, when
  // the position moved, when a ping is due, or every status interval.
  auto report(bool force) -> result<void> {
    lsn flush{state.durable.load()};
    if (may_idle_advance && !a.failed && !a.past_end && keepalive_end > flush && a.asm_.idle() && !a.holding()) {
      // Every frame received before the keepalive has been applied (one thread applies in order).
      // Never past the PREPARE of a committed prepared transaction not yet known durable (one the
      // sink already had, skipped on a resend, stays there): after a restart the server would
      // send its COMMIT PREPARED alone (applier's advance() holds the same line).
      lsn idle = std::min(keepalive_end, server_sent);
      if (const auto prepared = a.asm_.oldest_prepare_lsn()) idle = std::min(idle, *prepared);
      flush = std::max(flush, idle);
    }
    flush = std::max(flush, reported);  // never report a lower position than before
    if (flush > reported && reported.is_valid() && flush != lsn{state.durable.load()}) {
      state.emit<telemetry::events::checkpoint_advanced>(telemetry::keys::commit_lsn = flush,
                                                         telemetry::keys::kind = telemetry::kind::idle);
    }
    const auto now = now_;
    const bool watch = state.options.receive_timeout.count() > 0;
    const bool ping = watch && !pinged && now - last_heard > state.options.receive_timeout / 2;
    if (!force && !ping && now < next_status && !acknowledge_now(flush, now)) return {};
    const auto u = status_update(received, flush, ping);
    {
      const std::scoped_lock lock{guard_state.stream_mutex};
      if (auto sent = stream.send(encode_status_update(u)); !sent) return sent;
      guard_state.status_sent();
    }
    pinged = pinged || ping;
    reported = flush;
    last_status = now;
    next_status = now + state.options.status_interval;
    // The end position acknowledged: every transaction at or before it was delivered.
    if (const auto& end_at = state.options.end_lsn; end_at && flush >= *end_at && !state.stopping.load())
      a.hooks.reach_end();
    return {};
  }

  // Whether @p flush, a position not yet reported, is reported now (acknowledge_delay): once the
  // delay since the last update has passed, and at once for the end position and for an idle
  // advance (past what is durable), which nothing follows soon to carry.
  [[nodiscard]] auto acknowledge_now(lsn flush, clock::time_point now) const -> bool {
    if (flush == reported) return false;
    const auto& end_at = state.options.end_lsn;
    return now - last_status >= state.options.acknowledge_delay || flush > lsn{state.durable.load()} ||
           (end_at && flush >= *end_at);
  }
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_ENGINE_LOOP_HPP
