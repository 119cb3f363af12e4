// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_SUBJECT_HPP
#define REPLICANT_TESTING_SUBJECT_HPP

/// @file
/// The explorer's vocabulary: what it runs (a subject: the sink over durable state, the policies,
/// what the state holds), how much it explores, what it promises, and what it found.

#include <replicant/core/lsn.hpp>
#include <replicant/testing/simulation.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace replicant::testing {

/// One transaction as a sink's durable state holds it.
struct stored_transaction {
  lsn commit_lsn{};         ///< the transaction's commit LSN
  std::size_t changes = 0;  ///< how many of its changes were stored
};

/// What a policy and its sink promise, which the explorer holds them to.
enum class guarantee : std::uint8_t {
  exactly_once,   ///< every committed transaction stored once (sink-owned, batches, deferred)
  at_least_once,  ///< stored at least once, repeats bounded per crash (library-owned)
};

/// How much the explorer explores.
struct explore_options {
  /// The seed of the random schedules (a failure prints it, with the schedule).
  std::uint64_t seed = 1;
  /// Every world of up to this many entries (every kind at every place) is crashed at every point.
  std::size_t exhaustive_events = 2;
  /// Then this many random schedules: a random world, up to `max_crashes` crashes at random points,
  /// sink faults, confirmations in random order.
  std::size_t random_schedules = 500;
  /// The largest random world.
  std::size_t max_events = 10;
  /// The most crashes in one random schedule.
  std::size_t max_crashes = 3;
  /// Random schedules make sink calls fail (returning an error, throwing), as `simulation::fault`
  /// says; the pipeline must halt with a reason, and the restart must lose nothing.
  bool sink_faults = true;
  /// Worlds include streamed transactions (the session streams in-progress transactions).
  bool streaming = true;
  /// Worlds include transactions prepared for two-phase commit, committed or rolled back later
  /// (the pipeline decodes two-phase: `pgoutput_options::two_phase`, the slot created with it).
  bool two_phase = false;
  /// The promise checked.
  guarantee promise = guarantee::exactly_once;
  /// With `at_least_once`: how many transactions one crash or halt may store again (a batch's size).
  std::size_t repeats_per_crash = 1;
};

/// What an exploration did, and the first broken promise it found.
struct exploration {
  std::uint64_t schedules = 0;  ///< schedules run (each: a world and its crashes and faults)
  std::uint64_t crashes = 0;    ///< crashes injected
  std::uint64_t halts = 0;      ///< halts the faults caused
  /// Idle advances: a state-mirror sink's slot moved past what was delivered, over WAL that
  /// carried nothing for it (bounded by the keepalives and by what the side connection says the
  /// walsender sent).
  std::uint64_t idle_advances = 0;
  /// Checks beside the stream that could not be made (the side connection refused, or its query
  /// failed): each a `connection.side_check_failed` event; a run of them halts `side_check_failed`.
  std::uint64_t side_check_failures = 0;
  /// Halts `publication_missing`: a check found the publication gone (dropped for a while in the
  /// schedule), and the pipeline stopped rather than stream on without it.
  std::uint64_t publication_halts = 0;
  /// Empty when every schedule kept the promise; else what broke, the seed, and the schedule,
  /// shrunk to a minimal one.
  std::string failure;
  /// Whether every schedule kept the promise.
  explicit operator bool() const noexcept { return failure.empty(); }
};

/**
 * What the explorer runs: how to make the sink over durable state, the checkpoint policy (whose
 * store, if any, lives in the state too), the spill policy, and how to read what the state holds.
 *
 * @tparam CheckpointPolicy a model of `checkpoint_policy_for` (the library's, or the user's).
 * @tparam SpillPolicy a `spill_policy`.
 * @tparam Sink the user's sink.
 * @tparam State what survives a crash: the sink's durable data (copyable).
 */
template <class CheckpointPolicy, class SpillPolicy, class Sink, class State>
struct subject {
  /// A sink over @p state, a new one after every crash; it calls the simulation's crash points.
  std::function<std::unique_ptr<Sink>(State& state, simulation<State>& sim)> sink;
  /// The checkpoint policy's settings for an incarnation over @p state (a store in it calls the
  /// simulation's crash points too).
  std::function<CheckpointPolicy(State& state, simulation<State>& sim)> policy;
  /// What @p state holds, in the order it was stored.
  std::function<std::vector<stored_transaction>(const State& state)> stored;
  /// The spill policy of an incarnation.
  std::function<SpillPolicy()> spill = [] { return SpillPolicy{}; };
};

}  // namespace replicant::testing

#endif  // REPLICANT_TESTING_SUBJECT_HPP
