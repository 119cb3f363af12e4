// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_PIPELINE_HPP
#define REPLICANT_PIPELINE_PIPELINE_HPP

/// @file
/// replicant::pipeline: streams a logical replication slot into a sink, exactly once in effect.

#include <replicant/assembler/assembler.hpp>
#include <replicant/checkpoint/deferred.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/checkpoint/policy.hpp>
#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/checkpoint/sink_owned_batches.hpp>
#include <replicant/core/detail/fault_point.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/decoder/policy.hpp>
#include <replicant/model/transaction.hpp>
#include <replicant/pipeline/detail/connect_attempts.hpp>
#include <replicant/pipeline/detail/connect_chain.hpp>
#include <replicant/pipeline/detail/engine_delivery.hpp>
#include <replicant/pipeline/detail/engine_loop.hpp>
#include <replicant/pipeline/detail/engine_session.hpp>
#include <replicant/pipeline/detail/engine_snapshot.hpp>
#include <replicant/pipeline/detail/engine_state.hpp>
#include <replicant/pipeline/detail/pq_probe.hpp>
#include <replicant/pipeline/detail/pq_server.hpp>
#include <replicant/pipeline/detail/side_checks.hpp>
#include <replicant/pipeline/options.hpp>
#include <replicant/pipeline/server_probe.hpp>
#include <replicant/pipeline/server_session.hpp>
#include <replicant/pipeline/server_stream.hpp>
#include <replicant/pipeline/sink_for.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/pq/replication_stream.hpp>
#include <replicant/sink/concepts.hpp>
#include <replicant/sink/vocabulary.hpp>
#include <replicant/snapshot/incremental.hpp>
#include <replicant/snapshot/incremental_worker.hpp>
#include <replicant/snapshot/point_in_time.hpp>
#include <replicant/spill/disk.hpp>
#include <replicant/spill/none.hpp>
#include <replicant/spill/policy.hpp>
#include <replicant/telemetry/telemetry.hpp>
#include <replicant/wire/framing.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace replicant {

namespace testing::detail {
// The simulator's driver (replicant/testing/): it runs a pipeline's delivery in-process.
template <class Pipeline>
class engine_run;
}  // namespace testing::detail

/**
 * A replication pipeline: owns a logical replication slot and delivers every committed transaction
 * of the configured publications to a sink, acknowledging the slot only up to what the sink has
 * durably persisted.
 *
 * **Threads.** One thread delivers: `run()`'s own thread reads every complete message the socket
 * has, decodes and assembles it, runs the checkpoint policy and the sink, and sends the status
 * update, with no queue and no second wake-up in between. While a call (the sink's, a store's, a
 * catalog query) outlasts the status interval, a *keepalive guard* thread sends status updates at
 * the durable position in its place, so that a slow sink never lets `wal_sender_timeout` fire; it
 * does nothing else, and costs nothing while calls are quick.
 *
 * **The seam.** The position reported as flushed is the end of the last transaction the sink
 * returned (under @ref replicant::lib_owned_checkpoint "lib_owned_checkpoint": whose checkpoint the
 * store wrote; or, for a state-mirror sink with nothing pending, the server's keepalive position),
 * never what was merely received. A sink failure (error result or exception) halts: nothing from the
 * failed transaction on is acknowledged. On any reconnect everything in memory is discarded and
 * streaming resumes from the durable position; transactions the server sends again whose commit LSN
 * is not above the sink's checkpoint are skipped.
 *
 * **Back-pressure.** While the sink runs nothing is read, so TCP makes the walsender wait. At most
 * `max_inflight_bytes` are held (transactions being assembled, and what the checkpoint policy
 * holds, such as a batch); when that is full the socket is left unread until the policy hands
 * something over. A sink that stays slower than the server is paced until the server's WAL runs
 * `max_wal_lag` past the durable position; then the pipeline halts `sink_too_slow`. A single
 * transaction larger than the budget halts
 * `transaction_too_large` under `no_spill`, and is held partly on disk under `disk_spill`.
 *
 * **Faults.** A lost connection or a server restart reconnects with exponential backoff. Errors of
 * the commands before streaming starts (a slot in use elsewhere, slots exhausted) count against
 * `max_command_retries`; past it the pipeline halts `command_error_limit`. A server that is simply
 * down is retried until stop() (each failed attempt emits `connection.disconnected` with its count);
 * a run stopped before any connect succeeded ends with `errc::connection_failed`. What a retry
 * cannot fix halts at once: refused credentials (`authentication_failed`), role (`role_rejected`),
 * host (`host_rejected`), database (`database_missing`), TLS the server lacks (`tls_unavailable`) or
 * a server certificate that does not verify (`tls_verification_failed`). Every halt is
 * value-free (see @ref replicant::halt), and emits `connection.disconnected` with its reason (a
 * sink's failure also `sink.failed`).
 *
 * @tparam Decoder the output plugin's decoder, a @ref replicant::decoder_policy "decoder_policy":
 * @ref pgoutput_decoder, or `wal2json_decoder` (decoder/wal2json.hpp) or `pglogical_decoder`
 * (decoder/pglogical.hpp), which translate their plugin's output into pgoutput. Its capabilities
 * decide which sink hooks are allowed; its options (@ref pgoutput_options, `wal2json_options`,
 * `pglogical_options`) hold what its plugin is asked for, and only what it can do: the table set
 * (publications for pgoutput), messages, streaming, two-phase... (docs/decoders.md).
 * @tparam CheckpointPolicy who owns the checkpoint, and when a delivered transaction becomes
 * durable: @ref sink_owned_checkpoint (the sink, per transaction), @ref sink_owned_batches (the
 * sink, per atomic batch), @ref lib_owned_checkpoint (the library, in a
 * @ref replicant::checkpoint_store "checkpoint_store"), or the user's own model of
 * @ref replicant::checkpoint_policy_for "checkpoint_policy_for". It carries the delivery's
 * behaviour and decides which sink members are required.
 * @tparam SpillPolicy a @ref replicant::spill_policy "spill_policy": what happens to transactions larger than memory:
 * @ref no_spill (halt), @ref disk_spill (hold them partly on disk) or a model of the user's own.
 * @tparam Sink the user's sink: a @ref replicant::sink, @ref replicant::batch_sink or
 * @ref replicant::lib_mode_sink, as the checkpoint policy asks (see docs/pipeline.md).
 *
 * @par Example
 * @code
 * my_sink sink{...};
 * replicant::pipeline_options o{.conninfo = "dbname=shop", .slot = "shop_mirror",
 *                               .start = replicant::start::go_forward{}};
 * replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint,
 *                     replicant::no_spill, my_sink> p{sink, replicant::pgoutput_options{.publications = {"shop_pub"}},
 * o}; std::jthread stopper{[&](std::stop_token t) { wait_for_signal(t); p.stop(); }}; p.run();  // returns after
 * stop(), throws replicant::error on a halt
 *
 * // wal2json instead: the tables are the decoder's, and its options have no publications (nor
 * // any other setting wal2json cannot express: there is no such member to set).
 * replicant::wal2json_options w{.tables = {{"public", "orders"}}, .messages = true};
 * replicant::pipeline<replicant::wal2json_decoder, replicant::sink_owned_checkpoint,
 *                     replicant::no_spill, my_sink> q{sink, w, o};
 * @endcode
 *
 * @par Thread safety
 * `run()` once at a time; `stop()` from any thread (it is async-signal-safe).
 */
template <class Decoder, class CheckpointPolicy, class SpillPolicy, class Sink>
class pipeline {
  static_assert(detail::check_decoder<Decoder>());
  static_assert(detail::check_decoder_serves<Decoder, Sink>());
  static_assert(detail::check_spill_policy<SpillPolicy>());
  static_assert(detail::check_sink<Sink, CheckpointPolicy>());

 public:
  /// A pipeline delivering to @p sink (which must outlive it), configured by @p options, reporting
  /// telemetry to @p events if given. Between the sink and @p options come the policies' settings in
  /// the order of the template's parameters, each left out to take its default: the decoder (or the
  /// options it is made from, e.g. a `pgoutput_options`), the checkpoint policy (batch bounds; the
  /// store and its retry budget), the spill policy (the directory and its bound). A decoder configured
  /// by options of its own (pgoutput, wal2json, pglogical) cannot be left out.
  pipeline(Sink& sink, pipeline_options options, telemetry::dispatcher* events = nullptr)
    requires detail::may_leave_out_decoder<Decoder> && std::default_initializable<CheckpointPolicy> &&
             std::default_initializable<SpillPolicy>
      : pipeline(parts{}, sink, Decoder{}, CheckpointPolicy{}, SpillPolicy{}, std::move(options), events) {}
  /// As above, with the checkpoint policy's settings.
  pipeline(Sink& sink, CheckpointPolicy checkpoint, pipeline_options options, telemetry::dispatcher* events = nullptr)
    requires detail::may_leave_out_decoder<Decoder> && std::default_initializable<SpillPolicy>
      : pipeline(parts{}, sink, Decoder{}, std::move(checkpoint), SpillPolicy{}, std::move(options), events) {}
  /// As above, with the spill policy's settings too.
  pipeline(Sink& sink, CheckpointPolicy checkpoint, SpillPolicy spill, pipeline_options options,
           telemetry::dispatcher* events = nullptr)
    requires detail::may_leave_out_decoder<Decoder>
      : pipeline(parts{}, sink, Decoder{}, std::move(checkpoint), std::move(spill), std::move(options), events) {}
  /// With the decoder, or the options it is made from.
  template <detail::decoder_setting<Decoder> DecoderSetting>
  pipeline(Sink& sink, DecoderSetting decoder, pipeline_options options, telemetry::dispatcher* events = nullptr)
    requires std::default_initializable<CheckpointPolicy> && std::default_initializable<SpillPolicy>
      : pipeline(parts{}, sink, Decoder{std::move(decoder)}, CheckpointPolicy{}, SpillPolicy{}, std::move(options),
                 events) {}
  /// With the decoder (or its options) and the checkpoint policy's settings.
  template <detail::decoder_setting<Decoder> DecoderSetting>
  pipeline(Sink& sink, DecoderSetting decoder, CheckpointPolicy checkpoint, pipeline_options options,
           telemetry::dispatcher* events = nullptr)
    requires std::default_initializable<SpillPolicy>
      : pipeline(parts{}, sink, Decoder{std::move(decoder)}, std::move(checkpoint), SpillPolicy{}, std::move(options),
                 events) {}
  /// With the decoder (or its options), the checkpoint policy's and the spill policy's settings.
  template <detail::decoder_setting<Decoder> DecoderSetting>
  pipeline(Sink& sink, DecoderSetting decoder, CheckpointPolicy checkpoint, SpillPolicy spill, pipeline_options options,
           telemetry::dispatcher* events = nullptr)
      : pipeline(parts{}, sink, Decoder{std::move(decoder)}, std::move(checkpoint), std::move(spill),
                 std::move(options), events) {}
  /// A decoder configured by its options, left out: refused, because a default one would ask its
  /// plugin for nothing (no publications, no tables) and every start would be refused.
  template <class First, class... Rest>
  pipeline(Sink& sink, First&&, Rest&&...)
    requires detail::configured_by_options<Decoder> && (std::same_as<std::remove_cvref_t<First>, pipeline_options> ||
                                                        std::same_as<std::remove_cvref_t<First>, CheckpointPolicy>)
      : sink_(sink), state_({}, nullptr), snapshot_(state_, {}) {
    static_assert(detail::always_false<First>,
                  "replicant: pipeline: this Decoder is configured by its options (pgoutput_options: the "
                  "publications; wal2json_options: the tables; pglogical_options: the replication sets): pass them, "
                  "or the decoder, right after the sink");
  }
  /// Another decoder, or another decoder's options: refused, because each decoder names its table
  /// set in its own options, and those of one decoder mean nothing to another.
  template <class Other, class Options>
  pipeline(Sink& sink, Other, const Options&, telemetry::dispatcher* = nullptr)
    requires detail::foreign_decoder_settings<Other, Decoder>
      : sink_(sink), state_({}, nullptr), snapshot_(state_, {}) {
    static_assert(detail::always_false<Other>,
                  "replicant: pipeline: the decoder settings given belong to another Decoder. The table set is named "
                  "per decoder: pgoutput_decoder streams the publications of pgoutput_options::publications, "
                  "wal2json_decoder the tables of wal2json_options::tables, pglogical_decoder the replication sets of "
                  "pglogical_options::replication_sets");
  }
  pipeline(const pipeline&) = delete;
  auto operator=(const pipeline&) -> pipeline& = delete;
  /// Stops a running pipeline and waits for its threads.
  ~pipeline();

  /**
   * Streams until stop() or a halt.
   *
   * @throws replicant::error on a halt or a start-time rejection (its details() say why, value-free);
   * an exception thrown by the sink is rethrown unchanged after the pipeline has stopped (nothing
   * past the failed transaction was acknowledged).
   */
  auto run() -> void;

  /**
   * As run(), without throwing: @p ec is cleared after stop(), `errc::halted` after a halt or a
   * start-time rejection (last_halt() then says why: its `reason` and the value-free details), or
   * `errc::connection_failed` after a stop() while no connection had ever been made. A sink
   * exception becomes the halt `sink_failed`.
   *
   * @par Example
   * @code
   * std::error_code ec;
   * p.run(ec);
   * if (ec == replicant::errc::halted && p.last_halt()->reason == replicant::halt_reason::slot_invalidated) resync();
   * @endcode
   */
  auto run(std::error_code& ec) noexcept -> void;

  /// Asks run() to return: it closes the stream cleanly (CopyDone) after acknowledging what is
  /// durable. Safe from any thread and from a signal handler.
  auto stop() noexcept -> void;

  /// Why the last run() halted or refused to start, if it did (then run(ec) reported `errc::halted`).
  [[nodiscard]] auto last_halt() const noexcept -> const std::optional<halt>& { return state_.halted; }

  /// Whether run() returned because it reached `pipeline_options::end_lsn` (rather than a stop()
  /// or a halt). Safe from any thread.
  [[nodiscard]] auto reached_end() const noexcept -> bool { return state_.end_reached.load(); }

  /**
   * The position known durable: the last one acknowledged to the server, or, until a later one is,
   * the checkpoint run() resumed from (the sink's or the store's, or a snapshot's consistent point).
   * 0/0 before either. Safe from any thread.
   */
  [[nodiscard]] auto durable_lsn() const noexcept -> lsn { return state_.durable_lsn(); }

 private:
  // The simulator drives the delivery in-process, frame by frame (include/replicant/testing/).
  template <class>
  friend class testing::detail::engine_run;

  // What every public constructor delegates to: the policies made, in the template's order.
  struct parts {};
  pipeline(parts, Sink& sink, Decoder decoder, CheckpointPolicy checkpoint, SpillPolicy spill, pipeline_options options,
           telemetry::dispatcher* events);

  using session = detail::engine_session<CheckpointPolicy, Sink>;
  struct engine_hooks;
  using applier = detail::engine_delivery<CheckpointPolicy, Sink, engine_hooks>;
  // What a session's connect chain, delivery and loop reach of the pipeline beyond the engine's
  // state: the incremental snapshot, the end position, a checkpoint write overdue after a stop.
  struct engine_hooks {
    pipeline* p;
    [[nodiscard]] auto snapshot_active() const noexcept -> bool { return p->snapshot_.active(); }
    auto snapshot_transaction(applier& a, transaction& t) -> std::optional<result<void>> {
      return p->snapshot_.transaction(a, t);
    }
    auto snapshot_reshaped(applier& a, const schema_change& c) -> void { p->snapshot_.reshaped(a, c); }
    auto snapshot_failed(applier& a) -> bool { return p->snapshot_.failed(a); }
    auto prepare_incremental(session& s) -> result<void> { return p->snapshot_.prepare(s); }
    auto reach_end() noexcept -> void { p->reach_end(); }
    auto interrupt_overdue_store_write() noexcept -> void { p->interrupt_overdue_store_write(); }
  };
  enum class session_end { stopped, reconnect, halted };

  auto run_loop() -> void;
  auto ready_to_run() -> bool;
  auto retry_after(std::error_code error, const session& s, detail::connect_attempts& tries) -> bool;
  auto count_command_error(detail::connect_attempts& tries, errc error_class) -> void;
  auto halt_on_command_errors(const session& s, const detail::connect_attempts& tries) -> void;
  auto announce_slot_refusal() -> void;
  auto connect(session& s) -> result<pq::replication_stream>;
  template <server_session Server>
  auto connect_on(session& s, Server& server) -> result<typename Server::stream_type>;
  template <server_stream Stream, server_probe Probe>
  auto stream(session& s, Stream&& stream, Probe& probe) -> session_end;
  auto session_ended(session& s, applier& a) -> session_end;
  auto prepare_spill(session& s, applier& a) -> bool;
  auto halt_with(halt h) -> void;
  auto reach_end() noexcept -> void;
  auto report_halt(const halt& h) -> void;
  auto refused(const pq::connect_refusal& r) -> void;
  [[nodiscard]] auto validate_options() const -> halt_or<void>;
  // What the decoder's options ask of the plugin (a view into decoder_).
  [[nodiscard]] auto plugin() const noexcept -> plugin_settings { return decoder_.settings(); }
  auto interrupt_overdue_store_write() noexcept -> void;

  // User code outside a sink call: its exception becomes `errc::sink_failed` (engine_state::call_user).
  template <class Call>
  auto call_user(Call&& call) -> decltype(std::forward<Call>(call)()) {
    return state_.call_user(std::forward<Call>(call));
  }

  template <class Event, class... Fields>
  auto emit(const Fields&... fields) noexcept -> void {
    state_.template emit<Event>(fields...);
  }

  Sink& sink_;
  CheckpointPolicy policy_;  // the settings; each session's delivery carries the behaviour
  [[no_unique_address]] SpillPolicy spill_;
  Decoder decoder_;                  // the plugin's side: options, START, translation; used by the session thread only
  detail::engine_state state_;       // what the sessions share with the rest of the engine
  detail::pq_probe probe_;           // the session thread's own connection for checks and heartbeats
  detail::side_checks side_checks_;  // the checks made on a probe: failures in a row, for this run()
  detail::engine_snapshot<CheckpointPolicy, Sink> snapshot_;  // the incremental snapshot, when asked for
};

/**
 * The common instantiation: a @ref pipeline over pgoutput, PostgreSQL's own output plugin, whose sink
 * keeps its own checkpoint and whose transactions are held in memory, unless told otherwise. Most
 * programs name only their sink; the full form stays for another decoder.
 *
 * @tparam Sink the user's sink, as for @ref pipeline.
 * @tparam CheckpointPolicy who owns the checkpoint: @ref sink_owned_checkpoint unless given.
 * @tparam SpillPolicy what happens to transactions larger than memory: @ref no_spill (halt) unless
 * given.
 *
 * @par Example
 * @code
 * replicant::pgoutput_pipeline<my_sink> p{sink, replicant::pgoutput_options{.publications = {"shop_pub"}}, o};
 * // the same type as
 * // replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill, my_sink>
 * @endcode
 *
 * @par Thread safety
 * As @ref pipeline.
 */
template <class Sink, class CheckpointPolicy = sink_owned_checkpoint, class SpillPolicy = no_spill>
using pgoutput_pipeline = pipeline<pgoutput_decoder, CheckpointPolicy, SpillPolicy, Sink>;

}  // namespace replicant

// The bodies, one impl/ header per seam of the engine, none of which includes the pipeline back:
// the constructor, stop and the run loop first, then the parts.
#include <replicant/pipeline/impl/pipeline.hpp>

#include <replicant/pipeline/impl/connect.hpp>
#include <replicant/pipeline/impl/session.hpp>

#endif  // REPLICANT_PIPELINE_PIPELINE_HPP
