// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The live pipeline against a real server, once per PostgreSQL major: delivery in order, resume
// from the sink's checkpoint without loss or duplicates, reconnects, and every halt the pipeline
// can reach with pgoutput, each provoked for real. Telemetry and halts are checked to be value-free.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/required.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(pipeline_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::invalidated_event;
using replicant::test::invalidation_class;
using replicant::test::live_server;

namespace {

constexpr std::string_view secret = "s3cr3t-VALUE-4711";

using replicant::test::memory_sink;
using replicant::test::seen;

// The same, declaring itself an append log: its slot never moves past what it stored.
struct append_sink : memory_sink {
  static constexpr replicant::sink_kind kind = replicant::sink_kind::append_log;
};

using memory_pipeline = replicant::pgoutput_pipeline<memory_sink>;

using replicant::test::event_log;

// A published database whose slot can be created by a pipeline that stops as soon as it streams.
struct fixture : replicant::test::published_database {
  auto create_slot(memory_sink& sink) -> void {
    event_log events;
    memory_pipeline p{sink, pgoutput, options, &events.dispatcher};
    std::thread t{[&] {
      std::error_code ec;
      p.run(ec);
    }};
    // Streaming, not merely present: a slot still being created is dropped again if the pipeline
    // stops (and so cancels the command) before the server has finished creating it.
    wait_until([&] { return events.contains("replicant.connection.slot_active"); });
    p.stop();
    t.join();
  }
};

using running = replicant::test::running<memory_pipeline>;

auto ids(const std::vector<seen>& rows) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.op + ":" + r.id);
  return out;
}

// Makes the server remove WAL the slot of @p f still needs, as max_slot_wal_keep_size allows
// (restored when the call returns, also when it throws): WAL written into a table nobody
// publishes (with secret values), switched to new segments, and a checkpoint, which invalidates
// the slot (ending its walsender first if one streams from it). Whether the slot is lost is
// returned.
auto remove_wal_of_the_slot(fixture& f) -> bool {
  const replicant::test::scoped_setting keep{f.pg, "max_slot_wal_keep_size", "1MB"};
  const replicant::test::scoped_setting no_extra{f.pg, "wal_keep_size", "0"};
  f.sql("CREATE TABLE IF NOT EXISTS unpublished (n int, label text)");
  for (int i = 0; i < 5; ++i) {
    f.sql("INSERT INTO unpublished SELECT g, '" + std::string{secret} + "' FROM generate_series(1, 1000) g");
    f.pg.sql("SELECT pg_switch_wal()");
  }
  f.pg.sql("CHECKPOINT");
  return f.pg.scalar("SELECT wal_status FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'") == "lost";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pipeline_delivery, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(delivers_committed_transactions_in_order_and_acknowledges_them) {
  fixture f;
  memory_sink sink;
  event_log events;
  {
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
    f.sql("INSERT INTO items VALUES (1, 'a', 1), (2, 'b', 2)");
    f.sql("BEGIN; UPDATE items SET qty = 5 WHERE id = 1; DELETE FROM items WHERE id = 2; COMMIT");
    f.sql("INSERT INTO items VALUES (3, '" + std::string{secret} + "', 3)");
    BOOST_TEST_REQUIRE(sink.wait_for_rows(5));
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(
      (ids(sink.snapshot()) == std::vector<std::string>{"insert:1", "insert:2", "update:1", "delete:2", "insert:3"}));
  BOOST_TEST(sink.commits.size() == 3U);
  BOOST_TEST(std::is_sorted(sink.commits.begin(), sink.commits.end()));
  // The slot was acknowledged past the last delivered commit, and not past the server's position.
  BOOST_TEST(f.confirmed_flush() > sink.commits.back());
  BOOST_TEST(events.contains("replicant.sink.committed"));
  BOOST_TEST(events.contains("replicant.connection.slot_active"));
  BOOST_TEST(!events.contains(secret));
}

BOOST_AUTO_TEST_CASE(a_receive_low_water_mark_still_delivers_small_transactions) {
  fixture f;
  memory_sink sink;
  f.options.receive_low_water_bytes = 1U << 20U;  // far more than the workload: only the delay reads it
  f.options.receive_max_delay = 20ms;
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  for (int i = 1; i <= 3; ++i) {
    f.sql("INSERT INTO items VALUES (" + std::to_string(i) + ", 'a', 1)");
    BOOST_TEST_REQUIRE(sink.wait_for_rows(static_cast<std::size_t>(i)));
  }
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.confirmed_flush() > sink.commits.back(); }));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(resumes_from_the_checkpoint_without_loss_or_duplicates) {
  fixture f;
  memory_sink sink;
  {
    running r{sink, f.pgoutput, f.options};
    BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  }
  // Written while nobody streams: must arrive on the next run, once.
  f.sql("INSERT INTO items VALUES (2, 'b', 2)");
  f.sql("INSERT INTO items VALUES (3, 'c', 3)");
  // A restart of the server on PostgreSQL <= 16 can send acknowledged transactions again.
  f.pg.restart();
  {
    running r{sink, f.pgoutput, f.options};
    BOOST_TEST_REQUIRE(sink.wait_for_rows(3));
    f.sql("INSERT INTO items VALUES (4, 'd', 4)");
    BOOST_TEST_REQUIRE(sink.wait_for_rows(4));
    std::this_thread::sleep_for(300ms);
  }
  BOOST_TEST((ids(sink.snapshot()) == std::vector<std::string>{"insert:1", "insert:2", "insert:3", "insert:4"}));
}

// A run that resumes knows its checkpoint durable before anything new arrives: durable_lsn() says
// so at once rather than 0/0 (the examples print it as "acknowledged up to" when they stop).
BOOST_AUTO_TEST_CASE(the_durable_position_starts_at_the_checkpoint_resumed_from) {
  fixture f;
  memory_sink sink;
  {
    running r{sink, f.pgoutput, f.options};
    BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  }
  const auto stored = sink.checkpoint().value();
  BOOST_TEST_REQUIRE(stored.has_value());
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  BOOST_TEST(r.pipeline.durable_lsn() == *stored);
  BOOST_TEST(!r.stop());
  BOOST_TEST(r.pipeline.durable_lsn() == *stored, "nothing new came, so nothing moved it");
}

// A checkpoint whose slot is gone: a new slot would stream from now on, and what was committed in
// between would never arrive. The pipeline halts and creates nothing; a sink that judges origins
// is shown the new slot's origin instead, and accepts or refuses the gap itself.
BOOST_AUTO_TEST_CASE(a_checkpoint_whose_slot_was_dropped_halts_instead_of_skipping_the_gap) {
  fixture f;
  memory_sink sink;
  {
    running r{sink, f.pgoutput, f.options};
    BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  }
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return !f.slot_active(); }));
  f.sql("SELECT pg_drop_replication_slot('" + f.slot + "')");
  f.sql("INSERT INTO items VALUES (2, 'in the gap', 2)");
  event_log events;
  {
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(r.halted() == halt_reason::slot_dropped);
  }
  BOOST_TEST(!f.slot_exists());
  BOOST_TEST(events.disconnected(halt_reason::slot_dropped));

  struct origin_judging_sink : memory_sink {
    std::optional<lsn> shown;
    auto handle_slot_origin(lsn origin, const replicant::slot_origin_context& ctx) -> result<void> {
      BOOST_TEST(!ctx.reused);
      shown = origin;
      return {};  // an append log that accepts the gap
    }
  };
  origin_judging_sink judging;
  judging.stored = sink.stored;  // the same checkpoint
  using judging_pipeline = replicant::pgoutput_pipeline<origin_judging_sink>;
  {
    replicant::test::running<judging_pipeline> r{judging, f.pgoutput, f.options};
    BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
    f.sql("INSERT INTO items VALUES (3, 'c', 3)");
    BOOST_TEST_REQUIRE(judging.wait_for_rows(1));
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(judging.shown.has_value());
  BOOST_TEST((ids(judging.snapshot()) == std::vector<std::string>{"insert:3"}));
}

BOOST_AUTO_TEST_CASE(reconnects_after_a_server_crash_and_loses_nothing) {
  fixture f;
  memory_sink sink;
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  f.pg.crash();
  f.pg.start();
  f.sql("INSERT INTO items VALUES (2, 'b', 2)");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(2, 60s));
  BOOST_TEST(!r.stop());
  BOOST_TEST((ids(sink.snapshot()) == std::vector<std::string>{"insert:1", "insert:2"}));
}

// The sink's checkpoint is read once per connect: once when the run starts, once more at each
// reconnect, and nowhere else (a sink's checkpoint() may be costly: a broker round trip, a query).
BOOST_AUTO_TEST_CASE(reads_the_sinks_checkpoint_once_per_connect) {
  struct counting_sink : memory_sink {
    std::atomic<int> checkpoint_calls{0};
    auto checkpoint() -> result<std::optional<lsn>> {
      ++checkpoint_calls;
      return memory_sink::checkpoint();
    }
  };
  using counting_pipeline = replicant::pgoutput_pipeline<counting_sink>;
  fixture f;
  counting_sink sink;
  event_log events;
  replicant::test::running<counting_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  BOOST_TEST(events.count("replicant.connection.connected") == 1U);
  BOOST_TEST(sink.checkpoint_calls.load() == 1, "the start");
  // A reconnect: the walsender is ended, and the next session reads the checkpoint again.
  f.sql("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'");
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return events.count("replicant.connection.connected") == 2U; }));
  f.sql("INSERT INTO items VALUES (2, 'b', 2)");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(2, 60s));
  BOOST_TEST(sink.checkpoint_calls.load() == 2, "the start and the reconnect");
  BOOST_TEST(!r.stop());
  BOOST_TEST(sink.checkpoint_calls.load() == 2, "a stop reads nothing");
}

BOOST_AUTO_TEST_CASE(applies_additive_schema_changes_and_delivers_messages) {
  fixture f;
  memory_sink sink;
  event_log events;
  f.pgoutput.messages = true;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  f.sql("ALTER TABLE items ADD COLUMN note text");
  f.sql("INSERT INTO items VALUES (2, 'b', 2, 'n')");
  f.sql("SELECT pg_logical_emit_message(false, 'p', '" + std::string{secret} + "')");
  // A transactional message rides its transaction (row 3), and is reported as delivered too.
  f.sql("BEGIN; INSERT INTO items VALUES (3, 'c', 3, 'n'); SELECT pg_logical_emit_message(true, 'p', '" +
        std::string{secret} + "'); COMMIT");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(3));
  BOOST_TEST(fixture::wait_until([&] {
    const std::lock_guard lock{sink.mutex};
    return sink.messages == 1;
  }));
  BOOST_TEST(!r.stop());
  BOOST_TEST(events.contains("replicant.schema_change.additive"));
  BOOST_TEST(events.count("replicant.message.received") == 2U);
  BOOST_TEST(events.count("transactional=false") == 1U);
  BOOST_TEST(events.count("transactional=true") == 1U);
  BOOST_TEST(!events.contains(secret));
}

BOOST_AUTO_TEST_CASE(messages_off_reports_no_message) {
  fixture f;
  memory_sink sink;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  f.sql("SELECT pg_logical_emit_message(false, 'p', 'alone')");
  f.sql("BEGIN; INSERT INTO items VALUES (2, 'b', 2); SELECT pg_logical_emit_message(true, 'p', 'riding'); COMMIT");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(2));
  BOOST_TEST(!r.stop());
  BOOST_TEST(!events.contains("replicant.message.received"));
}

BOOST_AUTO_TEST_CASE(a_state_mirror_advances_over_unpublished_wal_and_an_append_log_does_not) {
  fixture f;
  f.sql("CREATE TABLE noise (id int)");
  memory_sink mirror;
  append_sink log;
  // A quiet session asks the server for its position after half of this (the server's own keepalive
  // comes only after half of wal_sender_timeout): the positions this case waits for arrive sooner.
  f.options.receive_timeout = 4s;
  auto log_options = f.options;
  log_options.slot = f.pg.unique_name("slot");
  running r1{mirror, f.pgoutput, f.options};
  replicant::pgoutput_pipeline<append_sink> p2{log, f.pgoutput, log_options};
  std::error_code ec2;
  std::thread t2{[&] { p2.run(ec2); }};
  const auto flushed = [&](const std::string& slot) {
    return replicant::parse_lsn(
               f.pg.scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
        .value();
  };
  BOOST_TEST_REQUIRE(fixture::wait_until([&] {
    return f.pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name IN ('" + f.slot + "', '" +
                       log_options.slot + "')") == "2";
  }));
  f.sql("INSERT INTO items VALUES (1, 'a', 1)");
  BOOST_TEST_REQUIRE(mirror.wait_for_rows(1));
  BOOST_TEST_REQUIRE(log.wait_for_rows(1));
  const auto log_position = log.commits.back();
  // Busy, but nothing published: only the state mirror may move its slot past this WAL.
  for (int i = 0; i < 20; ++i) f.sql("INSERT INTO noise VALUES (" + std::to_string(i) + ")");
  const auto target = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_flush_lsn()")).value();
  BOOST_TEST(fixture::wait_until([&] { return flushed(f.slot) >= target; }, 40s));
  BOOST_TEST_REQUIRE(f.wait_for_status_update(log_options.slot));  // the log's answer as of now
  BOOST_TEST(flushed(log_options.slot) < target);
  BOOST_TEST(flushed(log_options.slot) > log_position);  // its own delivered transaction, no further
  p2.stop();
  t2.join();
  BOOST_TEST(!r1.stop());
  f.pg.sql("SELECT pg_drop_replication_slot('" + log_options.slot + "')");
}

BOOST_AUTO_TEST_CASE(emits_the_delivery_events_in_order) {
  fixture f;
  memory_sink sink;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  f.sql("INSERT INTO items VALUES (1, '" + std::string{secret} + "', 1)");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
  BOOST_TEST(!r.stop());
  std::vector<std::string> names;
  {
    const std::lock_guard lock{events.mutex};
    for (const auto& l : events.lines) names.push_back(l.substr(0, l.find(' ')));
  }
  const std::vector<std::string> expected{"replicant.connection.connected", "replicant.connection.slot_active",
                                          "replicant.transaction.assembled", "replicant.sink.committed",
                                          "replicant.checkpoint.advanced"};
  auto at = names.begin();
  for (const auto& e : expected) {
    at = std::find(at, names.end(), e);
    BOOST_TEST_REQUIRE((at != names.end()), "missing or out of order: " << e);
  }
  BOOST_TEST(names.back() == "replicant.connection.disconnected");
  BOOST_TEST(!events.contains(secret));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pipeline_halts, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(a_new_slot_needs_a_start_mode) {
  fixture f;
  memory_sink sink;
  f.options.start = replicant::start::resume_only{};
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::go_forward_required);
  BOOST_TEST(events.disconnected(halt_reason::go_forward_required));
  BOOST_TEST(!f.slot_exists(), "a refused start leaves no slot behind");
}

BOOST_AUTO_TEST_CASE(a_missing_slot_halts_when_creating_it_is_not_allowed) {
  fixture f;
  memory_sink sink;
  event_log events;
  f.options.create_slot = false;
  {
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(r.halted() == halt_reason::slot_missing);
  }
  BOOST_TEST(!f.slot_exists());
  BOOST_TEST(events.disconnected(halt_reason::slot_missing));
  // Once someone else made it, the same options stream from it.
  f.sql("SELECT pg_create_logical_replication_slot('" + f.slot + "', 'pgoutput')");
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  f.sql("INSERT INTO items VALUES (1, 'a', 1)");
  BOOST_TEST(sink.wait_for_rows(1));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_physical_slot_of_the_name_halts_and_is_left_alone) {
  fixture f;
  memory_sink sink;
  event_log events;
  f.sql("SELECT pg_create_physical_replication_slot('" + f.slot + "', true)");
  {
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(r.halted() == halt_reason::slot_plugin_mismatch);
  }
  BOOST_TEST(events.disconnected(halt_reason::slot_plugin_mismatch));
  BOOST_TEST(f.pg.scalar("SELECT slot_type FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'", f.db) ==
             "physical");
}

BOOST_AUTO_TEST_CASE(start_time_rejections_happen_before_connecting) {
  fixture f;
  memory_sink sink;
  auto o = f.options;
  o.slot = "Bad-Slot";
  event_log bad_name;
  BOOST_TEST(running(sink, f.pgoutput, o, &bad_name.dispatcher).halted() == halt_reason::invalid_identifier);
  BOOST_TEST(bad_name.disconnected(halt_reason::invalid_identifier));
  o = f.options;
  o.start = replicant::start::point_in_time_snapshot{};
  event_log no_snapshot;
  BOOST_TEST(running(sink, f.pgoutput, o, &no_snapshot.dispatcher).halted() == halt_reason::snapshot_unsupported);
  BOOST_TEST(no_snapshot.disconnected(halt_reason::snapshot_unsupported));
  o.start = replicant::start::point_in_time_snapshot{.batch_rows = 0};
  event_log bad_setting;
  BOOST_TEST(running(sink, f.pgoutput, o, &bad_setting.dispatcher).halted() == halt_reason::config_invalid);
  BOOST_TEST(bad_setting.disconnected(halt_reason::config_invalid));
  BOOST_TEST(!f.slot_exists());
}

BOOST_AUTO_TEST_CASE(a_missing_publication_halts) {
  fixture f;
  memory_sink sink;
  f.pgoutput.publications = {"pub", "nope"};
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::publication_missing);
  BOOST_TEST(events.disconnected(halt_reason::publication_missing));
}

BOOST_AUTO_TEST_CASE(a_dropped_publication_halts_on_reconnect) {
  fixture f;
  memory_sink sink;
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  f.sql("DROP PUBLICATION pub");
  // Make the walsender go away; the reconnect's checks find the publication gone.
  f.pg.sql("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'");
  BOOST_TEST(r.halted() == halt_reason::publication_missing);
}

BOOST_AUTO_TEST_CASE(a_publication_dropped_while_streaming_halts_without_a_reconnect) {
  // PostgreSQL 15-17 end the stream at the next change; 18 skips the publication with a warning,
  // which the periodic check catches.
  fixture f;
  memory_sink sink;
  event_log events;
  f.options.publication_check_interval = 200ms;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  f.sql("DROP PUBLICATION pub");
  f.sql("INSERT INTO items VALUES (2, 'b', 2)");
  BOOST_TEST(r.halted() == halt_reason::publication_missing);
  BOOST_TEST(events.contains("reason=publication_missing"));
  BOOST_TEST(sink.snapshot().size() == 1U);
}

BOOST_AUTO_TEST_CASE(a_sink_error_halts_and_nothing_past_it_is_acknowledged) {
  fixture f;
  memory_sink sink;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  sink.before_store = [](const replicant::transaction&) -> result<void> {
    return replicant::fail(replicant::errc::sink_failed);
  };
  f.sql("INSERT INTO items VALUES (2, '" + std::string{secret} + "', 2)");
  BOOST_TEST(r.halted() == halt_reason::sink_failed);
  BOOST_TEST(events.disconnected(halt_reason::sink_failed));
  BOOST_TEST(events.count("replicant.sink.failed ") == 1U);
  const auto h = r.pipeline.last_halt();
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST(replicant::describe(*h).find(secret) == std::string::npos);
  // The failed transaction was not acknowledged: a new pipeline gets it again.
  BOOST_TEST(f.confirmed_flush() <= h->at.value());
  sink.before_store = nullptr;
  running again{sink, f.pgoutput, f.options};
  BOOST_TEST(sink.wait_for_rows(2));
}

BOOST_AUTO_TEST_CASE(a_sink_exception_propagates_unchanged) {
  fixture f;
  memory_sink sink;
  f.create_slot(sink);
  f.sql("INSERT INTO items VALUES (1, 'a', 1)");
  sink.before_store = [](const replicant::transaction&) -> result<void> { throw std::domain_error("sink broke"); };
  memory_pipeline p{sink, f.pgoutput, f.options};
  BOOST_CHECK_THROW(p.run(), std::domain_error);
  BOOST_TEST(p.last_halt().value().reason == halt_reason::sink_failed);
}

BOOST_AUTO_TEST_CASE(a_destructive_schema_change_halts_unless_the_sink_accepts_it) {
  fixture f;
  memory_sink sink;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  f.sql("ALTER TABLE items DROP COLUMN qty");
  f.sql("INSERT INTO items VALUES (2, 'b')");
  BOOST_TEST(r.halted() == halt_reason::schema_change_rejected);
  BOOST_TEST(events.disconnected(halt_reason::schema_change_rejected));
  BOOST_TEST(r.pipeline.last_halt()->table.value().name == "items");
  BOOST_TEST(events.contains("replicant.schema_change.halted"));

  sink.on_schema_change = [](const replicant::schema_change&) -> result<void> { return {}; };
  running accepted{sink, f.pgoutput, f.options};
  BOOST_TEST(sink.wait_for_rows(2));
}

BOOST_AUTO_TEST_CASE(a_destructive_schema_change_halts_a_sink_without_the_hook) {
  struct plain_sink {
    std::optional<lsn> stored;
    auto checkpoint() -> result<std::optional<lsn>> { return stored; }
    auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
      stored = t.commit_lsn();
      return t.commit_lsn();
    }
  };
  fixture f;
  plain_sink sink;
  event_log events;
  replicant::pgoutput_pipeline<plain_sink> p{sink, f.pgoutput, f.options, &events.dispatcher};
  std::error_code ec;
  std::thread t{[&] { p.run(ec); }};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  f.sql("INSERT INTO items VALUES (1, 'a', 1)");
  f.sql("ALTER TABLE items ALTER COLUMN qty TYPE smallint");  // a narrowing (a widening goes on)
  f.sql("INSERT INTO items VALUES (2, 'b', 2)");
  t.join();
  BOOST_TEST(ec == replicant::errc::halted);
  BOOST_TEST_REQUIRE(p.last_halt().has_value());
  BOOST_TEST(p.last_halt()->reason == halt_reason::schema_change_destructive);
  BOOST_TEST(events.disconnected(halt_reason::schema_change_destructive));
  BOOST_TEST(p.last_halt()->table.value().name == "items");
  BOOST_TEST(sink.stored.has_value());  // the transaction before the change was delivered
}

BOOST_AUTO_TEST_CASE(the_sink_can_veto_the_session_and_the_origin) {
  struct vetoing_sink : memory_sink {
    bool veto_identity = true;
    auto handle_session_identity(const replicant::session_identity& id, const replicant::session_context& ctx)
        -> result<void> {
      BOOST_TEST(!id.system_identifier.empty());
      BOOST_TEST(ctx.publications.size() == 1U);
      if (veto_identity) return replicant::fail(replicant::errc::sink_failed);
      return {};
    }
    auto handle_slot_origin(lsn origin, const replicant::slot_origin_context&) -> result<void> {
      BOOST_TEST(origin.is_valid());
      return replicant::fail(replicant::errc::sink_failed);
    }
  };
  fixture f;
  vetoing_sink sink;
  using vetoing_pipeline = replicant::pgoutput_pipeline<vetoing_sink>;
  // run(ec) says that it stopped (errc::halted), the halt says why.
  const auto halt_of = [&](event_log& events) {
    vetoing_pipeline p{sink, f.pgoutput, f.options, &events.dispatcher};
    std::error_code ec;
    p.run(ec);
    return ec == replicant::errc::halted && p.last_halt() ? p.last_halt()->reason : halt_reason{};
  };
  event_log identity;
  BOOST_TEST(halt_of(identity) == halt_reason::session_identity_rejected);
  BOOST_TEST(identity.disconnected(halt_reason::session_identity_rejected));
  sink.veto_identity = false;
  event_log origin;
  BOOST_TEST(halt_of(origin) == halt_reason::slot_origin_rejected);
  BOOST_TEST(origin.disconnected(halt_reason::slot_origin_rejected));
}

// A slot whose creation is still under way elsewhere is listed already: logical, held by its
// creator, and with no confirmed position until the creator finds a consistent point, which waits
// for every transaction that holds an xid to end. A sink that judges the stream's origin cannot be
// told one then, and the pipeline halts rather than invent it (nor is the hook called).
BOOST_AUTO_TEST_CASE(a_slot_another_client_is_still_creating_halts_slot_origin_unavailable) {
  struct origin_judging_sink : memory_sink {
    std::atomic<bool> asked{false};
    auto handle_slot_origin(lsn, const replicant::slot_origin_context&) -> result<void> {
      asked.store(true);
      return {};
    }
  };
  using judging_pipeline = replicant::pgoutput_pipeline<origin_judging_sink>;
  fixture f;
  replicant::test::pg_connection holder{f.pg.dsn(f.db)};
  holder.exec("BEGIN");
  holder.exec("INSERT INTO items VALUES (1, 'a', 1)");  // an xid the slot's creation must see end
  replicant::test::pg_connection other{f.pg.dsn(f.db)};
  std::thread creator{[&] {
    static_cast<void>(other.try_exec("SELECT pg_create_logical_replication_slot('" + f.slot + "', 'pgoutput')"));
  }};
  const auto being_created = [&] {
    return f.pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + f.slot +
                       "' AND slot_type = 'logical' AND confirmed_flush_lsn IS NULL") == "1";
  };
  const bool seen_early = fixture::wait_until(being_created);
  origin_judging_sink sink;
  event_log events;
  halt_reason reason{};
  if (seen_early) {
    replicant::test::running<judging_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    reason = r.halted();
  }
  const bool still_being_created = being_created();  // so the halt met the slot as it was meant to
  holder.exec("COMMIT");
  creator.join();
  BOOST_TEST_REQUIRE(seen_early, "the slot was never listed without its position");
  BOOST_TEST(still_being_created);
  BOOST_TEST(reason == halt_reason::slot_origin_unavailable);
  BOOST_TEST(events.disconnected(halt_reason::slot_origin_unavailable));
  BOOST_TEST(!sink.asked.load(), "the hook was called without an origin");
  // Created, the slot has its position, and the same sink is asked and streams.
  replicant::test::running<judging_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  BOOST_TEST(sink.asked.load());
  f.sql("INSERT INTO items VALUES (2, 'b', 2)");
  BOOST_TEST(sink.wait_for_rows(1));
  BOOST_TEST(!r.stop());
}

// A hook that throws is a veto with the exception attached: the halt of its hook, reported in
// telemetry, and run() rethrows the exception unchanged. It never aborts the process.
BOOST_AUTO_TEST_CASE(a_hook_that_throws_halts_with_the_hook_s_reason) {
  struct throwing_sink : memory_sink {
    bool throw_in_identity = true;
    auto handle_session_identity(const replicant::session_identity&, const replicant::session_context&)
        -> result<void> {
      if (throw_in_identity) throw std::runtime_error("identity hook");
      return {};
    }
    auto handle_slot_origin(lsn, const replicant::slot_origin_context&) -> result<void> {
      throw std::runtime_error("origin hook");
    }
  };
  fixture f;
  throwing_sink sink;
  using throwing_pipeline = replicant::pgoutput_pipeline<throwing_sink>;
  const auto halt_of = [&] {
    event_log events;
    throwing_pipeline p{sink, f.pgoutput, f.options, &events.dispatcher};
    std::error_code ec;
    p.run(ec);
    const auto reason = ec == replicant::errc::halted && p.last_halt() ? p.last_halt()->reason : halt_reason{};
    BOOST_TEST(events.count("replicant.connection.disconnected reason=" + std::string{replicant::to_string(reason)}) ==
               1U);
    return reason;
  };
  BOOST_TEST(halt_of() == halt_reason::session_identity_rejected);
  sink.throw_in_identity = false;
  BOOST_TEST(halt_of() == halt_reason::slot_origin_rejected);
  // run() gives the sink's own exception back.
  throwing_pipeline p{sink, f.pgoutput, f.options};
  BOOST_CHECK_EXCEPTION(p.run(), std::runtime_error,
                        [](const std::runtime_error& e) { return std::string_view{e.what()} == "origin hook"; });
  BOOST_TEST(p.last_halt()->reason == halt_reason::slot_origin_rejected);
}

BOOST_AUTO_TEST_CASE(a_slot_in_use_elsewhere_halts_after_the_command_retry_budget) {
  fixture f;
  memory_sink sink;
  event_log events;
  running first{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  memory_sink other;
  auto o = f.options;
  o.max_command_retries = 2;
  running second{other, f.pgoutput, o, &events.dispatcher};
  BOOST_TEST(second.halted() == halt_reason::command_error_limit);
  BOOST_TEST(second.pipeline.last_halt()->attempts.value() == 3U);
  BOOST_TEST(events.contains("replicant.connection.command_error_halt"));
  // Each cycle is reported as it happens, so that an alert need not wait for the halt.
  for (const int attempt : {1, 2, 3}) {
    BOOST_TEST(events.count("replicant.connection.command_error attempt=" + std::to_string(attempt) +
                            " max_retries=2 slot_name=" + f.slot + " error_class=server_error") == 1U,
               attempt);
  }
  BOOST_TEST(events.count("replicant.connection.command_error ") == 3U);
  BOOST_TEST(events.disconnected(halt_reason::command_error_limit));
}

// A session the server ends after it has streamed (here: after a keepalive, on a publication with
// no change at all) is not one of the command errors that max_command_retries bounds: the server
// ends such sessions more times in a row than the budget, and the pipeline keeps reconnecting.
BOOST_AUTO_TEST_CASE(a_quiet_session_ended_by_the_server_again_and_again_does_not_halt) {
  fixture f;
  memory_sink sink;
  auto o = f.options;
  o.max_command_retries = 1;
  // The walsender asks for a reply after 250 ms of silence; the pipeline's own status updates come
  // hourly. So a reply that comes a while after the walsender started proves that the pipeline
  // received that keepalive: then the session has streamed.
  o.conninfo += " options='-c wal_sender_timeout=500'";
  o.status_interval = std::chrono::hours{1};
  running r{sink, f.pgoutput, o};
  const auto answered_a_keepalive = [&] {
    return f.pg.scalar(
               "SELECT count(*) FROM pg_stat_replication s JOIN pg_replication_slots r ON r.active_pid = s.pid "
               "WHERE r.slot_name = '" +
               f.slot + "' AND s.reply_time > s.backend_start + interval '300 milliseconds'") == "1";
  };
  for (std::uint32_t ended = 0; ended <= o.max_command_retries + 2; ++ended) {
    BOOST_TEST_REQUIRE(fixture::wait_until(answered_a_keepalive), "session " << ended);
    const auto pid = f.pg.scalar("SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'");
    f.pg.sql("SELECT pg_terminate_backend(" + pid + ")");
    BOOST_TEST_REQUIRE(fixture::wait_until(
        [&] { return f.pg.scalar("SELECT count(*) FROM pg_stat_replication WHERE pid = " + pid) == "0"; }));
  }
  BOOST_TEST(!r.ended.load(), "the pipeline halted");
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
}

BOOST_AUTO_TEST_CASE(transactions_can_be_filtered_by_origin) {
  fixture f;
  // Marks the session's transactions as replicated from elsewhere, as an apply worker would.
  const auto from_elsewhere = [&](int id) {
    f.sql("SELECT pg_replication_origin_session_setup('elsewhere'); INSERT INTO items VALUES (" + std::to_string(id) +
          ", 'o', 1); SELECT pg_replication_origin_session_reset()");
  };
  f.sql("SELECT pg_replication_origin_create('elsewhere')");
  for (const auto filter : {replicant::origin_filter::none, replicant::origin_filter::any}) {
    BOOST_TEST_CONTEXT("origin " << (filter == replicant::origin_filter::none ? "none" : "any")) {
      f.sql("DELETE FROM items");
      memory_sink sink;
      event_log events;
      auto o = f.options;
      auto p = f.pgoutput;
      p.origin = filter;
      o.slot = f.slot + (filter == replicant::origin_filter::none ? "_n" : "_a");
      running r{sink, p, o, &events.dispatcher};
      if (f.pg.major() < 16) {
        BOOST_TEST(r.halted() == halt_reason::origin_unsupported);
        BOOST_TEST(events.disconnected(halt_reason::origin_unsupported));
        continue;
      }
      BOOST_TEST_REQUIRE(fixture::wait_until([&] {
        return f.pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + o.slot + "' AND active") ==
               "1";
      }));
      from_elsewhere(1);
      f.sql("INSERT INTO items VALUES (2, 'local', 1)");
      if (filter == replicant::origin_filter::none) {
        BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
        std::this_thread::sleep_for(300ms);
        BOOST_TEST((ids(sink.snapshot()) == std::vector<std::string>{"insert:2"}));
      } else {
        BOOST_TEST_REQUIRE(sink.wait_for_rows(2));
        BOOST_TEST((ids(sink.snapshot()) == std::vector<std::string>{"insert:1", "insert:2"}));
      }
      BOOST_TEST(!r.stop());
      f.pg.sql("SELECT pg_drop_replication_slot('" + o.slot + "')");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_heartbeat_lets_an_append_log_release_wal_while_its_tables_are_idle) {
  fixture f;
  f.sql(
      "CREATE TABLE beats (id int PRIMARY KEY, at timestamptz); CREATE TABLE busy (n int); "
      "ALTER PUBLICATION pub ADD TABLE beats");
  append_sink sink;
  event_log events;
  f.options.heartbeat_interval = 200ms;
  f.options.heartbeat_statement = "INSERT INTO beats VALUES (1, now()) ON CONFLICT (id) DO UPDATE SET at = now()";
  replicant::test::running<replicant::pgoutput_pipeline<append_sink>> r{sink, f.pgoutput, f.options,
                                                                        &events.dispatcher};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  // Busy, but not with anything published: WAL grows.
  for (int i = 0; i < 20; ++i) f.sql("INSERT INTO busy SELECT g FROM generate_series(1, 1000) g");
  const auto written = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
  BOOST_TEST(fixture::wait_until([&] { return f.confirmed_flush() > written; }));
  BOOST_TEST(events.contains("replicant.connection.heartbeat"));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(the_default_heartbeat_reports_its_lsn) {
  fixture f;
  memory_sink sink;
  event_log events;
  f.options.heartbeat_interval = 100ms;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(
      fixture::wait_until([&] { return events.contains("replicant.connection.heartbeat commit_lsn="); }));
  BOOST_TEST(!r.stop());
  for (const auto& line : events.lines) BOOST_TEST(line.find("heartbeat error_class=") == std::string::npos, line);
}

// A heartbeat that cannot run (here a statement the server refuses; on a standby, any write) is
// reported every time, value-free, and streaming goes on.
BOOST_AUTO_TEST_CASE(a_failing_heartbeat_is_reported_and_streaming_goes_on) {
  fixture f;
  memory_sink sink;
  event_log events;
  f.options.heartbeat_interval = 100ms;
  f.options.heartbeat_statement = "SELECT 1 / 0";
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(
      fixture::wait_until([&] { return events.contains("replicant.connection.heartbeat error_class=server_error"); }));
  f.sql("INSERT INTO items VALUES (1, 'a', 1)");
  BOOST_TEST(sink.wait_for_rows(1));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(failover_is_refused_below_postgresql_17) {
  fixture f;
  memory_sink sink;
  f.options.failover = true;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  if (f.pg.major() < 17) {
    BOOST_TEST(r.halted() == halt_reason::failover_unsupported);
    BOOST_TEST(events.disconnected(halt_reason::failover_unsupported));
    BOOST_TEST(!f.slot_exists());
  } else {
    BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
    BOOST_TEST(f.pg.scalar("SELECT failover FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'") == "t");
    BOOST_TEST(!r.stop());
  }
}

// wal_removed, on every major: the slot fell further behind than max_slot_wal_keep_size allows
// while nobody streamed from it. The halt and its event carry the class, and nothing else.
BOOST_AUTO_TEST_CASE(an_invalidated_slot_halts) {
  fixture f;
  memory_sink sink;
  f.create_slot(sink);
  BOOST_TEST_REQUIRE(remove_wal_of_the_slot(f));
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::slot_invalidated);
  BOOST_TEST(invalidation_class(r) == "wal_removed");
  BOOST_TEST(events.contains(invalidated_event(f.slot, "wal_removed")));
  BOOST_TEST(events.contains("replicant.connection.disconnected reason=slot_invalidated"));
  BOOST_TEST(!events.contains(secret));
}

// The same while streaming: an append log's slot stays at what it stored while WAL nobody
// publishes piles up, the checkpoint ends its walsender and invalidates it, and the reconnect's
// checks find it, with its class.
BOOST_AUTO_TEST_CASE(a_slot_invalidated_while_streaming_halts_with_its_class_at_the_reconnect) {
  fixture f;
  append_sink sink;
  event_log events;
  replicant::test::running<replicant::pgoutput_pipeline<append_sink>> r{sink, f.pgoutput, f.options,
                                                                        &events.dispatcher};
  BOOST_TEST_REQUIRE(f.first_row_delivered(sink));
  BOOST_TEST_REQUIRE(remove_wal_of_the_slot(f));
  BOOST_TEST(r.halted() == halt_reason::slot_invalidated);
  BOOST_TEST(invalidation_class(r) == "wal_removed");
  BOOST_TEST(events.contains(invalidated_event(f.slot, "wal_removed")));
  BOOST_TEST(events.contains("replicant.connection.disconnected reason=slot_invalidated"));
  BOOST_TEST(sink.snapshot().size() == 1U);
  BOOST_TEST(!events.contains(secret));
}

// idle_timeout, on PostgreSQL 18: a slot nobody streamed from for longer than
// idle_replication_slot_timeout (seconds; restored afterwards) is invalidated by the next
// checkpoint.
BOOST_AUTO_TEST_CASE(a_slot_idle_past_the_timeout_halts_idle_timeout_from_postgresql_18) {
  fixture f;
  if (!f.pg.has_setting("idle_replication_slot_timeout")) return;  // before 18: no such invalidation
  memory_sink sink;
  f.create_slot(sink);
  {
    const replicant::test::scoped_setting timeout{f.pg, "idle_replication_slot_timeout", "1s"};
    const auto reason =
        "SELECT COALESCE(invalidation_reason, '') FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'";
    // The timeout counts from when the slot was released; only a checkpoint looks at it.
    BOOST_TEST_REQUIRE(fixture::wait_until([&] {
      f.pg.sql("CHECKPOINT");
      if (f.pg.scalar(reason) == "idle_timeout") return true;
      std::this_thread::sleep_for(200ms);
      return false;
    }));
  }
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST(r.halted() == halt_reason::slot_invalidated);
  BOOST_TEST(invalidation_class(r) == "idle_timeout");
  BOOST_TEST(events.contains(invalidated_event(f.slot, "idle_timeout")));
  BOOST_TEST(events.contains("replicant.connection.disconnected reason=slot_invalidated"));
}

BOOST_AUTO_TEST_CASE(a_transaction_larger_than_the_budget_halts) {
  fixture f;
  memory_sink sink;
  f.options.max_inflight_bytes = 64 * 1024;
  event_log events;
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(fixture::wait_until([&] { return f.slot_active(); }));
  f.sql("INSERT INTO items SELECT g, repeat('x', 100), g FROM generate_series(1, 5000) g");
  BOOST_TEST(r.halted() == halt_reason::transaction_too_large);
  BOOST_TEST(events.disconnected(halt_reason::transaction_too_large));
  BOOST_TEST(sink.snapshot().empty());
}

// A backlog of @p n one-row transactions with ids from @p first, written while no pipeline runs:
// the WAL it spans.
auto write_backlog(fixture& f, int first, int n) -> std::int64_t {
  const auto before = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()", f.db)).value();
  f.sql("DO $$ BEGIN FOR i IN " + std::to_string(first) + ".." + std::to_string(first + n - 1) +
        " LOOP INSERT INTO items VALUES (i, repeat('y', 200), i); COMMIT; END LOOP; END $$");
  const auto after = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()", f.db)).value();
  return replicant::distance(before, after);
}

// Half a minute of pacing a sink against the server's WAL, which is the same on every major.
BOOST_AUTO_TEST_CASE(a_slow_sink_catches_up_on_a_backlog_but_halts_when_it_falls_ever_further_behind,
                     *utf::precondition(replicant::test::major_independent)) {
  fixture f;
  memory_sink sink;
  f.create_slot(sink);
  // The lag is the server's WAL less the durable position: an autovacuum of the backlog's table
  // writing WAL while a slow (sanitized, shared) machine catches up would make it look as if the
  // sink did not.
  f.sql("ALTER TABLE items SET (autovacuum_enabled = false)");
  // A small resident budget keeps each turn's reading short, and a short status interval makes the
  // lag be measured five times a second.
  f.options.max_inflight_bytes = 32 * 1024;
  f.options.status_interval = 200ms;
  sink.before_store = [](const replicant::transaction&) -> result<void> {
    std::this_thread::sleep_for(3ms);
    return {};
  };
  // A backlog at half the bound: warned of, and caught up on without a halt. (Past the bound and
  // shrinking, it would be caught up on too, but a sanitized run on a shared machine can spend ten
  // measurements without a transaction stored; the window itself is wal_lag_watch's unit test.)
  const auto backlog = write_backlog(f, 1, 3000);
  f.options.max_wal_lag = static_cast<std::size_t>(backlog * 2);
  {
    event_log events;
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(sink.wait_for_rows(3000, 120s));
    BOOST_TEST(!r.stop());
    BOOST_TEST(events.count("replicant.sink.lagging lag_bytes=") >= 1U);
    BOOST_TEST(!events.contains("sink_too_slow"));
  }
  // A writer faster than the sink for good: the lag passes the bound and keeps growing, and the
  // pipeline halts with it, having acknowledged nothing it has not stored. The writer goes on until
  // the pipeline has ended (a writer that stopped first would let the sink catch up, rightly). It
  // is paced at about 2,000 transactions a second, six times the sink's rate: flat out it would
  // write millions for the restart below to catch up on, and take a core from the rest of the suite.
  f.options.max_wal_lag = 256 * 1024;
  std::atomic<bool> writing{true};
  int written = 3000;
  std::thread writer{[&] {
    while (writing.load()) {
      write_backlog(f, written + 1, 100);
      written += 100;
      std::this_thread::sleep_for(50ms);
    }
  }};
  {
    event_log events;
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    const bool ended = r.ends_within(120s);
    writing.store(false);
    writer.join();
    BOOST_TEST_REQUIRE(ended, "the pipeline did not halt while the writer ran ahead of it");
    BOOST_TEST(r.halted() == halt_reason::sink_too_slow);
    BOOST_TEST(r.pipeline.last_halt()->lag_bytes.value() > 256 * 1024);
    BOOST_TEST(events.count("replicant.sink.lagging lag_bytes=") >= 1U);
    BOOST_TEST(events.count("replicant.connection.disconnected lag_bytes=") == 1U);
    BOOST_TEST(events.disconnected(halt_reason::sink_too_slow));
    // The lag under the reference's name too, the same number, in the warning and in the halt.
    for (const std::string event : {"replicant.sink.lagging ", "replicant.connection.disconnected lag_bytes="}) {
      const auto line = events.last(1, event);
      const auto bytes = line.find("lag_bytes=");
      BOOST_TEST_REQUIRE(bytes != std::string::npos, event);
      const auto value = line.substr(bytes + 10, line.find(' ', bytes) - bytes - 10);
      BOOST_TEST(line.find(" lag=" + value + " ") != std::string::npos, line);
    }
  }
  const auto total = static_cast<std::size_t>(written);
  BOOST_TEST(sink.snapshot().size() < total);
  // A restart goes on where the halt stopped (with a sink that keeps up, and no bound).
  sink.before_store = nullptr;
  f.options.max_wal_lag = 0;
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST(sink.wait_for_rows(total, 120s));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(messages_need_a_sink_that_takes_them) {
  struct plain_sink {
    auto checkpoint() -> result<std::optional<lsn>> { return std::optional<lsn>{}; }
    auto handle_transaction(const replicant::transaction& t) -> result<lsn> { return t.commit_lsn(); }
  };
  fixture f;
  plain_sink sink;
  f.pgoutput.messages = true;
  std::error_code ec;
  event_log events;
  replicant::pgoutput_pipeline<plain_sink> p{sink, f.pgoutput, f.options, &events.dispatcher};
  p.run(ec);
  BOOST_TEST(ec == replicant::errc::halted);
  BOOST_TEST_REQUIRE(p.last_halt().has_value());
  BOOST_TEST(p.last_halt()->reason == halt_reason::messages_unsupported);
  BOOST_TEST(events.disconnected(halt_reason::messages_unsupported));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // pipeline_tests
