// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_IMPL_SESSION_HPP
#define REPLICANT_PIPELINE_IMPL_SESSION_HPP

// A streaming session of replicant::pipeline (included at the bottom of pipeline.hpp): its delivery
// (detail/engine_delivery.hpp) and its loop (detail/engine_loop.hpp) made and run, the spill policy
// readied for it, and what its end means.

#include <optional>
#include <utility>

namespace replicant {

// A streaming session: the applier and the session loop (its checks beside the stream on
// @p probe), then what the end means.
template <class D, class C, class S, class Sink>
template <server_stream Stream, server_probe Probe>
auto pipeline<D, C, S, Sink>::stream(session& s, Stream&& stream, Probe& probe) -> session_end {
  emit<telemetry::events::connection_connected>(telemetry::keys::kind =
                                                    s.standby ? telemetry::kind::standby : telemetry::kind::primary);
  emit<telemetry::events::connection_slot_active>(telemetry::keys::slot_name = *state_.slot,
                                                  telemetry::keys::commit_lsn = state_.checkpoint.value_or(lsn{}));
  applier a{engine_hooks{this}, s, assembler{pgoutput_protocol{.version = s.protocol, .streaming = s.streaming}},
            plugin().messages};
  if (!prepare_spill(s, a)) s.end_requested.store(true);
  state_.take_wake();
  snapshot_.start();  // the incremental snapshot's reader, when this session has one
  s.walsender_pid = stream.backend_pid();
  detail::engine_loop<D, applier, std::remove_reference_t<Stream>, Probe>{decoder_, side_checks_, a, stream, probe}
      .run();
  snapshot_.end();
  // The connection ended by itself (a restart, a lost connection): what is held is complete and
  // committed, so it is handed over now rather than received again.
  if (!a.failed && a.holding()) static_cast<void>(a.flush());
  return session_ended(s, a);
}

// The spill policy readies its storage for this session (a failure halts at once, before any frame
// is applied), then says whether and when the assembler spills, into parts it makes. False after
// such a halt.
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::prepare_spill(session& s, applier& a) -> bool {
  a.asm_.report_read_failures_to(&s.spill_failed);  // a sink's success cannot hide a failed read-back
  const spill_context spill_ctx{state_.options.slot, state_.options.max_inflight_bytes};
  if (auto ready = call_user([&] { return spill_.prepare(spill_ctx); }); !ready) {
    a.failed = detail::to_halt(halt_reason::spill_io_failed, ready.error());
    return false;
  }
  if (const std::optional<spill_limits> limits = std::as_const(spill_).limits(spill_ctx)) {
    a.asm_.enable_spill(*limits, [this, spill_ctx] { return call_user([&] { return spill_.open(spill_ctx); }); });
  }
  return true;
}

// What the end of a session means: a halt, or a reconnect (or nothing more, after stop()).
template <class D, class C, class S, class Sink>
auto pipeline<D, C, S, Sink>::session_ended(session& s, applier& a) -> session_end {
  if (a.failed) {
    halt_with(std::move(*a.failed));
    return session_end::halted;
  }
  if (s.too_slow_lag) {
    halt h = detail::to_halt(halt_reason::sink_too_slow);
    h.lag_bytes = *s.too_slow_lag;
    halt_with(std::move(h));
    return session_end::halted;
  }
  emit<telemetry::events::connection_disconnected>();
  if (state_.stopping.load()) return session_end::stopped;
  // Whatever ended the stream (a restart, a lost connection, a slot invalidated while streaming),
  // the next connect starts from the durable position and its checks decide whether to go on.
  return session_end::reconnect;
}

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_IMPL_SESSION_HPP
