// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_ENGINE_DELIVERY_HPP
#define REPLICANT_PIPELINE_DETAIL_ENGINE_DELIVERY_HPP

// The delivering side of a session: what the assembler completes becomes calls of the checkpoint
// policy's delivery and of the sink's hooks. It reaches the engine through its session (the
// state, the sink, the policy's delivery) and through Hooks, a small object the pipeline gives it
// for what lives outside a session:
// - `snapshot_active()`, `snapshot_transaction(delivery, t)` (an engaged result: the incremental
//   snapshot took the transaction), `snapshot_reshaped(delivery, change)`, `snapshot_failed(delivery)`;
// - `reach_end()`: the end position is reached;
// - `interrupt_overdue_store_write()`: for the keepalive guard, after a stop.
// The session loop (detail/engine_loop.hpp) feeds it.

#include <replicant/assembler/assembler.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/pipeline/detail/engine_session.hpp>
#include <replicant/pipeline/detail/engine_state.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/sink/vocabulary.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>

namespace replicant::detail {

// The delivering side of a session (see above): one per session, made by pipeline::stream.
template <class CheckpointPolicy, class Sink, class Hooks>
struct engine_delivery {
  using session_type = engine_session<CheckpointPolicy, Sink>;
  using sink_type = Sink;

  /// Delivers session @p ses's transactions, as @p assembled completes them; @p engine reaches the
  /// rest of the engine; @p deliver_messages: the plugin was asked for logical decoding messages.
  engine_delivery(Hooks engine, session_type& ses, assembler&& assembled, bool deliver_messages)
      : hooks(engine),
        s(ses),
        state(ses.state),
        asm_(std::move(assembled)),
        ctx(ses.context()),
        failed(ses.failed),
        messages(deliver_messages) {
    s.assembled = &asm_;
  }
  engine_delivery(const engine_delivery&) = delete;
  auto operator=(const engine_delivery&) -> engine_delivery& = delete;
  ~engine_delivery() { s.assembled = nullptr; }

  Hooks hooks;
  session_type& s;
  engine_state& state;
  assembler asm_;
  checkpoint_context<Sink> ctx;
  std::optional<halt>& failed;       // the session's halt, once decided
  std::optional<lsn> last_commit{};  // of the transaction delivered last in this session
  // The end of the last transaction handed to the checkpoint policy, and the commit of the first
  // (what the durable position is measured from before anything was acknowledged): the stream's
  // side of the in-flight lag (pipeline_options::max_inflight_lag).
  lsn handed_over{};
  lsn first_handed_over{};
  bool past_end = false;  // a transaction committed after state.options.end_lsn arrived
  bool messages;          // logical decoding messages are delivered (the plugin was asked for them)

  auto advance(lsn to) -> void { s.advance(to); }

  auto stop_with(halt h) -> result<void> { return ctx.halt_with(std::move(h)); }

  // Whether delivered or collected transactions wait for their checkpoint.
  [[nodiscard]] auto holding() const noexcept -> bool { return s.delivery.holding(); }

  // Bytes held: the transactions being assembled, and what the delivery holds.
  [[nodiscard]] auto resident_bytes() const noexcept -> std::size_t {
    return asm_.resident_bytes() + s.delivery.resident_bytes();
  }

  // When what the delivery holds must be handed over at the latest.
  [[nodiscard]] auto due() const noexcept -> std::optional<std::chrono::steady_clock::time_point> {
    return s.delivery.due();
  }

  // Hands over what the delivery holds (before a message, a schema change, a chunk; at a stop).
  auto flush() -> result<void> {
    return checked(state.call_user([&] { return s.delivery.flush(ctx); }));
  }

  // Lets time pass for the delivery (a batch's timer).
  auto tick(std::chrono::steady_clock::time_point now) -> result<void> {
    return checked(state.call_user([&] { return s.delivery.tick(ctx, now); }));
  }

  // A delivery that failed without deciding a halt (a user's policy may) halts as a sink failure,
  // unless stop() interrupted it: nothing past it is acknowledged either way.
  auto checked(result<void> r) -> result<void> {
    if (!r && !failed && !ctx.stopping()) {
      halt h = to_halt(halt_reason::sink_failed, r.error());
      h.at = last_commit;
      failed = std::move(h);
    }
    return r;
  }

  auto operator()(transaction&& t) -> result<void> {
    // Commits arrive in commit order: one that goes backwards is damaged.
    if (last_commit && t.commit_lsn() <= *last_commit) return fail(errc::protocol_violation);
    last_commit = t.commit_lsn();
    // Past the end position: not delivered, not acknowledged (the next run receives it), and the
    // run ends here, as pg_recvlogical --endpos does.
    if (const auto& end_at = state.options.end_lsn; end_at && t.commit_lsn() > *end_at) {
      past_end = true;
      asm_.recycle(std::move(t));
      hooks.reach_end();
      return {};
    }
    // The incremental snapshot sees every transaction first; its watermarks stop there.
    if (hooks.snapshot_active()) {
      if (auto handled = hooks.snapshot_transaction(*this, t)) return *handled;
    }
    if (state.checkpoint && t.commit_lsn() <= *state.checkpoint) {
      // Already persisted (the server sends acknowledged transactions again after some restarts):
      // skip it; it is durable, so its end may be acknowledged.
      if (!holding()) advance(t.end_lsn());
      asm_.recycle(std::move(t));
      return {};
    }
    const auto bytes = t.byte_size() + t.spilled_bytes();
    if (t.streamed()) {
      state.emit<telemetry::events::stream_committed>(telemetry::keys::commit_lsn = t.commit_lsn(),
                                                      telemetry::keys::byte_size = bytes,
                                                      telemetry::keys::change_count = t.change_count());
    }
    state.emit<telemetry::events::transaction_assembled>(telemetry::keys::commit_lsn = t.commit_lsn(),
                                                         telemetry::keys::change_count = t.change_count(),
                                                         telemetry::keys::byte_size = bytes);
    if (messages) {
      for (const auto& m : t.messages()) report(m);  // they ride the transaction
    }
    if (!first_handed_over.is_valid()) first_handed_over = t.commit_lsn();
    handed_over = std::max(handed_over, t.end_lsn());
    return checked(state.call_user([&] { return s.delivery.deliver(ctx, std::move(t)); }));
  }

  // message.received for a message that is delivered (messages on): transactional or not.
  auto report(const logical_message& m) -> void {
    state.emit<telemetry::events::message_received>(telemetry::keys::commit_lsn = m.message_lsn,
                                                    telemetry::keys::byte_size = m.content.size(),
                                                    telemetry::keys::transactional = m.transactional);
  }

  auto operator()(const logical_message& m) -> result<void> {
    if constexpr (has_handle_message<Sink>) {
      if (!messages) return {};
      report(m);
      // The sink sees events in commit order: what is held goes first.
      if (auto r = flush(); !r) return r;
      auto handled = ctx.call_sink([&] { return s.sink.handle_message(m, message_context{m.message_lsn}); });
      if (!handled) {
        halt h = to_halt(halt_reason::sink_failed, handled.error());
        h.at = m.message_lsn;
        return stop_with(std::move(h));
      }
      // A non-transactional message is not a transaction: its position is acknowledgeable only
      // when nothing before it still waits for its checkpoint (a deferred confirmation, a batch).
      if (!holding()) advance(m.message_lsn);
    }
    return {};
  }

  auto operator()(const schema_change& c) -> result<void> {
    const table_ref table{c.schema, c.table};
    hooks.snapshot_reshaped(*this, c);  // a table being snapshotted: its reader lists it again
    const bool destructive = c.kind == schema_change_kind::destructive;
    const bool widened = widens_a_type(c);
    const auto kind = destructive ? telemetry::kind::destructive
                      : widened   ? telemetry::kind::widened
                                  : telemetry::kind::additive;
    // New columns show in the rows themselves. A widened type does not, so a sink with the hook
    // hears of it (and may refuse it); a destructive change halts unless the hook accepts it.
    if (destructive || (widened && has_handle_schema_change<Sink>)) {
      if (auto r = consult_sink(c, table, kind); !r) return r;
    }
    if (!destructive) {
      state.emit<telemetry::events::schema_change_additive>(telemetry::keys::table = table,
                                                            telemetry::keys::kind = kind);
    }
    return {};
  }

  // The sink's verdict on a schema change; without the hook, the halt a destructive change calls for.
  auto consult_sink(const schema_change& c, const table_ref& table, telemetry::kind kind) -> result<void> {
    // Whatever committed before the change is delivered before the sink hears of it.
    if (auto r = flush(); !r) return r;
    const std::optional<lsn> at = asm_.schema_change_position();
    auto refuse = [&](halt_reason why, std::error_code cause) {
      state.emit<telemetry::events::schema_change_halted>(telemetry::keys::table = table, telemetry::keys::kind = kind,
                                                          telemetry::keys::reason = why);
      halt h = to_halt(why, cause);
      h.table = table_name{c.schema, c.table};
      h.at = at;
      return stop_with(std::move(h));
    };
    if constexpr (has_handle_schema_change<Sink>) {
      const schema_change_context context{state.options.slot, at};
      auto verdict = ctx.call_sink([&] { return call_handle_schema_change(s.sink, c, context); });
      if (!verdict) return refuse(halt_reason::schema_change_rejected, verdict.error());
      return {};
    } else {
      return refuse(halt_reason::schema_change_destructive, {});
    }
  }

  auto operator()(const empty_commit& e) -> result<void> {
    // Nothing published in it: a state mirror may move past it (unless transactions before it still
    // wait for their checkpoint); an append log keeps its position. Nothing held, every prepared
    // transaction committed up to it (this one too, if it was one) has nothing left to lose.
    if (holding()) return {};
    asm_.prepares_durable_through(e.end_lsn);
    if (kind_of<Sink>() == sink_kind::state_mirror) advance(e.end_lsn);
    return {};
  }
  auto operator()(const prepared_event& e) -> result<void> {
    if constexpr (has_handle_prepare<Sink>) {
      auto seen = ctx.call_sink([&] { return s.sink.handle_prepare(e); });
      if (!seen) {
        halt h = to_halt(halt_reason::sink_failed, seen.error());
        h.at = e.prepare_lsn;
        return stop_with(std::move(h));
      }
    } else {
      static_cast<void>(e);
    }
    return {};
  }
  auto operator()(const rollback_prepared_event& e) -> result<void> {
    // Nothing to deliver; as for an empty commit, a state mirror may move past it.
    return (*this)(empty_commit{e.end_lsn});
  }
  auto operator()(const stream_abort_event& e) -> result<void> {
    state.emit<telemetry::events::stream_aborted>(telemetry::keys::reason = telemetry::kind::stream_abort,
                                                  telemetry::keys::byte_size = e.dropped_bytes,
                                                  telemetry::keys::change_count = e.dropped_changes);
    return {};
  }
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_ENGINE_DELIVERY_HPP
