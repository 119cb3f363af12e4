// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Hostile input against a live server, once per PostgreSQL major: names a user may give the
// pipeline (quotes, semicolons, unicode, too long, empty) are refused value-free before anything
// is sent; names the server reports (schemas, tables, columns with quotes, semicolons, unicode,
// 63 bytes) are delivered exactly; and values of hostile size or shape (a 100 MiB value, deeply
// nested arrays and JSON) are delivered exactly, or refused value-free when they do not fit the
// memory budget.
#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/sinks/dedup_checkpoint.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <replicant/checkpoint/sink_owned.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline.hpp>
#include <replicant/spill/none.hpp>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(hostile_input_tests)

namespace utf = boost::unit_test;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::event_log;
using replicant::test::published_database;
using replicant::test::running;
using replicant::test::wait_until;

namespace {

constexpr std::string_view secret = "s3cr3t-HOSTILE-4242";

// One delivered change: where it came from, and its columns as names and text.
struct delivered_change {
  std::string schema;
  std::string table;
  std::vector<std::string> names;
  std::vector<std::optional<std::string>> texts;  // nothing for NULL
};

// Keeps every change whole (names and the text of every value), with its checkpoint.
struct keeping_sink : replicant::test::dedup_checkpoint {
  std::mutex mutex;
  std::vector<delivered_change> changes;

  auto checkpoint() -> result<std::optional<lsn>> {
    const std::lock_guard lock{mutex};
    return dedup_checkpoint::checkpoint();
  }

  auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
    const std::lock_guard lock{mutex};
    if (already_applied(t)) return t.commit_lsn();
    for (const auto& c : t.changes()) {
      delivered_change d{c.relation().schema, c.relation().table, {}, {}};
      for (const auto& f : c.record()) {
        d.names.emplace_back(f.name());
        if (f.is_null()) {
          d.texts.emplace_back();
        } else {
          d.texts.emplace_back(f.raw().text());
        }
      }
      changes.push_back(std::move(d));
    }
    store(t.commit_lsn());
    return t.commit_lsn();
  }

  auto count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return changes.size();
  }
};

using keeping_pipeline = replicant::pgoutput_pipeline<keeping_sink>;

// Runs a pipeline with @p options until it ends by itself; returns its halt and what it said.
struct refusal_seen {
  std::optional<halt_reason> reason;
  std::string message;
  bool events_clean = true;
};

auto refusal_of(const replicant::pgoutput_options& pgoutput, const replicant::pipeline_options& options,
                std::string_view name) -> refusal_seen {
  keeping_sink sink;
  event_log events;
  running<keeping_pipeline> r{sink, pgoutput, options, &events.dispatcher};
  refusal_seen out;
  if (!r.ends_within(std::chrono::seconds(30))) {
    static_cast<void>(r.stop());
    return out;
  }
  const auto ec = r.join();
  out.message = ec.message();
  if (const auto& h = r.pipeline.last_halt()) {
    out.reason = h->reason;
    out.message += " | " + replicant::describe(*h);
  }
  out.events_clean = name.empty() || !events.contains(name);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hostile_input, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(names_given_to_the_pipeline_are_refused_value_free) {
  published_database f;
  const std::string long_name(64, 'a');
  // Slot names: only a-z, 0-9 and _, 1 to 63 bytes; nothing of the name in what is said.
  for (const std::string& bad : {std::string{"bad;slot"}, std::string{"Slot"}, std::string{}, std::string{"sl\u00f6t"},
                                 long_name, std::string{"x'; DROP TABLE items; --"}, std::string{"s3cr3t_slot\"q"}}) {
    auto o = f.options;
    o.slot = bad;
    const auto seen = refusal_of(f.pgoutput, o, bad);
    BOOST_TEST_REQUIRE(seen.reason.has_value(), "the pipeline ran with a hostile slot name");
    BOOST_TEST((*seen.reason == halt_reason::invalid_identifier));
    BOOST_TEST((bad.size() < 3 || seen.message.find(bad) == std::string::npos), "the name was repeated");
    BOOST_TEST(seen.events_clean);
  }
  // Publication names: plain identifiers of at most 63 bytes.
  for (const std::string& bad : {std::string{"pub'; DROP TABLE items; --"}, std::string{}, long_name,
                                 std::string{"p\u00fcb"}, std::string{"\"pub\""}, std::string{"pub pub"}}) {
    auto p = f.pgoutput;
    p.publications = {"pub", bad};
    const auto seen = refusal_of(p, f.options, bad);
    BOOST_TEST_REQUIRE(seen.reason.has_value(), "the pipeline ran with a hostile publication name");
    BOOST_TEST((*seen.reason == halt_reason::invalid_identifier));
    BOOST_TEST((bad.size() < 3 || seen.message.find(bad) == std::string::npos), "the name was repeated");
    BOOST_TEST(seen.events_clean);
  }
  // Nothing was created or dropped on the server along the way.
  BOOST_TEST(f.pg.scalar("SELECT count(*) FROM items", f.db) == "0");
  BOOST_TEST(f.pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '%slot%' AND slot_name <> '" +
                         f.slot + "'") == "0");
}

BOOST_AUTO_TEST_CASE(names_the_server_reports_are_delivered_exactly) {
  published_database f;
  const std::string schema = "Odd \"Schema\"; --";
  const std::string table = "Tab\"le \u00fc\u00df \U0001F418; DROP TABLE items; --";
  const std::string column = "Col \"1\"; SELECT 1; --";
  const std::string longest(63, 'z');  // the longest name PostgreSQL keeps whole
  const std::string qualified =
      "\"Odd \"\"Schema\"\"; --\".\"Tab\"\"le \u00fc\u00df \U0001F418; DROP TABLE items; --\"";
  f.sql("CREATE SCHEMA \"Odd \"\"Schema\"\"; --\"; CREATE TABLE " + qualified +
        " (id int PRIMARY KEY, \"Col \"\"1\"\"; SELECT 1; --\" text, " + longest +
        " text); ALTER PUBLICATION pub ADD TABLE " + qualified);
  keeping_sink sink;
  event_log events;
  running<keeping_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
  f.sql("INSERT INTO " + qualified + " VALUES (1, '" + std::string{secret} + "', 'it''s \"quoted\"; --')");
  BOOST_TEST_REQUIRE(wait_until([&] { return sink.count() >= 1; }));
  BOOST_TEST(!r.stop());
  const std::lock_guard lock{sink.mutex};
  const auto& c = sink.changes.at(0);
  BOOST_TEST(c.schema == schema);
  BOOST_TEST(c.table == table);
  BOOST_TEST(c.names == (std::vector<std::string>{"id", column, longest}), boost::test_tools::per_element());
  BOOST_TEST(c.texts.at(2).value_or("") == "it's \"quoted\"; --");
  BOOST_TEST(!events.contains(secret));
  BOOST_TEST(!events.contains("Tab\""), "a table name in telemetry");
}

BOOST_AUTO_TEST_CASE(values_of_hostile_size_and_shape_are_delivered_exactly_or_refused_value_free) {
  published_database f;
  // A 100 MiB value stored as it is (no compression), as one change of one transaction; nested
  // arrays at PostgreSQL's six-dimension limit; JSON nested 5,000 deep.
  f.sql(
      "CREATE TABLE blobs (id int PRIMARY KEY, big text, grid int[], doc json); "
      "ALTER TABLE blobs ALTER COLUMN big SET STORAGE EXTERNAL; ALTER PUBLICATION pub ADD TABLE blobs");
  constexpr std::size_t big_size = std::size_t{100} << 20U;
  const std::string unit{secret};
  const std::size_t repeats = big_size / unit.size();
  const std::string nested_json = std::string(5000, '[') + "1" + std::string(5000, ']');
  const std::string grid = "{{{{{{1,2},{3,4}}}}},{{{{{5,6},{7,8}}}}}}";
  const auto insert = [&](int id) {
    f.sql("INSERT INTO blobs VALUES (" + std::to_string(id) + ", repeat('" + unit + "', " + std::to_string(repeats) +
          "), '" + grid + "', '" + nested_json + "')");
  };

  // Within a budget that holds it: delivered byte for byte.
  {
    auto o = f.options;
    o.max_inflight_bytes = std::size_t{512} << 20U;
    keeping_sink sink;
    event_log events;
    running<keeping_pipeline> r{sink, f.pgoutput, o, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
    insert(1);
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.count() >= 1; }, std::chrono::seconds(120)));
    BOOST_TEST(!r.stop());
    const std::lock_guard lock{sink.mutex};
    const auto& c = sink.changes.at(0);
    const auto& big = c.texts.at(1);
    BOOST_TEST_REQUIRE(big.has_value());
    BOOST_TEST(big->size() == repeats * unit.size());
    bool same = true;
    for (std::size_t at = 0; at < big->size() && same; at += unit.size())
      same = big->compare(at, unit.size(), unit) == 0;
    BOOST_TEST(same, "the 100 MiB value arrived changed");
    BOOST_TEST(c.texts.at(2).value_or("") == grid);
    BOOST_TEST(c.texts.at(3).value_or("") == nested_json);
    BOOST_TEST(!events.contains(secret));
  }

  // Within the default 64 MiB budget it cannot be held: a value-free halt, nothing acknowledged.
  {
    const auto before = f.confirmed_flush();
    keeping_sink sink;
    event_log events;
    running<keeping_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    insert(2);
    BOOST_TEST_REQUIRE(r.ends_within(std::chrono::seconds(120)), "no halt");
    const auto ec = r.join();
    const auto& h = r.pipeline.last_halt();
    BOOST_TEST_REQUIRE(h.has_value());
    BOOST_TEST((h->reason == halt_reason::transaction_too_large));
    BOOST_TEST(ec.message().find(secret) == std::string::npos);
    BOOST_TEST(replicant::describe(*h).find(secret) == std::string::npos);
    BOOST_TEST(!events.contains(secret));
    BOOST_TEST(sink.count() == 0U);
    BOOST_TEST(f.confirmed_flush() >= before);
    BOOST_TEST(!sink.stored.has_value(), "nothing was stored");
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // hostile_input_tests
