// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_IMPL_DELIVERY_HPP
#define REPLICANT_PIPELINE_IMPL_DELIVERY_HPP

// The delivering side of replicant::pipeline's session (included at the bottom of pipeline.hpp,
// after impl/pipeline.hpp): the assembler's events become calls of the checkpoint policy's
// delivery and of the sink's hooks.

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

namespace replicant {

// The delivering side of a session: what the assembler completes goes through the checkpoint
// policy's delivery (the session loop, impl/session_loop.hpp, feeds it).
template <class D, class C, class S, class Sink>
struct pipeline<D, C, S, Sink>::applier {
  applier(pipeline& owner, session& ses, assembler&& assembled)
      : p(owner), s(ses), asm_(std::move(assembled)), ctx(ses.context()), failed(ses.failed) {
    s.assembled = &asm_;
  }
  applier(const applier&) = delete;
  auto operator=(const applier&) -> applier& = delete;
  ~applier() { s.assembled = nullptr; }

  pipeline& p;
  session& s;
  assembler asm_;
  checkpoint_context<Sink> ctx;
  std::optional<halt>& failed;       // the session's halt, once decided
  std::optional<lsn> last_commit{};  // of the transaction delivered last in this session
  // The end of the last transaction handed to the checkpoint policy, and the commit of the first
  // (what the durable position is measured from before anything was acknowledged): the stream's
  // side of the in-flight lag (pipeline_options::max_inflight_lag).
  lsn handed_over{};
  lsn first_handed_over{};
  bool past_end = false;  // a transaction committed after state_.options.end_lsn arrived

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
    return checked(p.call_user([&] { return s.delivery.flush(ctx); }));
  }

  // Lets time pass for the delivery (a batch's timer).
  auto tick(std::chrono::steady_clock::time_point now) -> result<void> {
    return checked(p.call_user([&] { return s.delivery.tick(ctx, now); }));
  }

  // A delivery that failed without deciding a halt (a user's policy may) halts as a sink failure,
  // unless stop() interrupted it: nothing past it is acknowledged either way.
  auto checked(result<void> r) -> result<void> {
    if (!r && !failed && !ctx.stopping()) {
      halt h = detail::to_halt(halt_reason::sink_failed, r.error());
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
    if (const auto& end_at = p.state_.options.end_lsn; end_at && t.commit_lsn() > *end_at) {
      past_end = true;
      asm_.recycle(std::move(t));
      p.reach_end();
      return {};
    }
    // The incremental snapshot sees every transaction first; its watermarks stop there.
    if (p.incremental_.reconciler) {
      if (auto handled = p.incremental_transaction(*this, t)) return *handled;
    }
    if (p.state_.checkpoint && t.commit_lsn() <= *p.state_.checkpoint) {
      // Already persisted (the server sends acknowledged transactions again after some restarts):
      // skip it; it is durable, so its end may be acknowledged.
      if (!holding()) advance(t.end_lsn());
      asm_.recycle(std::move(t));
      return {};
    }
    const auto bytes = t.byte_size() + t.spilled_bytes();
    if (t.streamed()) {
      p.template emit<telemetry::events::stream_committed>(telemetry::keys::commit_lsn = t.commit_lsn(),
                                                           telemetry::keys::byte_size = bytes,
                                                           telemetry::keys::change_count = t.change_count());
    }
    p.template emit<telemetry::events::transaction_assembled>(telemetry::keys::commit_lsn = t.commit_lsn(),
                                                              telemetry::keys::change_count = t.change_count(),
                                                              telemetry::keys::byte_size = bytes);
    if (p.plugin().messages) {
      for (const auto& m : t.messages()) report(m);  // they ride the transaction
    }
    if (!first_handed_over.is_valid()) first_handed_over = t.commit_lsn();
    handed_over = std::max(handed_over, t.end_lsn());
    return checked(p.call_user([&] { return s.delivery.deliver(ctx, std::move(t)); }));
  }

  // message.received for a message that is delivered (messages on): transactional or not.
  auto report(const logical_message& m) -> void {
    p.template emit<telemetry::events::message_received>(telemetry::keys::commit_lsn = m.message_lsn,
                                                         telemetry::keys::byte_size = m.content.size(),
                                                         telemetry::keys::transactional = m.transactional);
  }

  auto operator()(const logical_message& m) -> result<void> {
    if constexpr (detail::has_handle_message<Sink>) {
      if (!p.plugin().messages) return {};
      report(m);
      // The sink sees events in commit order: what is held goes first.
      if (auto r = flush(); !r) return r;
      auto handled = ctx.call_sink([&] { return p.sink_.handle_message(m, message_context{m.message_lsn}); });
      if (!handled) {
        halt h = detail::to_halt(halt_reason::sink_failed, handled.error());
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
    p.incremental_reshaped(*this, c);  // a table being snapshotted: its reader lists it again
    const bool destructive = c.kind == schema_change_kind::destructive;
    const bool widened = widens_a_type(c);
    const auto kind = destructive ? telemetry::kind::destructive
                      : widened   ? telemetry::kind::widened
                                  : telemetry::kind::additive;
    // New columns show in the rows themselves. A widened type does not, so a sink with the hook
    // hears of it (and may refuse it); a destructive change halts unless the hook accepts it.
    if (destructive || (widened && detail::has_handle_schema_change<Sink>)) {
      if (auto r = consult_sink(c, table, kind); !r) return r;
    }
    if (!destructive) {
      p.template emit<telemetry::events::schema_change_additive>(telemetry::keys::table = table,
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
      p.template emit<telemetry::events::schema_change_halted>(
          telemetry::keys::table = table, telemetry::keys::kind = kind, telemetry::keys::reason = why);
      halt h = detail::to_halt(why, cause);
      h.table = table_name{c.schema, c.table};
      h.at = at;
      return stop_with(std::move(h));
    };
    if constexpr (detail::has_handle_schema_change<Sink>) {
      const schema_change_context context{p.state_.options.slot, at};
      auto verdict = ctx.call_sink([&] { return detail::call_handle_schema_change(p.sink_, c, context); });
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
    if (detail::kind_of<Sink>() == sink_kind::state_mirror) advance(e.end_lsn);
    return {};
  }
  auto operator()(const prepared_event& e) -> result<void> {
    if constexpr (detail::has_handle_prepare<Sink>) {
      auto seen = ctx.call_sink([&] { return p.sink_.handle_prepare(e); });
      if (!seen) {
        halt h = detail::to_halt(halt_reason::sink_failed, seen.error());
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
    p.template emit<telemetry::events::stream_aborted>(telemetry::keys::reason = telemetry::kind::stream_abort,
                                                       telemetry::keys::byte_size = e.dropped_bytes,
                                                       telemetry::keys::change_count = e.dropped_changes);
    return {};
  }
};

}  // namespace replicant

#endif  // REPLICANT_PIPELINE_IMPL_DELIVERY_HPP
