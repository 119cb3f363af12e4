// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_ENGINE_SESSION_HPP
#define REPLICANT_PIPELINE_DETAIL_ENGINE_SESSION_HPP

// One connection of a pipeline: what its connect chain learned, how it ended, and the engine's
// side of the checkpoint policy's delivery (delivery_services), which the policy reaches through
// its checkpoint_context. It sees the engine through its detail::engine_state only, and the sink
// and policy it was made with.

#include <replicant/assembler/assembler.hpp>
#include <replicant/checkpoint/policy.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/decoder/pgoutput_protocol.hpp>
#include <replicant/pipeline/detail/engine_state.hpp>
#include <replicant/pipeline/detail/publication_definition.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

namespace replicant::detail {

// What one connection of the pipeline learned in its connect chain, and how its session ended.
struct pipeline_session {
  // The server sent a frame, data or keepalive: the session streamed, so the errors that end it are
  // not the command errors that max_command_retries bounds.
  std::atomic<bool> frame_received{false};
  std::atomic<bool> end_requested{false};  // stop or halt: end the session (a snapshot reader may ask too)
  int walsender_pid = 0;
  std::error_code error;  // why the session ended, if not asked to
  std::string sqlstate;
  pq::connect_refusal refusal;  // why the server refused the connection for good, when it did
  std::optional<std::int64_t> too_slow_lag;
  std::optional<lsn> origin;
  bool slot_created = false;
  bool standby = false;  // the server was in recovery when the session began
  std::uint32_t server_version = 0;
  std::uint32_t protocol = 0;                              // the pgoutput protocol START_REPLICATION asked for
  pgoutput_streaming streaming = pgoutput_streaming::off;  // and the streaming mode
  // What the publications published when the pipeline's first session began (pgoutput, with the
  // publication check on); the periodic check adds what was added since.
  std::optional<publication_definitions> publications;
};

template <class CheckpointPolicy, class Sink>
struct engine_session final : pipeline_session, delivery_services {
  using delivery_type = delivery_of<CheckpointPolicy, Sink>;
  using sink_type = Sink;

  engine_session(engine_state& engine, Sink& to, CheckpointPolicy& policy)
      : state(engine), sink(to), delivery(policy) {}

  engine_state& state;
  Sink& sink;
  delivery_type delivery;          // the checkpoint policy's behaviour for this connection
  assembler* assembled = nullptr;  // the applier's, while it runs
  std::optional<halt> failed;      // why this session halts, once decided
  std::error_code spill_failed;    // a spilled transaction could not be read back (the assembler's
                                   // transactions record it here)

  [[nodiscard]] auto context() noexcept -> checkpoint_context<Sink> { return {*this, sink}; }

  // Moves a halt this session's delivery decided (during the connect chain) to the engine's; true
  // when the engine has halted.
  auto adopt_halt() -> bool {
    if (failed) state.halted = std::move(*std::exchange(failed, std::nullopt));
    return state.halted.has_value();
  }

  // Moves the durable position to @p to: never past an outstanding PREPARE, or the server would
  // then send only its COMMIT PREPARED.
  auto advance(lsn to) -> void {
    if (assembled != nullptr) {
      if (const auto prepared = assembled->oldest_prepare_lsn()) to = std::min(to, *prepared);
    }
    if (to.value() > state.durable.load()) state.durable.store(to.value());
  }

  auto persisted(lsn commit, lsn end) -> void override {
    // A transaction that could not be read back whole is never acknowledged, whatever the policy
    // concluded from the sink's answer.
    if (spill_failed) {
      halt h = to_halt(halt_reason::spill_io_failed, spill_failed);
      h.at = commit;
      halt_with(std::move(h));
      return;
    }
    if (!state.checkpoint || *state.checkpoint < commit) state.checkpoint = commit;
    if (assembled != nullptr) assembled->prepares_durable_through(commit);
    advance(end);
    state.template emit<telemetry::events::checkpoint_advanced>(telemetry::keys::commit_lsn = commit);
  }
  auto release(transaction&& t) noexcept -> void override {
    if (assembled != nullptr) assembled->recycle(std::move(t));
  }
  auto halt_with(halt h) -> void override {
    if (!failed) failed = std::move(h);
  }
  [[nodiscard]] auto halted() const noexcept -> bool override { return failed.has_value() || state.halted.has_value(); }
  auto keep_exception(std::exception_ptr e) noexcept -> void override { state.sink_exception = std::move(e); }
  [[nodiscard]] auto spill_failure() const noexcept -> std::error_code override { return spill_failed; }
  auto sleep(std::chrono::milliseconds d) noexcept -> void override { state.sleep(d); }
  [[nodiscard]] auto stopping() const noexcept -> bool override { return state.stopping.load(); }
  auto writing(bool on) noexcept -> void override { state.writing(on); }
  [[nodiscard]] auto slot() const noexcept -> const slot_name& override { return *state.slot; }
  [[nodiscard]] auto budget() const noexcept -> std::size_t override { return state.options.max_inflight_bytes; }
  [[nodiscard]] auto events() const noexcept -> telemetry::dispatcher* override { return state.events; }
  [[nodiscard]] auto now() const noexcept -> std::chrono::steady_clock::time_point override {
    return state.clock.now();
  }
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_ENGINE_SESSION_HPP
