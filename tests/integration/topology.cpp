// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Topologies on real clusters, once per PostgreSQL major: a pipeline pointed at a physical standby
// (logical decoding on a standby, 16+; refused on 15), failover slots synced to a standby and
// resumed on it after a promotion under a concurrent writer (17+; refused on 15 and 16), the halts
// around them, heartbeats keeping the WAL an idle slot retains bounded, and the two invalidations
// only a standby's slot meets (16+: catalog rows vacuumed away, the primary's wal_level lowered).
//
// The standby tests share one physical standby of the program's server (made on first use, a
// second); the failover test crashes its primary, so it has a primary and a standby of its own.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <signal.h>
#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(topology_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::test::event_log;
using replicant::test::invalidated_event;
using replicant::test::invalidation_class;
using replicant::test::live_server;
using replicant::test::memory_sink;
using replicant::test::pg_cluster;
using replicant::test::pg_connection;
using replicant::test::wait_until;

namespace {

// Written into rows; must never show up in telemetry.
constexpr std::string_view secret = "s3cr3t-TOPOLOGY-0815";

using memory_pipeline = replicant::pgoutput_pipeline<memory_sink>;
using running = replicant::test::running<memory_pipeline>;

// Whether the pipeline streams. Not the slot's `active` flag: that is set while the slot is still
// being created, which on a standby can wait for the primary, and what commits meanwhile precedes
// the slot's start.
auto streaming(event_log& events) -> bool { return events.contains("replicant.connection.slot_active"); }

// The same sink declaring itself an append log: its slot moves only with what it stores.
struct append_sink : memory_sink {
  static constexpr replicant::sink_kind kind = replicant::sink_kind::append_log;
};
using append_pipeline = replicant::pgoutput_pipeline<append_sink>;

// The program's standby of live_server(), made on first use. On 17+ it keeps synced copies of the
// primary's failover slots.
auto standby_holder() -> std::unique_ptr<pg_cluster>& {
  static std::unique_ptr<pg_cluster> standby;
  return standby;
}

auto shared_standby() -> pg_cluster& {
  auto& standby = standby_holder();
  if (!standby) {
    replicant::test::standby_options o;
    o.sync_replication_slots = live_server().has_setting("sync_replication_slots");
    standby = live_server().make_standby(o);
  }
  return *standby;
}

// Removes the standby (and its slot on the server) after the last test.
struct standby_fixture {
  standby_fixture() = default;
  ~standby_fixture() { standby_holder().reset(); }
  standby_fixture(const standby_fixture&) = delete;
  auto operator=(const standby_fixture&) -> standby_fixture& = delete;
};

auto literal(const std::string& text) -> std::string { return "'" + text + "'"; }

// A published database on the program's server, replayed on the shared standby, with options that
// stream it from the standby.
struct standby_database : replicant::test::published_database {
  pg_cluster& standby = shared_standby();

  standby_database() {
    options.conninfo = standby.dsn(db);
    pg.wait_for_replay(standby);
  }
  ~standby_database() {
    try {
      // A synced copy cannot be dropped on a standby; it goes with the primary's slot.
      standby.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = " +
                  literal(slot) + " AND NOT active" + (pg.major() >= 17 ? " AND NOT synced" : ""));
    } catch (...) {
    }
  }
  standby_database(const standby_database&) = delete;
  auto operator=(const standby_database&) -> standby_database& = delete;

  /// How many slots of this name the standby has that satisfy @p condition.
  auto standby_slots(const std::string& condition = "true") -> int {
    return std::stoi(standby.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = " + literal(slot) +
                                    " AND " + condition));
  }

  auto standby_confirmed_flush() -> lsn {
    return replicant::parse_lsn(standby.scalar("SELECT COALESCE(confirmed_flush_lsn, '0/0') FROM pg_replication_slots "
                                               "WHERE slot_name = " +
                                               literal(slot)))
        .value();
  }

  // Creating a logical slot on a standby waits until the primary logs which transactions run
  // (xl_running_xacts); a busy primary does so every 15 s and a quiet one perhaps never, so the
  // test asks for one.
  auto nudge_until(const std::function<bool()>& done, std::chrono::seconds timeout = 60s) -> bool {
    return wait_until(
        [&] {
          if (done()) return true;
          pg.sql("SELECT pg_log_standby_snapshot()");
          return false;
        },
        timeout);
  }
};

// A standby's slot sync worker copies a failover slot as a temporary slot first, and makes the copy
// permanent (sync-ready) only once the primary's slot has moved on and the copy could follow it to
// a consistent point; meanwhile it naps, up to 30 s, longer each time nothing changed. So until the
// copy of @p slot is ready: move the primary's slot (@p move: something to stream), have the
// primary log its running transactions, and wake the worker with a configuration reload.
auto wait_for_synced_slot(pg_cluster& primary, pg_cluster& standby, const std::string& slot,
                          const std::function<void()>& move) -> bool {
  const auto ready =
      "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND synced AND NOT temporary";
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (standby.scalar(ready) == "1") return true;
    move();
    primary.sql("SELECT pg_log_standby_snapshot()");
    standby.sql("SELECT pg_reload_conf()");
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

// How the standby describes the invalidation of its slot: `conflicting` on 16, which does not say
// which conflict it was, `invalidation_reason` from 17 (empty while the slot is valid).
auto standby_invalidation(standby_database& f) -> std::string {
  const std::string column =
      f.pg.major() >= 17 ? "COALESCE(invalidation_reason, '')" : "COALESCE(conflicting, false)::text";
  return f.standby.scalar("SELECT " + column + " FROM pg_replication_slots WHERE slot_name = " + literal(f.slot));
}

// What the standby says, and what replicant reports, for a recovery conflict named @p named: 16
// only says that there was one.
auto server_conflict(int major, std::string_view named) -> std::string {
  return major >= 17 ? std::string{named} : "true";
}
auto reported_conflict(int major, std::string_view named) -> std::string {
  return major >= 17 ? std::string{named} : "invalidated";
}

// The slot of @p f made on the standby by a pipeline that streams from it once, then stops.
auto make_standby_slot(standby_database& f, memory_sink& sink) -> bool {
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  const bool made = f.nudge_until([&] { return streaming(events); });
  return !r.stop() && made;
}

// Drops the logical slots left on @p primary by the program's earlier tests, which are over (a
// fixture drops its slot only once no walsender holds it, and one may still have been exiting), and
// says whether none is left. Any of them would hold back vacuum of the catalogs in every database,
// and keep the primary from starting with a wal_level below logical.
auto no_logical_slots_on(pg_cluster& primary) -> bool {
  return wait_until([&] {
    primary.sql(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_type = 'logical' "
        "AND NOT active");
    return primary.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_type = 'logical'") == "0";
  });
}

// wal_level = replica on @p primary for a scope (a restart), logical again (another restart) when
// it ends, also when a check failed: later tests need a primary that decodes. The primary must
// have no logical slot of its own, or it would refuse to start.
class wal_level_lowered {
 public:
  explicit wal_level_lowered(pg_cluster& primary) : primary_{primary} {
    primary_.set("wal_level", "replica");
    try {
      primary_.restart();
    } catch (...) {
      restore();
      throw;
    }
  }
  ~wal_level_lowered() { restore(); }
  wal_level_lowered(const wal_level_lowered&) = delete;
  auto operator=(const wal_level_lowered&) -> wal_level_lowered& = delete;

 private:
  void restore() noexcept {
    try {
      primary_.reset("wal_level");
      primary_.restart();
    } catch (...) {
    }
  }
  pg_cluster& primary_;
};

auto ids_of(const std::vector<replicant::test::seen>& rows) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.op + ":" + r.id);
  return out;
}

}  // namespace

// The rest of the suite runs inside standby_fixture, made before its first test and ended after its last.
BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE(topology_tests, *boost::unit_test::fixture<standby_fixture>())

// --- logical decoding on a standby -----------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(standby, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(a_pipeline_streams_from_a_standby_from_postgresql_16) {
  standby_database f;
  memory_sink sink;
  event_log events;
  if (f.pg.major() < 16) {
    // 15 cannot decode on a standby at all: refused before any slot is made.
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(r.halted() == halt_reason::standby_unsupported);
    BOOST_TEST(events.disconnected(halt_reason::standby_unsupported));
    BOOST_TEST(f.standby_slots() == 0);
    BOOST_TEST(
        events.contains("replicant.connection.slot_invalidated slot_name=" + f.slot + " reason=standby_unsupported"));
    return;
  }
  {
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(f.nudge_until([&] { return streaming(events); }));
    // Written on the primary, decoded on the standby from the WAL it replayed.
    f.sql("INSERT INTO items VALUES (1, 'a', 1), (2, 'b', 2)");
    f.sql("BEGIN; UPDATE items SET qty = 5 WHERE id = 1; DELETE FROM items WHERE id = 2; COMMIT");
    f.sql("INSERT INTO items VALUES (3, '" + std::string{secret} + "', 3)");
    BOOST_TEST_REQUIRE(sink.wait_for_rows(5));
    BOOST_TEST((ids_of(sink.snapshot()) ==
                std::vector<std::string>{"insert:1", "insert:2", "update:1", "delete:2", "insert:3"}));
    // Acknowledged to the standby's slot; the primary has no slot of that name at all.
    BOOST_TEST(wait_until([&] { return f.standby_confirmed_flush() > sink.commits.back(); }));
    BOOST_TEST(!f.slot_exists());
    BOOST_TEST(!r.stop());
  }
  // Written while nobody streams: arrives once on the next run, from the standby's slot.
  f.sql("INSERT INTO items VALUES (4, 'd', 4)");
  {
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(sink.wait_for_rows(6));
    std::this_thread::sleep_for(300ms);
    BOOST_TEST(sink.snapshot().size() == 6U);
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(events.count("replicant.connection.connected kind=standby") == 2U);
  BOOST_TEST(!events.contains("kind=primary"));
  BOOST_TEST(!events.contains(secret));
}

BOOST_AUTO_TEST_CASE(the_primary_is_reported_as_a_primary) {
  replicant::test::published_database f;
  memory_sink sink;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return streaming(events); }));
  BOOST_TEST(!r.stop());
  BOOST_TEST(events.contains("replicant.connection.connected kind=primary"));
  BOOST_TEST(!events.contains("kind=standby"));
}

BOOST_AUTO_TEST_CASE(an_unpromoted_standbys_synced_slot_halts) {
  standby_database f;
  memory_sink sink;
  if (f.pg.major() < 17) return;  // no slot synchronisation before 17 (failover is refused there)
  // A failover slot made on the primary by a pipeline, then synced to the standby.
  auto on_primary = f.options;
  on_primary.conninfo = f.pg.dsn(f.db);
  on_primary.failover = true;
  {
    event_log events;
    running r{sink, f.pgoutput, on_primary, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return streaming(events); }));
    int id = 0;
    BOOST_TEST_REQUIRE(wait_for_synced_slot(f.pg, f.standby, f.slot, [&] {
      f.sql("INSERT INTO items VALUES (" + std::to_string(++id) + ", 'a', 1)");
      static_cast<void>(sink.wait_for_rows(static_cast<std::size_t>(id)));
    }));
    BOOST_TEST(!r.stop());
  }
  // It cannot be consumed before a promotion, whatever the pipeline asks for.
  for (const bool failover : {true, false}) {
    BOOST_TEST_CONTEXT("failover " << failover) {
      auto o = f.options;
      o.failover = failover;
      event_log events;
      running r{sink, f.pgoutput, o, &events.dispatcher};
      BOOST_TEST(r.halted() == halt_reason::slot_synced_unpromoted);
      BOOST_TEST(events.disconnected(halt_reason::slot_synced_unpromoted));
      BOOST_TEST(events.contains("replicant.connection.slot_invalidated slot_name=" + f.slot +
                                 " reason=slot_synced_unpromoted"));
    }
  }
  // Still there, still the synced copy, and free again: the standby's slot sync worker holds the copy
  // (so it reads as active) for the moment of each update, which may be the moment of this query.
  BOOST_TEST(wait_until([&] { return f.standby_slots("synced AND NOT active") == 1; }));
}

BOOST_AUTO_TEST_CASE(a_failover_slot_cannot_be_made_on_a_standby) {
  standby_database f;
  if (f.pg.major() < 17) return;  // failover itself is refused below 17 (see the failover suite)
  memory_sink sink;
  f.options.failover = true;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::slot_not_failover);
  BOOST_TEST(events.disconnected(halt_reason::slot_not_failover));
  BOOST_TEST(f.standby_slots() == 0);
}

// docs/operations.md's monitoring query, as printed there, runs on a primary and on a standby.
BOOST_AUTO_TEST_CASE(the_monitoring_query_of_the_operations_page_runs_on_both_nodes) {
  standby_database f;
  std::string query =
      "SELECT slot_name, active, wal_status, safe_wal_size,\n"
      "       pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() "
      "END,\n"
      "                       confirmed_flush_lsn) AS lag_bytes,\n"
      "       pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() "
      "END,\n"
      "                       restart_lsn) AS retained_bytes,\n"
      "       inactive_since, invalidation_reason, failover, synced\n"
      "  FROM pg_replication_slots WHERE slot_type = 'logical'";
  if (f.pg.major() < 17) {
    // "drop the last four columns on 15 and 16"
    const auto at = query.find(",\n       inactive_since");
    query.erase(at, query.find("\n  FROM") - at);
  }
  memory_sink sink;
  event_log events;
  auto on_primary = f.options;
  on_primary.conninfo = f.pg.dsn(f.db);
  running r{sink, f.pgoutput, on_primary, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return streaming(events); }));
  bool found = false;
  for (const auto& row : f.pg.sql(query)) {
    if (row.at(0) != f.slot) continue;
    found = true;
    BOOST_TEST(row.at(1).value_or("") == "t");
    BOOST_TEST(row.at(4).has_value());  // lag_bytes
    BOOST_TEST(row.at(5).has_value());  // retained_bytes
  }
  BOOST_TEST(found);
  BOOST_TEST(!r.stop());
  BOOST_CHECK_NO_THROW(static_cast<void>(f.standby.sql(query)));
}

// Last of the shared standby's tests: the slot sync worker stops while the feedback is off and
// takes a while to come back.
BOOST_AUTO_TEST_CASE(a_standby_without_hot_standby_feedback_halts) {
  standby_database f;
  if (f.pg.major() < 16) return;  // refused as a standby before the feedback matters (above)
  struct feedback_back_on {
    pg_cluster& standby;
    ~feedback_back_on() {
      try {
        standby.reset("hot_standby_feedback");
        standby.reload();
      } catch (...) {
      }
    }
  } restore{f.standby};
  f.standby.set("hot_standby_feedback", "off");
  f.standby.reload();
  memory_sink sink;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::standby_feedback_off);
  BOOST_TEST(events.disconnected(halt_reason::standby_feedback_off));
  BOOST_TEST(f.standby_slots() == 0);
}

// A slot made on a standby is a slot of that server: when the standby is promoted (its primary
// stopped), the pipeline goes on from where it was, losing and repeating nothing.
BOOST_AUTO_TEST_CASE(a_standby_slot_outlives_the_promotion_of_its_standby) {
  if (live_server().major() < 16) return;  // refused above
  pg_cluster primary;
  primary.create_database("shop");
  primary.sql("CREATE TABLE items (id int PRIMARY KEY, label text, qty int); CREATE PUBLICATION pub FOR TABLE items",
              "shop");
  auto standby = primary.make_standby();
  primary.wait_for_replay(*standby);
  memory_sink sink;
  event_log events;
  replicant::pipeline_options o;
  o.conninfo = standby->dsn("shop");
  o.slot = "on_the_standby";
  o.start = replicant::start::go_forward{};
  o.status_interval = 1s;
  o.reconnect_delay = 50ms;
  o.max_reconnect_delay = 300ms;
  running r{sink, replicant::pgoutput_options{.publications = {"pub"}}, o, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] {
    if (streaming(events)) return true;
    primary.sql("SELECT pg_log_standby_snapshot()");
    return false;
  }));
  for (int i = 1; i <= 3; ++i) primary.sql("INSERT INTO items VALUES (" + std::to_string(i) + ", 'a', 1)", "shop");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(3));
  primary.wait_for_replay(*standby);
  primary.stop();
  standby->promote();
  for (int i = 4; i <= 6; ++i) standby->sql("INSERT INTO items VALUES (" + std::to_string(i) + ", 'b', 2)", "shop");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(6));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(!r.stop());
  BOOST_TEST((ids_of(sink.snapshot()) ==
              std::vector<std::string>{"insert:1", "insert:2", "insert:3", "insert:4", "insert:5", "insert:6"}));
  // The walsender may stream on through the promotion; a reconnect would report the new kind.
  BOOST_TEST(events.contains("replicant.connection.connected kind=standby"));
  BOOST_TEST(events.count("replicant.connection.connected kind=standby") == 1U);
  BOOST_TEST(!events.contains("replicant.connection.slot_invalidated"));
}

BOOST_AUTO_TEST_SUITE_END()

// --- failover slots ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(failover, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(failover_is_refused_before_postgresql_17_without_making_a_slot) {
  replicant::test::published_database f;
  memory_sink sink;
  event_log events;
  f.options.failover = true;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  if (f.pg.major() >= 17) {
    BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
    BOOST_TEST(f.pg.scalar("SELECT failover FROM pg_replication_slots WHERE slot_name = " + literal(f.slot)) == "t");
    BOOST_TEST(!r.stop());
    return;
  }
  BOOST_TEST(r.halted() == halt_reason::failover_unsupported);
  BOOST_TEST(!f.slot_exists());
  BOOST_TEST(events.contains("reason=failover_unsupported"));
}

BOOST_AUTO_TEST_CASE(an_existing_slot_must_be_a_failover_slot_when_failover_is_asked) {
  replicant::test::published_database f;
  if (f.pg.major() < 17) return;
  memory_sink sink;
  {
    event_log events;
    running r{sink, f.pgoutput, f.options, &events.dispatcher};  // failover off: a plain slot
    BOOST_TEST_REQUIRE(wait_until([&] { return streaming(events); }));
    BOOST_TEST(!r.stop());
  }
  f.options.failover = true;
  {
    running r{sink, f.pgoutput, f.options};
    BOOST_TEST(r.halted() == halt_reason::slot_not_failover);
  }
  // The documented remedy, on a replication connection to the primary.
  f.pg.connect_replication(f.db).exec("ALTER_REPLICATION_SLOT " + f.slot + " (FAILOVER true)");
  {
    running r{sink, f.pgoutput, f.options};
    BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
    f.sql("INSERT INTO items VALUES (1, 'a', 1)");
    BOOST_TEST(sink.wait_for_rows(1));
    BOOST_TEST(!r.stop());
  }
  // A failover slot without the option is streamed as it is (a promoted standby's slot is one).
  f.options.failover = false;
  {
    running r{sink, f.pgoutput, f.options};
    f.sql("INSERT INTO items VALUES (2, 'b', 2)");
    BOOST_TEST(sink.wait_for_rows(2));
    BOOST_TEST(!r.stop());
  }
}

BOOST_AUTO_TEST_CASE(a_missing_failover_slot_with_a_checkpoint_halts_instead_of_starting_over) {
  replicant::test::published_database f;
  if (f.pg.major() < 17) return;
  memory_sink sink;
  f.options.failover = true;
  {
    event_log events;
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return streaming(events); }));
    f.sql("INSERT INTO items VALUES (1, 'a', 1)");
    BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
    BOOST_TEST(!r.stop());
  }
  // What a promotion before the slot was synced looks like from the sink's side.
  f.pg.sql("SELECT pg_drop_replication_slot(" + literal(f.slot) + ")");
  f.sql("INSERT INTO items VALUES (2, 'b', 2)");
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::failover_slot_missing);
  BOOST_TEST(events.disconnected(halt_reason::failover_slot_missing));
  BOOST_TEST(!f.slot_exists());
}

BOOST_AUTO_TEST_CASE(failover_with_two_phase_is_refused_on_17_and_streams_on_18) {
  replicant::test::published_database f;
  if (f.pg.major() < 17) return;
  memory_sink sink;
  f.options.failover = true;
  f.pgoutput.two_phase = true;
  if (f.pg.major() == 17) {
    // The server itself accepts the combination (verified here, so the refusal stays a decision
    // of ours and not a guess about the server): its slot sync does not carry two_phase_at.
    const auto probe = f.pg.unique_name("probe");
    auto repl = f.pg.connect_replication(f.db);
    BOOST_TEST(repl.try_exec("CREATE_REPLICATION_SLOT " + probe +
                             " LOGICAL pgoutput (SNAPSHOT 'nothing', FAILOVER, "
                             "TWO_PHASE)")
                   .ok());
    static_cast<void>(repl.try_exec("DROP_REPLICATION_SLOT " + probe));
    event_log events;
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(r.halted() == halt_reason::two_phase_failover_conflict);
    BOOST_TEST(events.disconnected(halt_reason::two_phase_failover_conflict));
    BOOST_TEST(!f.slot_exists());
    return;
  }
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return streaming(events); }));
  BOOST_TEST(f.pg.scalar("SELECT failover AND two_phase FROM pg_replication_slots WHERE slot_name = " +
                         literal(f.slot)) == "t");
  f.sql("INSERT INTO items VALUES (1, 'a', 1)");
  BOOST_TEST(sink.wait_for_rows(1));
  BOOST_TEST(!r.stop());
}

// The whole failover, on a primary and a standby of the test's own: a pipeline streams a failover
// slot from the primary while a writer commits one row per transaction; the primary crashes; the
// standby is promoted; the writer and the pipeline find the new primary through a two-host
// connection string (target_session_attrs), and the pipeline resumes from the slot the standby
// synced. Then every transaction the new primary holds was delivered once, and nothing else was:
//
//   loss      = committed on the new primary - delivered  = {}
//   phantoms  = delivered - committed on the new primary  = {}  (synchronized_standby_slots)
//   duplicates = delivered rows - distinct delivered ids  = 0
BOOST_AUTO_TEST_CASE(a_promoted_standby_resumes_the_synced_slot_without_loss_or_duplicates) {
  if (live_server().major() < 17) return;  // refused above
  const auto began = std::chrono::steady_clock::now();
  pg_cluster primary;
  primary.create_database("shop");
  primary.sql("CREATE TABLE txlog (id bigint PRIMARY KEY, note text); CREATE PUBLICATION pub FOR TABLE txlog", "shop");
  replicant::test::standby_options so;
  so.sync_replication_slots = true;
  auto standby = primary.make_standby(so);
  // The primary sends a failover slot's changes only once the standby has the WAL they are in, so
  // that nothing delivered can be missing from the standby after it is promoted.
  primary.set("synchronized_standby_slots", standby->primary_slot());
  primary.reload();

  const auto both = "host=127.0.0.1,127.0.0.1 port=" + std::to_string(primary.port()) + "," +
                    std::to_string(standby->port()) + " user=" + primary.user() + " dbname=shop connect_timeout=2";
  memory_sink sink;
  event_log events;
  replicant::pipeline_options o;
  o.conninfo = both + " target_session_attrs=primary";
  o.slot = "orders_failover";
  o.failover = true;
  o.start = replicant::start::go_forward{};
  o.status_interval = 1s;
  o.reconnect_delay = 50ms;
  o.max_reconnect_delay = 300ms;
  o.connect_timeout = 3s;
  running r{sink, replicant::pgoutput_options{.publications = {"pub"}}, o, &events.dispatcher};
  const auto slot_where = [&](pg_cluster& node, const std::string& condition) {
    return node.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'orders_failover' AND " +
                       condition) == "1";
  };
  BOOST_TEST_REQUIRE(wait_until([&] { return streaming(events); }));
  BOOST_TEST(slot_where(primary, "failover"));

  // One row per transaction, on whichever server accepts writes; an id whose COMMIT was lost in
  // the crash may or may not exist afterwards, which is why the truth is read back at the end.
  std::atomic<bool> writing{true};
  std::atomic<std::int64_t> committed{0};
  std::thread writer{[&] {
    std::unique_ptr<pg_connection> conn;
    std::int64_t id = 0;
    while (writing.load()) {
      try {
        if (!conn) conn = std::make_unique<pg_connection>(both + " target_session_attrs=read-write");
        conn->exec("INSERT INTO txlog VALUES (" + std::to_string(++id) + ", '" + std::string{secret} + "')");
        ++committed;
      } catch (const std::exception&) {
        conn.reset();
        std::this_thread::sleep_for(20ms);
      }
    }
  }};
  struct join_writer {
    std::atomic<bool>& writing;
    std::thread& writer;
    ~join_writer() {
      writing.store(false);
      if (writer.joinable()) writer.join();
    }
  } stop_writer{writing, writer};

  // The writer moves the slot; the standby's copy becomes usable.
  BOOST_TEST_REQUIRE(wait_for_synced_slot(primary, *standby, o.slot, [] {}));
  BOOST_TEST_REQUIRE(sink.wait_for_rows(sink.snapshot().size() + 300));
  // The standby falls behind just before the crash: the primary's WAL sender for it is frozen while
  // the writer goes on, then killed with the primary, so the old primary dies holding commits the
  // standby never got. That is exactly what the pipeline must not have delivered; without
  // synchronized_standby_slots it would have, and the phantom check below fails.
  const auto sender = static_cast<pid_t>(std::stol(primary.scalar(
      "SELECT pid FROM pg_stat_replication WHERE application_name = '" + standby->primary_slot() + "'")));
  BOOST_TEST_REQUIRE(::kill(sender, SIGSTOP) == 0);
  const auto behind = committed.load();
  BOOST_TEST(wait_until([&] { return committed.load() >= behind + 100; }));
  std::this_thread::sleep_for(200ms);
  ::kill(sender, SIGKILL);  // what it holds is never sent
  primary.crash();
  standby->promote();
  const auto before = committed.load();
  BOOST_TEST_REQUIRE(wait_until([&] { return committed.load() >= before + 300; }));
  writing.store(false);
  writer.join();

  std::set<std::string> truth;
  for (const auto& row : standby->sql("SELECT id FROM txlog", "shop")) truth.insert(row.at(0).value());
  const auto delivered = [&] {
    std::set<std::string> out;
    for (const auto& s : sink.snapshot()) out.insert(s.id);
    return out;
  };
  // Everything arrives, or (a failure) the sets below say what did not.
  static_cast<void>(wait_until(
      [&] {
        const auto got = delivered();
        return std::includes(got.begin(), got.end(), truth.begin(), truth.end());
      },
      30s));
  BOOST_TEST(!r.stop());

  const auto rows = sink.snapshot();
  const auto got = delivered();
  std::vector<std::string> lost;
  std::vector<std::string> phantoms;
  std::set_difference(truth.begin(), truth.end(), got.begin(), got.end(), std::back_inserter(lost));
  std::set_difference(got.begin(), got.end(), truth.begin(), truth.end(), std::back_inserter(phantoms));
  BOOST_TEST(lost.size() == 0U, lost.size() << " committed transactions never delivered");
  BOOST_TEST(phantoms.size() == 0U, phantoms.size() << " delivered transactions the new primary does not have");
  BOOST_TEST(rows.size() - got.size() == 0U);  // effect-duplicates
  BOOST_TEST(truth.size() >= 600U);
  // The stream went on from the slot the standby synced (a new one would say synced = false), and
  // the pipeline never took the unpromoted standby for a primary.
  BOOST_TEST(slot_where(*standby, "synced AND failover"));
  BOOST_TEST(events.count("replicant.connection.connected kind=primary") >= 2U);
  BOOST_TEST(!events.contains("kind=standby"));
  BOOST_TEST(!events.contains(secret));
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - began;
  BOOST_TEST_MESSAGE("failover: " << truth.size() << " transactions, " << got.size() << " delivered, in "
                                  << took.count() << " s");
}

BOOST_AUTO_TEST_SUITE_END()

// --- heartbeats -----------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(heartbeat, *utf::label("integration"))

// A busy database whose published tables are idle: an append-log sink stores nothing, so its slot
// would pin every byte of WAL written since. A heartbeat that writes to a published table gives it
// a transaction to store now and then, and what the slot retains stays bounded; without one it
// grows with everything written.
BOOST_AUTO_TEST_CASE(wal_retained_by_an_idle_append_log_stays_bounded_with_heartbeats) {
  constexpr std::int64_t round_bytes = 2 << 20;  // at least this much WAL per round
  constexpr int rounds = 10;
  // What a beating slot retains is the WAL since the last running-transactions record it could
  // move its restart point to, and the slot takes one such step per confirmed transaction: about
  // two and a half rounds here, whatever the number of rounds. An idle one retains all of it.
  constexpr std::int64_t bound = 4 * round_bytes;
  const auto retained_by = [](replicant::test::published_database& f) {
    return std::int64_t{
        std::stoll(f.pg.scalar("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint FROM "
                               "pg_replication_slots WHERE slot_name = " +
                               literal(f.slot)))};
  };
  // Busy, but with nothing published. The checkpoint is what a busy server does anyway, sooner or
  // later; it records the running transactions, from which a slot may move its restart point.
  const auto busy_round = [](replicant::test::published_database& f) {
    const auto start = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
    while (replicant::distance(start, replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value()) <
           round_bytes) {
      f.sql("INSERT INTO busy SELECT g FROM generate_series(1, 20000) g");
    }
    f.pg.sql("CHECKPOINT");
  };
  for (const bool beat : {false, true}) {
    BOOST_TEST_CONTEXT("heartbeat " << beat) {
      replicant::test::published_database f;
      f.sql(
          "CREATE TABLE beats (id int PRIMARY KEY, at timestamptz); CREATE TABLE busy (n int); "
          "ALTER PUBLICATION pub ADD TABLE beats");
      if (beat) {
        f.options.heartbeat_interval = 100ms;
        f.options.heartbeat_statement = "INSERT INTO beats VALUES (1, now()) ON CONFLICT (id) DO UPDATE SET at = now()";
      }
      append_sink sink;
      replicant::test::running<append_pipeline> r{sink, f.pgoutput, f.options};
      BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
      std::int64_t most = 0;
      const auto first = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
      for (int i = 0; i < rounds; ++i) {
        busy_round(f);
        if (beat) {
          // A beat or two after the round: the slot has caught up with it.
          BOOST_TEST(wait_until([&] { return retained_by(f) < bound; }, 10s), "round " << i);
        }
        most = std::max(most, retained_by(f));
      }
      const auto written =
          replicant::distance(first, replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value());
      BOOST_TEST(written >= rounds * round_bytes);
      BOOST_TEST_MESSAGE("heartbeat " << beat << ": " << written << " bytes of WAL written, at most " << most
                                      << " retained");
      if (beat) {
        BOOST_TEST(most < bound);
        BOOST_TEST(sink.commits.size() >= 2U);
      } else {
        BOOST_TEST(most >= written);  // pinned since the slot was made
        BOOST_TEST(sink.commits.empty());
      }
      BOOST_TEST(!r.stop());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// --- slot invalidation on a standby ---------------------------------------------------------------

// The two recovery conflicts that invalidate a standby's slot (16+), provoked on the shared
// standby; the halt and its event carry the class the server gives (17+), or the generic one (16,
// which only says `conflicting`). Last in the program: they turn the standby's feedback off and
// restart the primary. The other classes are provoked in tests/integration/pipeline.cpp.
BOOST_AUTO_TEST_SUITE(slot_invalidation, *utf::label("integration"))

// rows_removed: without hot_standby_feedback, vacuum on the primary removes catalog rows the
// standby's slot still needs, and replaying it invalidates the slot.
BOOST_AUTO_TEST_CASE(a_standby_slot_whose_catalog_rows_were_vacuumed_halts_rows_removed) {
  standby_database f;
  if (f.pg.major() < 16) return;  // no logical decoding on a standby before 16 (standby_unsupported)
  memory_sink sink;
  BOOST_TEST_REQUIRE(no_logical_slots_on(f.pg));
  BOOST_TEST_REQUIRE(make_standby_slot(f, sink));
  {
    const replicant::test::scoped_setting off{f.standby, "hot_standby_feedback", "off"};
    // The standby withdraws what it asked the primary to keep (its physical slot's xmins).
    BOOST_TEST_REQUIRE(wait_until([&] {
      return f.pg.scalar("SELECT xmin IS NULL AND catalog_xmin IS NULL FROM pg_replication_slots WHERE slot_name = " +
                         literal(f.standby.primary_slot())) == "t";
    }));
    // A catalog row deleted after the slot's catalog horizon, then vacuumed away in the slot's
    // database; again, should a snapshot of the moment still have held it back.
    int round = 0;
    BOOST_TEST_REQUIRE(wait_until([&] {
      const auto table = "gone_" + std::to_string(++round);
      f.sql("CREATE TABLE " + table + " (id int)");
      f.sql("DROP TABLE " + table);
      f.sql("VACUUM pg_class");
      f.pg.wait_for_replay(f.standby);
      return standby_invalidation(f) == server_conflict(f.pg.major(), "rows_removed");
    }));
  }
  f.sql("INSERT INTO items VALUES (1, '" + std::string{secret} + "', 1)");
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::slot_invalidated);
  const auto expected = reported_conflict(f.pg.major(), "rows_removed");
  BOOST_TEST(invalidation_class(r) == expected);
  BOOST_TEST(events.contains(invalidated_event(f.slot, expected)));
  BOOST_TEST(events.contains("replicant.connection.disconnected reason=slot_invalidated"));
  BOOST_TEST(!events.contains(secret));
}

// wal_level_insufficient: the primary restarted with wal_level = replica, and the standby, replaying
// that, invalidates its logical slots. (A primary's own logical slot does not get this far: the
// server refuses to start with one below logical.)
BOOST_AUTO_TEST_CASE(a_standby_slot_halts_wal_level_insufficient_once_the_primary_lowered_it) {
  standby_database f;
  if (f.pg.major() < 16) return;  // as above
  memory_sink sink;
  BOOST_TEST_REQUIRE(no_logical_slots_on(f.pg));
  BOOST_TEST_REQUIRE(make_standby_slot(f, sink));
  {
    // The standby reconnects to the restarted primary at once rather than after 5 s.
    const replicant::test::scoped_setting retry{f.standby, "wal_retrieve_retry_interval", "100ms"};
    {
      const wal_level_lowered lowered{f.pg};
      f.pg.wait_for_replay(f.standby);
      BOOST_TEST_REQUIRE(standby_invalidation(f) == server_conflict(f.pg.major(), "wal_level_insufficient"));
    }
    f.pg.wait_for_replay(f.standby);  // logical again, on both
  }
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::slot_invalidated);
  const auto expected = reported_conflict(f.pg.major(), "wal_level_insufficient");
  BOOST_TEST(invalidation_class(r) == expected);
  BOOST_TEST(events.contains(invalidated_event(f.slot, expected)));
  BOOST_TEST(events.contains("replicant.connection.disconnected reason=slot_invalidated"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // topology_tests
