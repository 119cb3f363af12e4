// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_EXPLORE_HPP
#define REPLICANT_TESTING_EXPLORE_HPP

/// @file
/// replicant::testing::explore: runs a checkpoint policy, a spill policy and a sink through the
/// real engine against a simulated walsender, crashes the process at every point a schedule has,
/// restarts it on what survives, and checks that the promise holds: nothing acknowledged that a
/// crash could lose, every committed transaction stored exactly once (or at least once, within a
/// bound), in commit order, every stop a halt with a reason, no row value in any event or halt.

#include <replicant/testing/detail/explorer.hpp>
#include <replicant/testing/subject.hpp>

namespace replicant::testing {

/**
 * Explores @p what: every small world crashed at every point, then random schedules, each run
 * through a real pipeline's delivery against the simulated walsender of world.hpp.
 *
 * @par Example
 * @code
 * auto found = replicant::testing::explore<my_policy, replicant::no_spill, my_sink, my_state>(
 *     {.sink = [](my_state& s, auto& sim) { return std::make_unique<my_sink>(s, sim); },
 *      .policy = [](my_state&, auto&) { return my_policy{}; },
 *      .stored = [](const my_state& s) { return s.stored; }},
 *     {.random_schedules = 10'000});
 * BOOST_TEST(found, found.failure);
 * @endcode
 */
template <class CheckpointPolicy, class SpillPolicy, class Sink, class State>
[[nodiscard]] auto explore(const subject<CheckpointPolicy, SpillPolicy, Sink, State>& what,
                           const explore_options& options = {}) -> exploration {
  detail::explorer<CheckpointPolicy, SpillPolicy, Sink, State> e{what, options};
  return e.run();
}

}  // namespace replicant::testing

#endif  // REPLICANT_TESTING_EXPLORE_HPP
