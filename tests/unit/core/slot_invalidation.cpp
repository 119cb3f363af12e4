// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The classes of a slot invalidation: stable names (the `kind` operators alert on), a parse that
// is their inverse, and the halt that carries one. How the server's columns map onto them is in
// tests/unit/pipeline/slot_state.cpp; tests/integration/pipeline.cpp and topology.cpp provoke each
// class on real servers.
#include <replicant/core/slot_invalidation.hpp>

#include <replicant/core/halt.hpp>

#include <boost/test/unit_test.hpp>

#include <set>
#include <sstream>
#include <string>
#include <string_view>

BOOST_AUTO_TEST_SUITE(core_slot_invalidation_tests)

using replicant::slot_invalidation;

BOOST_AUTO_TEST_SUITE(slot_invalidation_enum)

BOOST_AUTO_TEST_CASE(every_class_has_a_distinct_stable_name) {
  std::set<std::string_view> names;
  for (const slot_invalidation c : replicant::slot_invalidations) {
    BOOST_TEST(names.insert(replicant::to_string(c)).second, replicant::to_string(c));
  }
  // PostgreSQL's own words where it has them, and the generic class: never to change.
  BOOST_TEST((names == std::set<std::string_view>{"wal_removed", "rows_removed", "wal_level_insufficient",
                                                  "idle_timeout", "invalidated"}));
  BOOST_TEST(replicant::to_string(slot_invalidation{}) == "unknown");
}

BOOST_AUTO_TEST_CASE(names_round_trip) {
  for (const slot_invalidation c : replicant::slot_invalidations) {
    BOOST_TEST((replicant::parse_slot_invalidation(replicant::to_string(c)) == c));
  }
  BOOST_TEST(!replicant::parse_slot_invalidation("").has_value());
  BOOST_TEST(!replicant::parse_slot_invalidation("Wal_Removed").has_value());
  BOOST_TEST(!replicant::parse_slot_invalidation("unknown").has_value());
  static_assert(replicant::parse_slot_invalidation("idle_timeout") == slot_invalidation::idle_timeout);
  std::ostringstream out;
  out << slot_invalidation::rows_removed;
  BOOST_TEST(out.str() == "rows_removed");
}

BOOST_AUTO_TEST_CASE(a_halt_carries_and_describes_its_class) {
  const replicant::halt h{.reason = replicant::halt_reason::slot_invalidated,
                          .invalidation = slot_invalidation::wal_level_insufficient};
  const std::string d = replicant::describe(h);
  BOOST_TEST(d.find("slot_invalidated (") != std::string::npos, d);
  BOOST_TEST(d.find("; invalidation wal_level_insufficient; ") != std::string::npos, d);
  // A halt without a class says nothing about one.
  BOOST_TEST(replicant::describe(replicant::halt{.reason = replicant::halt_reason::slot_invalidated})
                 .find("; invalidation ") == std::string::npos);
  BOOST_TEST((h != replicant::halt{.reason = replicant::halt_reason::slot_invalidated,
                                   .invalidation = slot_invalidation::invalidated}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // core_slot_invalidation_tests
