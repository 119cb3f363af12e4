// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The point-in-time snapshot start mode against a real server, once per PostgreSQL major: existing
// rows are handed over as of the slot's exported snapshot, streaming takes over at its consistent
// point, and under a concurrent writer the sink ends equal to the source row for row. An
// interrupted snapshot is reported on the next start rather than silently skipped.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/sinks/dedup_checkpoint.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

BOOST_AUTO_TEST_SUITE(snapshots_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::event_log;
using replicant::test::running;
using replicant::test::wait_until;

namespace {

constexpr std::string_view secret = "s3cr3t-SNAP-2718";

// A state mirror in memory: id -> label, with the checkpoint stored alongside (as one unit).
struct mirror_sink : replicant::test::dedup_checkpoint {
  std::mutex mutex;
  std::map<std::int64_t, std::string> rows;
  std::uint64_t snapshot_rows = 0;
  int snapshot_batches = 0;
  int fail_snapshot_batch = -1;  // this batch fails (0-based), to interrupt the snapshot

  auto checkpoint() -> result<std::optional<lsn>> {
    const std::lock_guard lock{mutex};
    return dedup_checkpoint::checkpoint();
  }
  auto handle_snapshot(const replicant::snapshot_batch& batch, const replicant::snapshot_context& ctx) -> result<void> {
    const std::lock_guard lock{mutex};
    if (snapshot_batches++ == fail_snapshot_batch) return replicant::fail(replicant::errc::sink_failed);
    if (ctx.first_for_table) rows.clear();
    for (const auto& c : batch) {
      rows[c.record().value("id")->get<std::int64_t>()] = label(c.record());
      ++snapshot_rows;
    }
    return {};
  }
  auto handle_snapshot_complete(lsn at) -> result<void> {
    const std::lock_guard lock{mutex};
    store(at);
    return {};
  }
  auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
    const std::lock_guard lock{mutex};
    if (already_applied(t)) return t.commit_lsn();
    for (const auto& c : t.changes()) {
      switch (c.op()) {
        case replicant::change_op::insert:
        case replicant::change_op::update: rows[c.record().value("id")->get<std::int64_t>()] = label(c.record()); break;
        case replicant::change_op::delete_: rows.erase(c.old().value("id")->get<std::int64_t>()); break;
        default: break;
      }
    }
    store(t.commit_lsn());
    return t.commit_lsn();
  }
  static auto label(const replicant::row& r) -> std::string {
    auto v = r.value("label");
    if (!v || v->is_null()) return "<null>";
    return std::string{v->get<replicant::text>().view()};
  }
};

using snapshot_pipeline = replicant::pgoutput_pipeline<mirror_sink>;

// The source table as the mirror should hold it.
auto source_rows(replicant::test::published_database& f) -> std::map<std::int64_t, std::string> {
  std::map<std::int64_t, std::string> out;
  replicant::test::pg_connection c{f.pg.dsn(f.db)};
  auto r = c.exec("SELECT id, coalesce(label, '<null>') FROM items");
  for (int i = 0; i < r.row_count(); ++i) out[std::stoll(r.value(i, 0).value())] = r.value(i, 1).value();
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(point_in_time, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(backfills_then_streams_without_gap_or_duplicate_under_a_concurrent_writer) {
  replicant::test::published_database f;
  f.options.start = replicant::start::point_in_time_snapshot{.batch_rows = 500};
  f.sql("INSERT INTO items SELECT g, 'row ' || g, g FROM generate_series(1, 5000) g");
  f.sql("UPDATE items SET label = '" + std::string{secret} + "' WHERE id = 7");

  std::atomic<bool> writing{true};
  std::thread writer{[&] {
    replicant::test::pg_connection c{f.pg.dsn(f.db)};
    for (int i = 0; writing.load(); ++i) {
      c.exec("INSERT INTO items VALUES (" + std::to_string(10000 + i) + ", 'new', 1)");
      c.exec("UPDATE items SET label = 'changed " + std::to_string(i) + "' WHERE id = " + std::to_string(1 + i % 5000));
      if (i % 7 == 0) c.exec("DELETE FROM items WHERE id = " + std::to_string(4999 - i % 4000));
      std::this_thread::sleep_for(2ms);
    }
  }};
  mirror_sink sink;
  event_log events;
  {
    running<snapshot_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
    std::this_thread::sleep_for(1s);
    writing.store(false);
    writer.join();
    const auto end = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
    BOOST_TEST_REQUIRE(wait_until([&] {
      const std::lock_guard lock{sink.mutex};
      return sink.stored && f.confirmed_flush() >= end;
    }));
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(sink.snapshot_rows >= 5000U);
  BOOST_TEST(sink.rows == source_rows(f));
  BOOST_TEST(events.contains("replicant.snapshot.started"));
  BOOST_TEST(events.count("replicant.snapshot.table_completed") == 1U);
  BOOST_TEST(events.contains("replicant.snapshot.completed"));
  BOOST_TEST(!events.contains(secret));

  // A restart resumes from the checkpoint: no second snapshot.
  f.sql("INSERT INTO items VALUES (99999, 'after', 1)");
  const auto rows_before = sink.snapshot_rows;
  running<snapshot_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(wait_until([&] {
    const std::lock_guard lock{sink.mutex};
    return sink.rows.count(99999) == 1U;
  }));
  BOOST_TEST(sink.snapshot_rows == rows_before);
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(an_interrupted_snapshot_is_reported_on_the_next_start) {
  replicant::test::published_database f;
  f.options.start = replicant::start::point_in_time_snapshot{.batch_rows = 100};
  f.sql("INSERT INTO items SELECT g, 'row ' || g, g FROM generate_series(1, 1000) g");
  mirror_sink sink;
  sink.fail_snapshot_batch = 3;
  event_log events;
  {
    running<snapshot_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(r.halted() == halt_reason::sink_failed);
  }
  BOOST_TEST(events.contains("replicant.snapshot.failed"));
  BOOST_TEST(f.slot_exists());
  sink.fail_snapshot_batch = -1;
  {
    event_log again;
    running<snapshot_pipeline> r{sink, f.pgoutput, f.options, &again.dispatcher};
    BOOST_TEST(r.halted() == halt_reason::snapshot_incomplete);
    BOOST_TEST(again.disconnected(halt_reason::snapshot_incomplete));
  }
  // The operator's way out: drop the slot and take the snapshot again.
  f.pg.sql("SELECT pg_drop_replication_slot('" + f.slot + "')");
  running<snapshot_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(wait_until([&] {
    const std::lock_guard lock{sink.mutex};
    return sink.stored.has_value();
  }));
  BOOST_TEST(sink.rows == source_rows(f));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_snapshot_the_server_cannot_read_halts_snapshot_failed_and_delivers_nothing_past_it) {
  replicant::test::published_database f;
  f.options.start = replicant::start::point_in_time_snapshot{.batch_rows = 100};
  // A publication whose row filter divides by a column that is zero in one row: the server fails
  // the snapshot's copy midway (SQLSTATE 22012), after some batches were delivered.
  f.sql(
      "INSERT INTO items SELECT g, 's3cr3t-' || g, CASE WHEN g = 700 THEN 0 ELSE g END FROM generate_series(1, 1000) g;"
      "CREATE PUBLICATION explodes FOR TABLE items WHERE (100 / qty >= 0)");
  f.pgoutput.publications = {"explodes"};
  mirror_sink sink;
  event_log events;
  {
    running<snapshot_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(r.halted() == halt_reason::snapshot_failed);
    BOOST_TEST(r.pipeline.last_halt()->sqlstate.value_or("") == "22012");
  }
  BOOST_TEST(events.contains("replicant.snapshot.failed reason=snapshot_failed"));
  BOOST_TEST(events.contains("replicant.connection.disconnected reason=snapshot_failed"));
  // Nothing was completed: no checkpoint, and the next start says the snapshot is incomplete.
  BOOST_TEST(!sink.stored.has_value());
  running<snapshot_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST(r.halted() == halt_reason::snapshot_incomplete);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // snapshots_tests
