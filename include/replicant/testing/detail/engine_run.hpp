// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_DETAIL_ENGINE_RUN_HPP
#define REPLICANT_TESTING_DETAIL_ENGINE_RUN_HPP

// One connection of a real pipeline, driven in-process by the simulator: the whole connect chain
// against a simulated server, then a whole streaming session (the session loop and its checks
// beside the stream, the applier, the checkpoint policy's delivery, the spill policy, the sink)
// over its stream and a simulated probe.
// The pipeline befriends this class; nothing else reaches inside.

#include <replicant/pipeline.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace replicant::testing::detail {

template <class Pipeline>
class engine_run {
  using session = typename Pipeline::session;

 public:
  // Over @p p, whose sessions run on the simulated time @p now.
  engine_run(Pipeline& p, const std::chrono::steady_clock::time_point& now) : p_(p) {
    p_.state_.slot = slot_name::make(p_.state_.options.slot).value();
    p_.state_.clock.simulate(&now);
    // The failures of the checks beside the stream are counted for a run() (the pipeline's own).
    p_.side_checks_ = replicant::detail::side_checks{p_.state_.options.max_side_check_failures};
    session_ = std::make_unique<session>(p_.state_, p_.sink_, p_.policy_);
  }

  // The connect chain against @p server (a model of server_session): the stream it started, or
  // the error it failed with (after a halt, which halt_of() then holds).
  template <server_session Server>
  auto connect(Server& server) -> result<typename Server::stream_type> {
    return p_.connect_on(*session_, server);
  }

  // A whole streaming session over @p stream (a model of server_stream), its checks on @p probe
  // (a model of server_probe), as the pipeline runs one after its connect chain: the session loop,
  // the applier, the end. The stream and the probe stay the caller's.
  template <server_stream Stream, server_probe Probe>
  auto stream_session(Stream& stream, Probe& probe) -> void {
    static_cast<void>(p_.stream(*session_, std::move(stream), probe));  // binds: nothing is moved
  }

  [[nodiscard]] auto durable() const noexcept -> lsn { return lsn{p_.state_.durable.load()}; }
  [[nodiscard]] auto halted() const noexcept -> bool {
    return session_->failed.has_value() || p_.state_.halted.has_value();
  }
  // The halt decided: the session's, or the pipeline's once a session ended with it.
  [[nodiscard]] auto halt_of() const noexcept -> const std::optional<halt>& {
    return session_->failed ? session_->failed : p_.state_.halted;
  }

 private:
  Pipeline& p_;
  std::unique_ptr<session> session_;
};

}  // namespace replicant::testing::detail

#endif  // REPLICANT_TESTING_DETAIL_ENGINE_RUN_HPP
