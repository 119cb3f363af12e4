// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_SIMULATION_HPP
#define REPLICANT_TESTING_SIMULATION_HPP

/// @file
/// What a sink (or a store, or a spill model) under the simulator is handed: the places where the
/// simulator may crash the process, the faults it may inject, and the durable writes that land
/// later (an asynchronous sink's).

#include <replicant/checkpoint/deferred.hpp>

#include <cstdint>
#include <functional>
#include <utility>

namespace replicant::testing {

/// How a sink call that the simulator makes fail fails.
enum class sink_fault : std::uint8_t {
  none,       ///< it does its work
  error,      ///< it returns an error
  exception,  ///< it throws
};

/**
 * The simulator's side of one process incarnation, for a sink over durable state @p State.
 *
 * A sink calls crash_point() between the steps of its work, above all just before and just after
 * its durable write: the simulator may crash the process there, and then restarts it on the
 * durable state as it was at that moment. It asks fault() once per call whether the call fails.
 * An asynchronous (deferred) sink hands its durable write and its confirmation to later(): the
 * simulator lands the writes in the order they were handed (as a broker's pipelined writes land;
 * a crash keeps the first few of those in flight), and confirms landed ones when its schedule
 * says: late, in any order, or never, when a crash comes first.
 *
 * @tparam State the sink's durable state: what survives a crash (copied when one happens).
 *
 * @par Thread safety
 * Single-threaded: the simulator runs the engine, the sink and the confirmations on one thread.
 */
template <class State>
class simulation {
 public:
  /// What the simulator does at a crash point, and how it answers fault().
  struct hooks {
    std::function<void()> crash_point;                                     ///< may crash here
    std::function<sink_fault()> fault;                                     ///< whether this call fails
    std::function<void(std::function<void(State&)>, confirmation)> later;  ///< a write that lands later
  };

  /// A simulation over @p h (made by the simulator).
  explicit simulation(hooks h) : hooks_(std::move(h)) {}

  /// A point where the process may crash: what is durable in the state now is what survives.
  auto crash_point() -> void { hooks_.crash_point(); }

  /// Whether the sink call in progress fails, and how (call once per call, at its start).
  [[nodiscard]] auto fault() -> sink_fault { return hooks_.fault(); }

  /// A durable write that lands later, followed by the transaction's @p c confirmation (for a
  /// sink under `deferred_checkpoint`). @p write is applied to the state that is durable then.
  auto later(std::function<void(State&)> write, confirmation c) -> void {
    hooks_.later(std::move(write), std::move(c));
  }

 private:
  hooks hooks_;
};

}  // namespace replicant::testing

#endif  // REPLICANT_TESTING_SIMULATION_HPP
