// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A slot's invalidation class from the pg_replication_slots columns each server version has: 15
// (wal_status, restart_lsn), 16 (+ conflicting), 17 and 18 (+ invalidation_reason). The live side, each class
// provoked on real servers, is in tests/integration/pipeline.cpp and topology.cpp.
#include <replicant/pipeline/detail/slot_state.hpp>

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string_view>

BOOST_AUTO_TEST_SUITE(pipeline_slot_state_tests)

using replicant::slot_invalidation;
using replicant::detail::slot_invalidation_columns;
using replicant::detail::slot_invalidation_from_server;
using replicant::detail::slot_invalidation_of;

BOOST_AUTO_TEST_SUITE(slot_state)

BOOST_AUTO_TEST_CASE(a_valid_slot_has_no_class) {
  for (const std::string_view status : {"reserved", "extended", "unreserved"}) {
    BOOST_TEST(!slot_invalidation_of({.wal_status = status}).has_value(), status);                      // 15
    BOOST_TEST(!slot_invalidation_of({.wal_status = status, .conflicting = "f"}).has_value(), status);  // 16
    BOOST_TEST(!slot_invalidation_of({.wal_status = status, .conflicting = "f", .invalidation_reason = {}})
                    .has_value());  // 17, 18
  }
  // A slot whose restart_lsn was never set has no wal_status.
  BOOST_TEST(!slot_invalidation_of({}).has_value());
}

BOOST_AUTO_TEST_CASE(fifteen_can_only_lose_wal) {
  BOOST_TEST((slot_invalidation_of({.wal_status = "lost"}) == slot_invalidation::wal_removed));
  BOOST_TEST(
      (slot_invalidation_of({.wal_status = "lost", .restart_lsn = "0/1A2B3C4"}) == slot_invalidation::wal_removed));
}

// 16 shows every invalidated slot as conflicting and lost, and clears the restart position of one
// whose WAL was removed only: a conflicting slot that kept it is one of the two standby classes,
// which 16 does not tell apart.
BOOST_AUTO_TEST_CASE(sixteen_tells_removed_wal_from_a_conflict_it_does_not_name) {
  BOOST_TEST((slot_invalidation_of({.wal_status = "lost", .restart_lsn = {}, .conflicting = "t"}) ==
              slot_invalidation::wal_removed));
  BOOST_TEST((slot_invalidation_of({.wal_status = "lost", .restart_lsn = "0/1A2B3C4", .conflicting = "t"}) ==
              slot_invalidation::invalidated));
  // Should a 16 ever show a lost slot that is not conflicting, its WAL is what it lost.
  BOOST_TEST((slot_invalidation_of({.wal_status = "lost", .restart_lsn = {}, .conflicting = "f"}) ==
              slot_invalidation::wal_removed));
}

BOOST_AUTO_TEST_CASE(seventeen_and_later_name_the_class) {
  for (const auto c : {slot_invalidation::wal_removed, slot_invalidation::rows_removed,
                       slot_invalidation::wal_level_insufficient, slot_invalidation::idle_timeout}) {
    const auto name = replicant::to_string(c);
    BOOST_TEST((slot_invalidation_from_server(name) == c), name);
    // Whatever else the row says: a conflict flag, a lost or still reserved status.
    BOOST_TEST((slot_invalidation_of({.wal_status = "lost", .conflicting = "t", .invalidation_reason = name}) == c));
    BOOST_TEST((slot_invalidation_of({.wal_status = "lost", .conflicting = "f", .invalidation_reason = name}) == c));
    BOOST_TEST((slot_invalidation_of({.wal_status = "reserved", .invalidation_reason = name}) == c));
  }
}

// A reason a later server adds halts all the same, as the generic class; its text goes nowhere.
BOOST_AUTO_TEST_CASE(an_unknown_reason_is_the_generic_class) {
  for (const std::string_view reason : {"", "invalidated", "horizon", "WAL_REMOVED", "wal_removed ", "s3cr3t"}) {
    BOOST_TEST((slot_invalidation_from_server(reason) == slot_invalidation::invalidated), reason);
    BOOST_TEST((slot_invalidation_of({.wal_status = "reserved", .invalidation_reason = reason}) ==
                slot_invalidation::invalidated));
  }
  static_assert(slot_invalidation_from_server("rows_removed") == slot_invalidation::rows_removed);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // pipeline_slot_state_tests
