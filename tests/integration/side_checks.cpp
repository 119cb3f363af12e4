// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The checks a live pipeline makes of its own progress, failing closed. The in-flight lag
// (max_inflight_lag, the reference's bound), measured on the replication stream itself, halts
// sink_too_slow as soon as a sink that takes transactions and stalls lets it grow past the bound.
// The checks made beside the stream on a second, ordinary connection (the publications, the WAL
// lag behind the server) say every time they cannot be made, and a run of max_side_check_failures
// such failures halts side_check_failed, instead of leaving the checks blind without a word.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(side_checks_tests, *boost::unit_test::label("integration"))

using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::event_log;
using replicant::test::memory_sink;
using replicant::test::wait_until;

namespace {

using memory_pipeline = replicant::pgoutput_pipeline<memory_sink>;

// A deferred-acknowledgement sink that takes every transaction and never confirms one: a broker
// that stopped answering. Its confirmations are kept (dropping one would fail it). An append log,
// so that no idle advance moves the slot either: what the slot acknowledges is the sink's alone.
struct stalled_sink {
  static constexpr replicant::sink_kind kind = replicant::sink_kind::append_log;
  std::mutex mutex;
  std::vector<replicant::confirmation> pending;

  auto checkpoint() -> result<std::optional<lsn>> { return std::optional<lsn>{}; }
  auto handle_transaction(const replicant::transaction&, replicant::confirmation c) -> result<void> {
    const std::lock_guard lock{mutex};
    pending.push_back(std::move(c));
    return {};
  }
  auto handed() -> std::size_t {
    const std::lock_guard lock{mutex};
    return pending.size();
  }
};

using stalled_pipeline = replicant::pgoutput_pipeline<stalled_sink, replicant::deferred_checkpoint>;

// Commits rows @p first.. @p first + @p n - 1 of `items`, one transaction each, 200 bytes of label
// apiece.
auto write_rows(replicant::test::published_database& f, int first, int n) -> void {
  f.sql("DO $$ BEGIN FOR i IN " + std::to_string(first) + ".." + std::to_string(first + n - 1) +
        " LOOP INSERT INTO items VALUES (i, repeat('y', 200), i); COMMIT; END LOOP; END $$");
}

// Creates the slot of @p f (the pipeline stops as soon as it streams), so that what is written
// next is waiting for the pipeline that follows.
auto create_slot(replicant::test::published_database& f) -> void {
  memory_sink sink;
  replicant::test::running<memory_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
  BOOST_TEST(!r.stop());
}

// The application name of the pipeline's sessions (set by name_sessions()), which tells its probe
// apart from the harness's own pooled sessions in the same database.
constexpr const char* pipeline_application = "replicant_side_checks";

// Names the sessions the pipeline of @p f opens, so that probe_sessions() finds its probe only.
auto name_sessions(replicant::test::published_database& f) -> void {
  f.options.conninfo += std::string{" application_name="} + pipeline_application;
}

// The ordinary sessions the pipeline of @p f holds in its database: its probe, once open. (The
// harness pools sessions of its own there, so counting every session would find one before the
// pipeline has even connected, and refusing connections then would refuse the stream itself.)
auto probe_sessions(replicant::test::published_database& f) -> std::string {
  return f.pg.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + f.db +
                     "' AND backend_type = 'client backend' AND application_name = '" + pipeline_application + "'");
}

// Refuses every new connection to @p f's database (superusers' too) and ends the ordinary
// sessions in it, the pipeline's probe among them, while the walsender, already streaming, goes
// on. Undone by allow_connections().
auto refuse_connections(replicant::test::published_database& f) -> void {
  f.pg.sql("ALTER DATABASE " + f.db + " ALLOW_CONNECTIONS false");
  f.pg.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + f.db +
           "' AND backend_type = 'client backend'");
}

auto allow_connections(replicant::test::published_database& f) -> void {
  f.pg.sql("ALTER DATABASE " + f.db + " ALLOW_CONNECTIONS true");
}

// A run of side checks that could not be made, as @p events recorded them: one event per failure
// of the check @p kind, counted 1, 2, ... up to the bound @p bound.
auto check_failures_reported(event_log& events, std::string_view kind, int bound) -> void {
  const std::string event = "replicant.connection.side_check_failed kind=" + std::string{kind};
  BOOST_TEST(events.count(event) == static_cast<std::size_t>(bound), events.last(10, "side_check_failed"));
  for (int n = 1; n <= bound; ++n) {
    BOOST_TEST(events.contains("attempt=" + std::to_string(n) + " max_retries=" + std::to_string(bound)),
               events.last(10, "side_check_failed"));
  }
}

}  // namespace

// A sink that takes transactions and stalls (a deferred sink whose confirmations stop) holds the
// stream back only when its window is full; until then the pipeline reads on, and what it has
// received and not made durable grows. Past max_inflight_lag the pipeline halts at once, measured
// on the stream itself, and acknowledges nothing it was not told is durable.
BOOST_AUTO_TEST_CASE(a_stalled_sink_halts_sink_too_slow_when_the_in_flight_lag_passes_the_bound) {
  replicant::test::published_database f;
  create_slot(f);
  const lsn acknowledged = f.confirmed_flush();
  write_rows(f, 1, 2000);  // about 600 KiB of WAL, ten times the bound
  f.options.max_inflight_lag = 64 * 1024;
  f.options.max_wal_lag = 0;  // only the in-flight bound
  stalled_sink sink;
  const replicant::deferred_checkpoint window{
      .max_unconfirmed = 1'000'000, .max_unconfirmed_bytes = 1U << 30U, .confirm_timeout = 20s};
  event_log events;
  replicant::test::running<stalled_pipeline> r{sink, f.pgoutput, window, f.options, &events.dispatcher};
  // Well within the confirmation timeout, which would halt sink_failed instead (and bounds how long
  // this test takes when the lag goes unmeasured).
  BOOST_TEST_REQUIRE(r.ends_within(15s), "a stalled sink's lag did not halt the pipeline");
  BOOST_TEST(r.halted() == halt_reason::sink_too_slow);
  const auto lag = r.pipeline.last_halt()->lag_bytes.value();
  BOOST_TEST(lag > 64 * 1024);
  // Halted when the bound was crossed, not after everything was read.
  BOOST_TEST(sink.handed() < 2000U);
  BOOST_TEST(events.disconnected(halt_reason::sink_too_slow));
  BOOST_TEST(events.contains(" lag=" + std::to_string(lag)), events.last(2, "disconnected"));
  BOOST_TEST(events.contains("lag_bytes=" + std::to_string(lag)), events.last(2, "disconnected"));
  // Nothing was confirmed, so nothing was acknowledged.
  BOOST_TEST(f.confirmed_flush() == acknowledged);
}

// The publication check's connection is refused (the database takes no new connection while the
// walsender streams on): every failed check is reported, and the bound's worth of them in a row
// halts side_check_failed. Once connections are allowed again, a restart streams on.
BOOST_AUTO_TEST_CASE(a_refused_publication_check_is_reported_and_halts_side_check_failed_after_the_bound) {
  replicant::test::published_database f;
  memory_sink sink;
  f.options.publication_check_interval = 200ms;
  name_sessions(f);
  f.options.max_wal_lag = 0;  // only the publication check uses the second connection
  f.options.max_side_check_failures = 3;
  {
    event_log events;
    replicant::test::running<memory_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
    BOOST_TEST_REQUIRE(wait_until([&] { return probe_sessions(f) != "0"; }));
    refuse_connections(f);
    const bool ended = r.ends_within(60s);
    allow_connections(f);
    BOOST_TEST_REQUIRE(ended, "refused publication checks did not halt the pipeline");
    BOOST_TEST(r.halted() == halt_reason::side_check_failed);
    check_failures_reported(events, "publications", 3);
    BOOST_TEST(events.disconnected(halt_reason::side_check_failed));
    BOOST_TEST(!events.contains("kind=wal_lag"));
  }
  // Nothing was lost: a restart delivers what was written meanwhile.
  f.sql("INSERT INTO items VALUES (2, 'b', 2)");
  replicant::test::running<memory_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST(sink.wait_for_rows(2));
  BOOST_TEST(!r.stop());
}

// The same for the WAL-lag check behind the server, which runs while a slow sink holds the stream
// back: its connection refused, each failed measurement is reported, and the run halts.
BOOST_AUTO_TEST_CASE(a_refused_wal_lag_check_is_reported_and_halts_side_check_failed_after_the_bound) {
  replicant::test::published_database f;
  create_slot(f);
  // A backlog of about a minute at the sink's pace, far longer than the three failed checks take
  // even on a loaded machine: the stream must still be held back when the probe is refused, since
  // a stream that caught up has no lag to measure (and no check to fail).
  constexpr int backlog = 20000;
  write_rows(f, 1, backlog);
  memory_sink sink;
  sink.before_store = [](const replicant::transaction&) -> result<void> {
    std::this_thread::sleep_for(3ms);
    return {};
  };
  // Short reads (about 25 transactions, 75 ms of the sink's), so that input keeps waiting between
  // two of them. A read whose delivery outlasted the status interval would let the keepalive
  // guard take the waiting input in, and the lag is measured only while input waits.
  f.options.max_inflight_bytes = 8 * 1024;
  // The lag measured once a second, and a status interval no read's delivery outlasts, even
  // sanitized on a shared machine.
  f.options.status_interval = 1s;
  f.options.max_wal_lag = 1U << 30U;  // never crossed: only the check's failures halt
  f.options.publication_check_interval = 0ms;
  f.options.max_side_check_failures = 3;
  name_sessions(f);
  event_log events;
  replicant::test::running<memory_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return probe_sessions(f) != "0"; }));
  refuse_connections(f);
  const bool ended = r.ends_within(60s);
  allow_connections(f);
  BOOST_TEST_REQUIRE(ended, "refused WAL-lag checks did not halt the pipeline");
  BOOST_TEST(r.halted() == halt_reason::side_check_failed);
  check_failures_reported(events, "wal_lag", 3);
  BOOST_TEST(events.disconnected(halt_reason::side_check_failed));
  BOOST_TEST(sink.snapshot().size() < static_cast<std::size_t>(backlog));
}

// A bound of 0 never halts: the failures are still reported, one by one.
BOOST_AUTO_TEST_CASE(a_bound_of_zero_reports_refused_checks_without_halting) {
  replicant::test::published_database f;
  memory_sink sink;
  f.options.publication_check_interval = 200ms;
  f.options.max_wal_lag = 0;
  f.options.max_side_check_failures = 0;
  name_sessions(f);
  event_log events;
  replicant::test::running<memory_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  BOOST_TEST_REQUIRE(wait_until([&] { return probe_sessions(f) != "0"; }));
  refuse_connections(f);
  const bool reported = wait_until([&] { return events.contains("kind=publications error_class="); }, 30s) &&
                        wait_until([&] { return events.contains(" attempt=5 max_retries=0"); }, 30s);
  allow_connections(f);
  BOOST_TEST(reported, events.last(5, "side_check_failed"));
  BOOST_TEST(!r.ends_within(1s));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_SUITE_END()
