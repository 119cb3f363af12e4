// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_DETAIL_ENGINE_RUN_HPP
#define REPLICANT_TESTING_DETAIL_ENGINE_RUN_HPP

// One connection of a real pipeline, driven in-process by the simulator: the connect chain's
// checkpoint step, then pgoutput messages pushed one at a time through the engine's own delivery
// (the assembler, the applier, the checkpoint policy's delivery, the spill policy, the sink), as
// the session loop pushes them. The pipeline befriends this class; nothing else reaches inside.

#include <replicant/pipeline.hpp>

#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <span>

namespace replicant::testing::detail {

template <class Pipeline>
class engine_run {
  using session = typename Pipeline::session;
  using applier = typename Pipeline::applier;

 public:
  explicit engine_run(Pipeline& p) : p_(p) {
    p_.slot_name_ = slot_name::make(p_.options_.slot).value();
    session_ = std::make_unique<session>(p_);
  }

  // The connect chain's checkpoint step; false when it halted.
  auto resume() -> bool {
    auto checkpoint = p_.read_checkpoint(*session_);
    if (!checkpoint) return false;
    p_.checkpoint_ = *checkpoint;
    if (p_.checkpoint_) p_.resumed_from_.store(p_.checkpoint_->value());
    return true;
  }

  // Where the engine asks the server to start (START_REPLICATION's position).
  [[nodiscard]] auto requested_start() const noexcept -> lsn { return p_.checkpoint_.value_or(lsn{}); }

  // The session's delivery, as the session loop sets it up; false when the spill policy halted.
  auto start(pgoutput_protocol protocol) -> bool {
    applier_ = std::make_unique<applier>(p_, *session_, assembler{protocol});
    return p_.prepare_spill(*session_, *applier_);
  }

  // One pgoutput message, as the session loop pushes a frame's payload.
  auto push(std::span<const std::byte> message) -> void {
    auto& a = *applier_;
    auto pushed = a.asm_.push(message, a);
    if (!pushed && !a.failed) a.failed = replicant::detail::to_halt(replicant::detail::halt_for_translation(pushed.error()), pushed.error());
  }

  // Time passes for the delivery (a batch's timer, a deferred sink's confirmations collected).
  auto tick() -> void {
    if (!halted()) static_cast<void>(applier_->tick(std::chrono::steady_clock::now()));
  }

  // A clean stop: what is held is handed over, as the session loop does on stop().
  auto stop() -> void {
    p_.stopping_.store(true);
    if (!halted()) static_cast<void>(applier_->flush());
  }

  [[nodiscard]] auto durable() const noexcept -> lsn { return lsn{p_.durable_.load()}; }
  [[nodiscard]] auto halted() const noexcept -> bool { return session_->failed.has_value(); }
  [[nodiscard]] auto halt_of() const noexcept -> const std::optional<halt>& { return session_->failed; }
  [[nodiscard]] auto holding() const noexcept -> bool { return applier_ && applier_->holding(); }

 private:
  Pipeline& p_;
  std::unique_ptr<session> session_;
  std::unique_ptr<applier> applier_;  // after the session (it refers to it)
};

}  // namespace replicant::testing::detail

#endif  // REPLICANT_TESTING_DETAIL_ENGINE_RUN_HPP
