// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_PIPELINE_DETAIL_SESSION_CLOCK_HPP
#define REPLICANT_PIPELINE_DETAIL_SESSION_CLOCK_HPP

// The clock a streaming session runs on: its timers (status updates, batch deadlines, liveness,
// the periodic checks) and the time its checkpoint policy sees. The steady clock, unless the
// simulator (replicant/testing/) points it at the time it controls, so that a schedule replays
// the same from its seed however fast the machine is.

#include <chrono>

namespace replicant::detail {

class session_clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  [[nodiscard]] auto now() const noexcept -> time_point {
    return simulated_ == nullptr ? std::chrono::steady_clock::now() : *simulated_;
  }
  // From now on, the time is what @p t holds (it outlives the sessions that read it).
  auto simulate(const time_point* t) noexcept -> void { simulated_ = t; }

 private:
  const time_point* simulated_ = nullptr;
};

}  // namespace replicant::detail

#endif  // REPLICANT_PIPELINE_DETAIL_SESSION_CLOCK_HPP
