// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_IMPL_PIPELINE_HPP
#define REPLICANT_PIPELINE_IMPL_PIPELINE_HPP

// The bodies of replicant::pipeline that its parts share: the constructor, stop, the helpers and the
// run loop (included at the bottom of pipeline.hpp, before the parts).

#include <replicant/pipeline/detail/publication_definition.hpp>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace replicant {

namespace detail {

// Whether a checkpoint policy's own settings are usable (a policy without settings to check is).
template <class P>
auto valid_policy(const P& p) noexcept -> bool {
  if constexpr (checks_settings<P>) {
    return p.valid();
  } else {
    return true;
  }
}

// How long a checkpoint write in progress at stop() may go on before it is interrupted: long
// enough for any store that works, short enough that a stop never waits long for one that hangs.
inline constexpr auto store_stop_grace = std::chrono::seconds(1);

}  // namespace detail

template <class D, class C, class S, class Sink>
pipeline<D, C, S, Sink>::pipeline(parts, Sink& sink, D decoder, C checkpoint, S spill, pipeline_options options,
                                  telemetry::dispatcher* events)
    : sink_(sink),
      policy_(std::move(checkpoint)),
      spill_(std::move(spill)),
      decoder_(std::move(decoder)),
      state_(std::move(options), events),
      probe_{state_.options.conninfo, state_.options.connect_timeout, state_.stop_fd},
      snapshot_{state_, decoder_.settings().publications} {}

template <class D, class C, class S, class Sink>
pipeline<D, C, S, Sink>::~pipeline() {
  stop();
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::stop() noexcept -> void {
  state_.signal_stop();
  // A checkpoint store that hangs would otherwise keep the applier, and run(), until its timeout.
  // A checkpoint write in progress is left to finish (it makes the last delivery durable, so that
  // a clean stop repeats nothing); the keepalive guard ends it after store_stop_grace.
  if constexpr (detail::interruptible_policy<C>) {
    if (!state_.writing()) policy_.interrupt();  // noexcept, as the concept requires
  }
}

// state_.options.end_lsn is reached: run() returns as after stop(), and says why (reached_end()).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::reach_end() noexcept -> void {
  state_.end_reached.store(true);
  stop();
}

// After stop(): a checkpoint write that has not finished within the grace is ended, so that a
// store that hangs cannot hold the stop for its whole timeout.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::interrupt_overdue_store_write() noexcept -> void {
  if constexpr (detail::interruptible_policy<C>) {
    if (state_.writing_longer_than(detail::store_stop_grace)) policy_.interrupt();
  }
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::halt_with(halt h) -> void {
  state_.halted = std::move(h);
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::run() -> void {
  std::error_code ec;
  run(ec);
  if (state_.sink_exception) std::rethrow_exception(std::exchange(state_.sink_exception, nullptr));
  if (state_.halted) throw error(*state_.halted);
  if (ec) throw std::system_error(ec);
}

// Every halt shows in telemetry: connection.disconnected with its reason (and the lag of
// sink_too_slow), and a sink's failure sink.failed too, whichever hook or policy it came from.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::report_halt(const halt& h) -> void {
  namespace k = telemetry::keys;
  // The spill storage failing is reported as the reference does: as the sink's failure, by reason.
  if (h.reason == halt_reason::sink_failed || h.reason == halt_reason::spill_io_failed) {
    const auto at = h.at.value_or(lsn{});
    const errc cls = h.reason == halt_reason::sink_failed ? errc::sink_failed : errc::io_failed;
    if (h.duration) {
      emit<telemetry::events::sink_failed>(k::duration = *h.duration, k::commit_lsn = at, k::reason = h.reason,
                                           k::error_class = cls);
    } else {
      emit<telemetry::events::sink_failed>(k::commit_lsn = at, k::reason = h.reason, k::error_class = cls);
    }
  }
  if (h.lag_bytes) {
    emit<telemetry::events::connection_disconnected>(k::lag_bytes = *h.lag_bytes, k::lag = *h.lag_bytes,
                                                     k::reason = h.reason);
  } else {
    emit<telemetry::events::connection_disconnected>(k::reason = h.reason);
  }
}

// A refusal a retry cannot fix: the halt of its own, with the server's SQLSTATE when it sent one.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::refused(const pq::connect_refusal& r) -> void {
  const auto reason = [&] {
    switch (r.why) {
      case pq::refusal::authentication: return halt_reason::authentication_failed;
      case pq::refusal::role: return halt_reason::role_rejected;
      case pq::refusal::host: return halt_reason::host_rejected;
      case pq::refusal::database: return halt_reason::database_missing;
      case pq::refusal::tls_verification: return halt_reason::tls_verification_failed;
      case pq::refusal::tls:
      case pq::refusal::none: break;
    }
    return halt_reason::tls_unavailable;
  }();
  halt h = detail::to_halt(reason, make_error_code(errc::connection_refused));
  if (!r.sqlstate.empty()) h.sqlstate = r.sqlstate;
  halt_with(std::move(h));
}

template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::run(std::error_code& ec) noexcept -> void {
  state_.halted.reset();
  state_.never_connected = false;
  state_.sink_exception = nullptr;
  side_checks_ = detail::side_checks{state_.options.max_side_check_failures};
  try {
    run_loop();
    probe_.close();
  } catch (const std::bad_alloc&) {
    state_.halted = detail::to_halt(halt_reason::config_invalid, std::make_error_code(std::errc::not_enough_memory));
  } catch (...) {
    // User code that threw outside the calls guarded one by one (a decoder's translation, a spill
    // part's I/O, a policy's settings): a halt, and the exception for run() to rethrow, never an
    // abort of the process. Nothing past the durable position was acknowledged.
    if (!state_.sink_exception) state_.sink_exception = std::current_exception();
    state_.halted = detail::to_halt(halt_reason::sink_failed, make_error_code(errc::sink_failed));
  }
  if (state_.halted) report_halt(*state_.halted);
  ec = state_.halted            ? make_error_code(errc::halted)
       : state_.never_connected ? make_error_code(errc::connection_failed)
                                : std::error_code{};
}

// The pipeline's options, the decoder's, and how they combine: everything is refused before
// connecting. A decoder's settings beyond its declared capabilities are refused too (a user's
// decoder could claim them; the engine must not ask a plugin for what it said it cannot do).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::validate_options() const -> halt_or<void> {
  constexpr decoder_capabilities can = D::capabilities;
  if (auto v = validate(state_.options); !v) return v;
  if (auto v = decoder_.validate(); !v) return v;
  const plugin_settings asked = plugin();
  if ((asked.streaming && !can.streaming) || (asked.two_phase && !can.two_phase) ||
      (state_.options.failover && !can.failover) || (asked.messages && !can.messages) ||
      (asked.origin && !can.origin_filter) || (asked.binary && !can.binary) ||
      (asked.protocol_version != 0 && !can.protocol_version) || (!asked.publications.empty() && !can.publications)) {
    return refuse(halt_reason::decoder_capability_unsupported);
  }
  if (takes_snapshot(state_.options.start) && !can.snapshot) return refuse(halt_reason::snapshot_unsupported);
  // With streaming, the bound on transactions held in progress; incremental chunks are reconciled
  // with the stream by comparing key text, which binary values do not have.
  if ((asked.streaming && state_.options.max_concurrent_txns == 0) ||
      (state_.start_as<start::incremental_snapshot>() != nullptr && asked.binary)) {
    return refuse(halt_reason::config_invalid);
  }
  return {};
}

// Everything that can be refused before any connection: the stop machinery, the options, the
// checkpoint policy's settings, and what the options ask of the sink. Halts at the first refusal.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::ready_to_run() -> bool {
  const auto refuse_with = [&](halt h) {
    halt_with(std::move(h));
    return false;
  };
  if (state_.stop_fd < 0 || state_.wake_fd < 0) {
    return refuse_with(detail::to_halt(halt_reason::config_invalid, std::error_code(errno, std::generic_category())));
  }
  if (auto v = validate_options(); !v) return refuse_with(v.error());
  if (!detail::valid_policy(policy_)) return refuse_with(detail::to_halt(halt_reason::config_invalid));
  if (plugin().messages && !detail::has_handle_message<Sink>) {
    return refuse_with(detail::to_halt(halt_reason::messages_unsupported));
  }
  if (state_.start_as<start::point_in_time_snapshot>() != nullptr &&
      !(detail::has_handle_snapshot<Sink> && detail::has_handle_snapshot_complete<Sink>)) {
    return refuse_with(detail::to_halt(halt_reason::snapshot_unsupported));
  }
  if (state_.start_as<start::incremental_snapshot>() != nullptr && !detail::supports_incremental_snapshot<Sink, C>) {
    return refuse_with(detail::to_halt(halt_reason::snapshot_unsupported));
  }
  return true;
}

// Connects, streams and reconnects until a stop or a halt. Retries what may clear (a server down
// or restarting, a refused command, a session that ended), bounds the refused commands, and halts
// on what a retry cannot fix.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::run_loop() -> void {
  if (!ready_to_run()) return;
  state_.slot = slot_name::make(state_.options.slot).value();
  detail::connect_attempts tries{.delay = state_.options.reconnect_delay};
  // What the publications published when the first session began: a reconnect does not take a
  // change made in the meantime as the new normal (only a new run() does).
  std::optional<publication_definitions> publications;
  while (!state_.stopping.load()) {
    session s{state_, sink_, policy_};
    s.publications = publications;
    auto stream = connect(s);
    publications = s.publications;
    if (state_.halted) return announce_slot_refusal();
    if (stream) {
      tries.connected = true;
      tries.failed = 0;
      const auto end = this->stream(s, std::move(*stream), probe_);
      publications = std::move(s.publications);  // with what the session's checks added to it
      if (end != session_end::reconnect) return;
      if (s.frame_received.load()) {
        tries.command_errors = 0;
        tries.delay = state_.options.reconnect_delay;
      } else if (s.error == errc::server_error) {
        count_command_error(tries, errc::server_error);
      }
    } else if (!retry_after(stream.error(), s, tries)) {
      return;
    }
    if (tries.command_errors > state_.options.max_command_retries) return halt_on_command_errors(s, tries);
    state_.sleep(tries.delay);
    tries.delay = std::min(tries.delay * 2, state_.options.max_reconnect_delay);
  }
  state_.never_connected = tries.never_connected();  // stopped while waiting to retry
}

// A connect that failed with @p error: whether to try again (counted in @p tries), or not (a stop,
// or a refusal a retry cannot fix, which halts).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::retry_after(std::error_code error, const session& s, detail::connect_attempts& tries)
    -> bool {
  if (error == errc::cancelled || state_.stopping.load()) {
    state_.never_connected = tries.never_connected();
    return false;
  }
  if (error == errc::connection_refused) {
    refused(s.refusal);
    return false;
  }
  if (error == errc::server_error || error == errc::protocol_violation) {
    tries.connected = true;  // the server answered: it was reached, and refused a command (bounded)
    count_command_error(tries, detail::error_class_of(error));
    return true;
  }
  ++tries.failed;  // down, restarting, unreachable: retried for as long as the run lasts
  emit<telemetry::events::connection_disconnected>(telemetry::keys::attempt = tries.failed,
                                                   telemetry::keys::error_class = detail::error_class_of(error));
  return true;
}

// One more command the server refused before streaming, reported with its attempt number.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::count_command_error(detail::connect_attempts& tries, errc error_class) -> void {
  ++tries.command_errors;
  emit<telemetry::events::connection_command_error>(telemetry::keys::attempt = tries.command_errors,
                                                    telemetry::keys::max_retries = state_.options.max_command_retries,
                                                    telemetry::keys::slot_name = *state_.slot,
                                                    telemetry::keys::error_class = error_class);
}

// The refused commands passed their bound: the halt, with the server's SQLSTATE when it sent one.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::halt_on_command_errors(const session& s, const detail::connect_attempts& tries) -> void {
  emit<telemetry::events::connection_command_error_halt>(
      telemetry::keys::attempt = tries.command_errors,
      telemetry::keys::max_retries = state_.options.max_command_retries, telemetry::keys::slot_name = *state_.slot,
      telemetry::keys::error_class = errc::server_error);
  halt h = detail::to_halt(halt_reason::command_error_limit, make_error_code(errc::server_error));
  h.attempts = tries.command_errors;
  if (!s.sqlstate.empty()) h.sqlstate = s.sqlstate;
  halt_with(std::move(h));
}

// The connect chain halted. A slot it refused (missing, invalidated, in use, not logical) is also
// announced as connection_slot_invalidated, with the invalidation's class as `reason` (the
// reference's key) and as `kind`.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::announce_slot_refusal() -> void {
  if (!detail::is_slot_refusal(state_.halted->reason)) return;
  if (state_.halted->invalidation) {
    emit<telemetry::events::connection_slot_invalidated>(
        telemetry::keys::slot_name = *state_.slot,
        telemetry::keys::reason = telemetry::to_kind(*state_.halted->invalidation),
        telemetry::keys::kind = telemetry::to_kind(*state_.halted->invalidation));
  } else {
    emit<telemetry::events::connection_slot_invalidated>(telemetry::keys::slot_name = *state_.slot,
                                                         telemetry::keys::reason = state_.halted->reason);
  }
}

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_IMPL_PIPELINE_HPP
