// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The acknowledgement cadence (pipeline_options::acknowledge_delay) against a real server: a
// durable position waits for the delay before a status update reports it, so that a stream of
// small transactions costs the walsender one reply per delay, not one per transaction; a stop
// reports it at once whatever the delay; and a delay of 0 reports each durable position as soon as
// it is known, well within the status interval.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <chrono>
#include <optional>
#include <thread>

BOOST_AUTO_TEST_SUITE(acknowledgements_tests, *boost::unit_test::label("integration"))

using namespace std::chrono_literals;
using replicant::test::memory_sink;
using replicant::test::wait_until;

namespace {

using memory_pipeline = replicant::pgoutput_pipeline<memory_sink>;

// A pipeline acknowledging with @p delay (the status interval 30 s, longer than the test), and a
// row it stored: `before` is the server's WAL position before the row's transaction, which
// commits past it.
struct one_row_stored {
  replicant::test::published_database f;
  memory_sink sink;
  std::optional<replicant::test::running<memory_pipeline>> r;
  replicant::lsn before;

  explicit one_row_stored(std::chrono::milliseconds delay) {
    f.options.status_interval = 30s;
    f.options.acknowledge_delay = delay;
    r.emplace(sink, f.pgoutput, f.options);
    BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
    before = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
    f.sql("INSERT INTO items VALUES (1, 'a', 1)");
    BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
  }
};

}  // namespace

// With a delay as long as the status interval, the transaction the sink stored is not acknowledged
// while the delay runs: the slot stays where it was. The stop reports it at once.
BOOST_AUTO_TEST_CASE(a_durable_position_waits_for_the_delay_and_a_stop_reports_it_at_once) {
  one_row_stored t{30s};
  // Time for a status update to reach the server and move the slot, had one been sent.
  std::this_thread::sleep_for(1s);
  BOOST_TEST(t.f.confirmed_flush() <= t.before, "acknowledged before the delay ran out");
  BOOST_TEST(!t.r->stop());
  BOOST_TEST(t.f.confirmed_flush() > t.before, "the stop did not acknowledge the stored transaction");
}

// A delay of 0 reports the durable position as soon as it is known: long before the status
// interval would have.
BOOST_AUTO_TEST_CASE(a_delay_of_zero_acknowledges_each_durable_position_at_once) {
  one_row_stored t{0ms};
  BOOST_TEST(wait_until([&] { return t.f.confirmed_flush() > t.before; }, 20s));
  BOOST_TEST(!t.r->stop());
}

// The default delay (20 ms) acknowledges a burst of small transactions without waiting for the
// status interval, and ends at the last one.
BOOST_AUTO_TEST_CASE(the_default_delay_acknowledges_a_burst_well_within_the_status_interval) {
  replicant::test::published_database f;
  f.options.status_interval = 30s;
  memory_sink sink;
  replicant::test::running<memory_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
  f.sql("DO $$ BEGIN FOR i IN 1..200 LOOP INSERT INTO items VALUES (i, 'a', i); COMMIT; END LOOP; END $$");
  const auto after = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
  BOOST_TEST_REQUIRE(sink.wait_for_rows(200));
  // The last commit ends at or before `after`; whatever WAL follows it published nothing, which
  // an idle advance may acknowledge too.
  const auto last = *sink.checkpoint().value();
  BOOST_TEST(wait_until([&] { return f.confirmed_flush() >= last; }, 20s));
  BOOST_TEST(f.confirmed_flush() <= after);
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_SUITE_END()
