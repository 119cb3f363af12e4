// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The point-in-time snapshot reader against a live server: a slot's exported snapshot is read
// exactly as of its moment, publications' column lists and row filters shape it as pgoutput would,
// batches are cut and flagged correctly, odd identifiers survive quoting, and every row and
// relation is the same as the streaming path gives for the same data. Failures stay value-free and
// leave the connection usable.
#include <replicant/snapshot/point_in_time.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/server/pq_session.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/pq/replication_stream.hpp>
#include <replicant/wire/framing.hpp>

#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(snapshot_reader_tests)

namespace utf = boost::unit_test;
using replicant::errc;
using replicant::exported_snapshot;
using replicant::point_in_time_snapshot;
using replicant::snapshot_batch;
using replicant::snapshot_context;
using replicant::snapshot_options;
using replicant::pq::connection;
using replicant::pq::session_kind;
using replicant::test::live_server;
using replicant::test::open_session;
using replicant::test::pg_cluster;

namespace {

constexpr std::string_view secret = "s3cr3t-VALUE-4711";

// A fresh database with @p setup run in it.
auto database(pg_cluster& pg, const std::string& setup) -> std::string {
  auto db = pg.unique_name("snap");
  pg.create_database(db);
  if (!setup.empty()) pg.sql(setup, db);
  return db;
}

// A temporary slot created with an exported snapshot, and the replication connection that keeps
// the snapshot alive (it must not run anything until the snapshot is imported).
struct exported_slot {
  connection repl;
  std::string slot;
  exported_snapshot snapshot;
};

auto export_slot(pg_cluster& pg, const std::string& db) -> exported_slot {
  auto repl = open_session(pg.replication_dsn(db), session_kind::replication);
  auto slot = pg.unique_name("slot");
  auto r = repl.exec("CREATE_REPLICATION_SLOT " + slot + " TEMPORARY LOGICAL pgoutput (SNAPSHOT 'export')");
  BOOST_TEST_REQUIRE(r.has_value());
  exported_snapshot snapshot{std::string{r->get(0, 2)}, replicant::parse_lsn(r->get(0, 1)).value()};
  BOOST_TEST_REQUIRE(replicant::validate_snapshot_name(snapshot.name).has_value());
  return exported_slot{std::move(repl), std::move(slot), std::move(snapshot)};
}

// One row as received: the raw text of each column (nothing for NULL) and its typed value, owned.
struct captured_row {
  std::vector<std::optional<std::string>> raw;
  std::vector<replicant::value> values;
};

auto capture_row(const replicant::row& r) -> captured_row {
  captured_row out;
  for (const replicant::field f : r) {
    out.raw.push_back(f.is_null() ? std::nullopt : std::optional<std::string>{std::string{f.raw().text()}});
    auto v = f.value();
    BOOST_TEST_REQUIRE(v.has_value());
    v->own();
    out.values.push_back(std::move(*v));
  }
  return out;
}

auto qualified(std::string_view schema, std::string_view table) -> std::string {
  return std::string{schema} + "." + std::string{table};
}

struct captured_batch {
  std::string table;
  std::size_t size = 0;
  snapshot_context context;
};

// Everything a snapshot read delivered.
struct capture {
  std::vector<captured_batch> batches;
  std::map<std::string, std::vector<captured_row>> rows;  // by schema.table
  std::map<std::string, replicant::relation_info> relations;

  auto handler() {
    return [this](const snapshot_batch& batch, const snapshot_context& ctx) -> replicant::result<void> {
      const auto name = qualified(batch.table().schema, batch.table().name);
      batches.push_back(captured_batch{name, batch.size(), ctx});
      relations.insert_or_assign(name, batch.relation());
      auto& table_rows = rows[name];
      for (const replicant::change& c : batch) {
        BOOST_TEST((c.op() == replicant::change_op::snapshot));
        BOOST_TEST(&c.relation() == &batch.relation());
        table_rows.push_back(capture_row(c.record()));
      }
      return {};
    };
  }

  // The text of column @p column of every row of @p table, sorted (rows come in no order).
  [[nodiscard]] auto column_texts(const std::string& table, std::size_t column) const -> std::vector<std::string> {
    std::vector<std::string> out;
    if (const auto it = rows.find(table); it != rows.end()) {
      for (const captured_row& r : it->second) out.push_back(r.raw.at(column).value_or("NULL"));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

auto read_snapshot(connection& conn, const exported_snapshot& snapshot, const std::vector<std::string>& publications,
                   capture& into, const snapshot_options& options = {})
    -> replicant::result<replicant::snapshot_summary> {
  return replicant::read_point_in_time_snapshot(conn, snapshot, publications, into.handler(), options);
}

// The current transaction isolation of @p conn: "repeatable read" only inside a snapshot's transaction.
auto isolation(connection& conn) -> std::string {
  auto r = conn.exec("SHOW transaction_isolation");
  BOOST_TEST_REQUIRE(r.has_value());
  return std::string{r->get(0, 0)};
}

auto numbers(int from, int to) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) out.push_back(std::to_string(i));
  std::sort(out.begin(), out.end());
  return out;
}

// Streams from @p slot on @p repl until @p rows inserts arrived; returns them with their relations.
struct streamed {
  replicant::assembler assembler{replicant::pgoutput_protocol{.version = 1}};
  std::vector<replicant::transaction> transactions;
};

auto stream_inserts(connection&& repl, const std::string& slot, const std::string& publications, std::size_t rows)
    -> std::unique_ptr<streamed> {
  auto out = std::make_unique<streamed>();
  auto s = replicant::pq::replication_stream::start(
      std::move(repl),
      "START_REPLICATION SLOT " + slot + " LOGICAL 0/0 (proto_version '1', publication_names '" + publications + "')");
  if (!s) BOOST_FAIL("start: " << s.error().message());
  struct handler {
    streamed* into;
    auto operator()(replicant::transaction&& t) -> replicant::result<void> {
      into->transactions.push_back(std::move(t));
      return {};
    }
    auto operator()(const replicant::logical_message&) -> replicant::result<void> { return {}; }
    auto operator()(const replicant::schema_change&) -> replicant::result<void> { return {}; }
    auto operator()(const replicant::empty_commit&) -> replicant::result<void> { return {}; }
    auto operator()(const replicant::prepared_event&) -> replicant::result<void> { return {}; }
    auto operator()(const replicant::rollback_prepared_event&) -> replicant::result<void> { return {}; }
    auto operator()(const replicant::stream_abort_event&) -> replicant::result<void> { return {}; }
  };
  const auto count = [&] {
    std::size_t n = 0;
    for (const auto& t : out->transactions) n += t.change_count();
    return n;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count() < rows && std::chrono::steady_clock::now() < deadline) {
    auto w = s->wait(-1, std::chrono::milliseconds(200));
    BOOST_TEST_REQUIRE(w.has_value());
    auto got = s->receive(
        [&](replicant::pq::frame&& f) {
          auto msg = replicant::parse_copy_data(f.bytes());
          BOOST_TEST_REQUIRE(msg.has_value());
          if (const auto* x = std::get_if<replicant::xlog_data>(&*msg)) {
            auto pushed = out->assembler.push(x->data, handler{out.get()});
            BOOST_TEST_REQUIRE(pushed.has_value());
          }
        },
        std::size_t{64} * 1024 * 1024);
    BOOST_TEST_REQUIRE(got.has_value());
  }
  BOOST_TEST_REQUIRE(count() == rows);
  static_cast<void>(s->finish());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(point_in_time, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(reads_exactly_the_rows_as_of_the_snapshot) {
  auto& pg = live_server();
  const auto db = database(pg,
                           "CREATE TABLE t (id int PRIMARY KEY, v text);"
                           "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 100) g;"
                           "CREATE TABLE other (id int PRIMARY KEY);"
                           "INSERT INTO other VALUES (1), (2);"
                           "CREATE PUBLICATION pub FOR TABLE t, other");
  auto exported = export_slot(pg, db);
  // Everything after the export stays invisible to the snapshot.
  pg.sql(
      "INSERT INTO t SELECT g, 'late' FROM generate_series(101, 150) g;"
      "UPDATE t SET v = 'changed' WHERE id <= 10;"
      "DELETE FROM t WHERE id > 90;"
      "INSERT INTO other VALUES (3)",
      db);

  auto conn = open_session(pg.dsn(db), session_kind::normal);
  capture got;
  const auto summary = read_snapshot(conn, exported.snapshot, {"pub"}, got);
  BOOST_TEST_REQUIRE(summary.has_value());
  BOOST_TEST(summary->tables == 2U);
  BOOST_TEST(summary->rows == 102U);
  BOOST_TEST(summary->consistent_point == exported.snapshot.consistent_point);
  BOOST_TEST(got.column_texts("public.t", 0) == numbers(1, 100));
  std::vector<std::string> values;
  for (int i = 1; i <= 100; ++i) values.push_back("v" + std::to_string(i));
  std::sort(values.begin(), values.end());
  BOOST_TEST(got.column_texts("public.t", 1) == values);
  BOOST_TEST(got.column_texts("public.other", 0) == numbers(1, 2));
  // Tables in the order of their names, each in one batch here.
  BOOST_TEST_REQUIRE(got.batches.size() == 2U);
  BOOST_TEST(got.batches[0].table == "public.other");
  BOOST_TEST(got.batches[1].table == "public.t");
  BOOST_TEST(got.batches[1].context.table_index == 1U);
  BOOST_TEST(got.batches[1].context.table_count == 2U);
  BOOST_TEST(got.batches[1].context.rows_before == 2U);
  BOOST_TEST(got.batches[1].context.consistent_point == exported.snapshot.consistent_point);
  // The transaction was committed: the connection is back outside any transaction.
  BOOST_TEST(isolation(conn) == "read committed");
}

BOOST_AUTO_TEST_CASE(honours_column_lists_and_row_filters) {
  auto& pg = live_server();
  const auto db = database(pg,
                           "CREATE TABLE t (id int PRIMARY KEY, a int, b text, hidden text);"
                           "INSERT INTO t SELECT g, g, 'b' || g, 'h' FROM generate_series(1, 20) g;"
                           "CREATE PUBLICATION pub FOR TABLE t (id, a) WHERE (a > 10 AND b <> 'b15')");
  auto exported = export_slot(pg, db);
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  auto snapshot = point_in_time_snapshot::open(conn, exported.snapshot, std::vector<std::string>{"pub"});
  BOOST_TEST_REQUIRE(snapshot.has_value());
  BOOST_TEST_REQUIRE(snapshot->tables().size() == 1U);
  BOOST_TEST(snapshot->tables()[0].row_filtered);
  const auto& relation = *snapshot->tables()[0].relation;
  BOOST_TEST_REQUIRE(relation.columns.size() == 2U);
  BOOST_TEST(relation.columns[0].name == "id");
  BOOST_TEST(relation.columns[1].name == "a");
  BOOST_TEST(relation.columns[0].key);
  BOOST_TEST(!relation.columns[1].key);
  capture got;
  const auto summary = snapshot->read(got.handler());
  BOOST_TEST_REQUIRE(summary.has_value());
  std::vector<std::string> expected = numbers(11, 20);
  expected.erase(std::find(expected.begin(), expected.end(), "15"));
  BOOST_TEST(got.column_texts("public.t", 0) == expected);
  BOOST_TEST(got.rows["public.t"].front().raw.size() == 2U);
}

BOOST_AUTO_TEST_CASE(publications_that_overlap_read_each_table_once) {
  auto& pg = live_server();
  const auto db = database(pg,
                           "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 100);"
                           "CREATE TABLE u (id int PRIMARY KEY); INSERT INTO u VALUES (1);"
                           "CREATE PUBLICATION p1 FOR TABLE t, u;"
                           "CREATE PUBLICATION p2 FOR TABLE t;"
                           "CREATE PUBLICATION low FOR TABLE t WHERE (id < 5);"
                           "CREATE PUBLICATION high FOR TABLE t WHERE (id > 95);"
                           "CREATE PUBLICATION narrow FOR TABLE u (id);"
                           "CREATE PUBLICATION everything FOR ALL TABLES");
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  {
    auto exported = export_slot(pg, db);
    capture got;
    const auto summary = read_snapshot(conn, exported.snapshot, {"p1", "p2", "p1", "everything"}, got);
    BOOST_TEST_REQUIRE(summary.has_value());
    BOOST_TEST(summary->tables == 2U);
    BOOST_TEST(got.column_texts("public.t", 0) == numbers(1, 100));
    BOOST_TEST(got.batches.size() == 2U);
  }
  {
    // Row filters of several publications: a row is read when any of them accepts it.
    auto exported = export_slot(pg, db);
    capture got;
    BOOST_TEST_REQUIRE(read_snapshot(conn, exported.snapshot, {"low", "high"}, got).has_value());
    auto expected = numbers(1, 4);
    for (auto& s : numbers(96, 100)) expected.push_back(s);
    std::sort(expected.begin(), expected.end());
    BOOST_TEST(got.column_texts("public.t", 0) == expected);
  }
  {
    // ... unless one of them has no filter at all.
    auto exported = export_slot(pg, db);
    capture got;
    BOOST_TEST_REQUIRE(read_snapshot(conn, exported.snapshot, {"low", "p2"}, got).has_value());
    BOOST_TEST(got.column_texts("public.t", 0) == numbers(1, 100));
  }
  {
    // A column list in one publication and none in another agree when the list has every column.
    auto exported = export_slot(pg, db);
    capture got;
    BOOST_TEST_REQUIRE(read_snapshot(conn, exported.snapshot, {"narrow", "p1"}, got).has_value());
    BOOST_TEST(got.column_texts("public.u", 0) == numbers(1, 1));
  }
}

BOOST_AUTO_TEST_CASE(different_column_lists_for_one_table_are_refused) {
  auto& pg = live_server();
  const auto db = database(pg,
                           "CREATE TABLE t (id int PRIMARY KEY, a int, b int);"
                           "CREATE PUBLICATION pa FOR TABLE t (id, a);"
                           "CREATE PUBLICATION pb FOR TABLE t (id, b)");
  auto exported = export_slot(pg, db);
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  capture got;
  const auto summary = read_snapshot(conn, exported.snapshot, {"pa", "pb"}, got);
  BOOST_TEST_REQUIRE(!summary.has_value());
  BOOST_TEST(summary.error() == errc::invalid_options);
  BOOST_TEST(got.batches.empty());
  BOOST_TEST(isolation(conn) == "read committed");
}

BOOST_AUTO_TEST_CASE(cuts_batches_by_rows_and_bytes_and_flags_them) {
  auto& pg = live_server();
  const auto db = database(pg,
                           "CREATE TABLE big (id int PRIMARY KEY, pad text);"
                           "INSERT INTO big SELECT g, repeat('x', 1000) FROM generate_series(1, 2500) g;"
                           "CREATE TABLE exact (id int); INSERT INTO exact SELECT generate_series(1, 1000);"
                           "CREATE TABLE empty (id int);"
                           "CREATE PUBLICATION pub FOR TABLE big, exact, empty");
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  {
    auto exported = export_slot(pg, db);
    capture got;
    const auto summary = read_snapshot(conn, exported.snapshot, {"pub"}, got);
    BOOST_TEST_REQUIRE(summary.has_value());
    BOOST_TEST(summary->rows == 3500U);
    BOOST_TEST_REQUIRE(got.batches.size() == 5U);
    // big: 1000 + 1000 + 500
    const std::vector<std::size_t> sizes{1000, 1000, 500, 0, 1000};
    const std::vector<std::string> tables{"public.big", "public.big", "public.big", "public.empty", "public.exact"};
    const std::vector<bool> firsts{true, false, false, true, true};
    const std::vector<bool> lasts{false, false, true, true, true};
    const std::vector<std::uint64_t> table_before{0, 1000, 2000, 0, 0};
    const std::vector<std::uint64_t> before{0, 1000, 2000, 2500, 2500};
    for (std::size_t i = 0; i < got.batches.size(); ++i) {
      BOOST_TEST_CONTEXT("batch " << i) {
        BOOST_TEST(got.batches[i].table == tables[i]);
        BOOST_TEST(got.batches[i].size == sizes[i]);
        BOOST_TEST(got.batches[i].context.first_for_table == firsts[i]);
        BOOST_TEST(got.batches[i].context.last_for_table == lasts[i]);
        BOOST_TEST(got.batches[i].context.table_rows_before == table_before[i]);
        BOOST_TEST(got.batches[i].context.rows_before == before[i]);
      }
    }
    BOOST_TEST(got.column_texts("public.big", 0) == numbers(1, 2500));
  }
  {
    // A byte bound cuts batches of wide rows early (each row here takes a little over 1000 bytes).
    auto exported = export_slot(pg, db);
    capture got;
    const auto summary =
        read_snapshot(conn, exported.snapshot, {"pub"}, got, {.batch_rows = 1000, .batch_bytes = 10000});
    BOOST_TEST_REQUIRE(summary.has_value());
    std::size_t big_batches = 0;
    for (const auto& b : got.batches) {
      if (b.table != "public.big") continue;
      ++big_batches;
      BOOST_TEST(b.size <= 10U);
    }
    BOOST_TEST(big_batches == 250U);
    BOOST_TEST(got.column_texts("public.big", 0) == numbers(1, 2500));
  }
}

BOOST_AUTO_TEST_CASE(quotes_odd_identifiers) {
  auto& pg = live_server();
  const auto db = database(
      pg,
      "CREATE SCHEMA \"Odd \"\"Schema\"\"\";"
      "CREATE TABLE \"Odd \"\"Schema\"\"\".\"Tab\"\"le \u00fc\u00df \U0001F418\" ("
      "  \"id\" int PRIMARY KEY, \"select\" text, \"col \"\"q\"\" \u00fc\" text, \"MiXeD\" int);"
      "INSERT INTO \"Odd \"\"Schema\"\"\".\"Tab\"\"le \u00fc\u00df \U0001F418\" VALUES (1, 's', 'q', 7);"
      "CREATE PUBLICATION \"Pub \"\"x\"\"\" FOR TABLE \"Odd \"\"Schema\"\"\".\"Tab\"\"le \u00fc\u00df \U0001F418\"");
  auto exported = export_slot(pg, db);
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  capture got;
  const auto summary = read_snapshot(conn, exported.snapshot, {"Pub \"x\""}, got);
  BOOST_TEST_REQUIRE(summary.has_value());
  const std::string name = "Odd \"Schema\".Tab\"le \u00fc\u00df \U0001F418";
  BOOST_TEST_REQUIRE(got.relations.count(name) == 1U);
  const auto& relation = got.relations.at(name);
  BOOST_TEST(relation.schema == "Odd \"Schema\"");
  BOOST_TEST(relation.table == "Tab\"le \u00fc\u00df \U0001F418");
  BOOST_TEST_REQUIRE(relation.columns.size() == 4U);
  BOOST_TEST(relation.columns[1].name == "select");
  BOOST_TEST(relation.columns[2].name == "col \"q\" \u00fc");
  BOOST_TEST(relation.columns[3].name == "MiXeD");
  BOOST_TEST(*got.rows.at(name).at(0).raw[3] == "7");
}

BOOST_AUTO_TEST_CASE(an_empty_publication_reads_nothing) {
  auto& pg = live_server();
  const auto db = database(pg, "CREATE TABLE t (id int); INSERT INTO t VALUES (1); CREATE PUBLICATION nothing_in_it");
  auto exported = export_slot(pg, db);
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  capture got;
  const auto summary = read_snapshot(conn, exported.snapshot, {"nothing_in_it"}, got);
  BOOST_TEST_REQUIRE(summary.has_value());
  BOOST_TEST(summary->tables == 0U);
  BOOST_TEST(summary->rows == 0U);
  BOOST_TEST(got.batches.empty());
  BOOST_TEST(isolation(conn) == "read committed");
}

BOOST_AUTO_TEST_CASE(partitions_follow_publish_via_partition_root) {
  auto& pg = live_server();
  const auto db =
      database(pg,
               "CREATE TABLE parted (id int, region text, PRIMARY KEY (id, region)) PARTITION BY LIST (region);"
               "CREATE TABLE parted_eu PARTITION OF parted FOR VALUES IN ('eu');"
               "CREATE TABLE parted_us PARTITION OF parted FOR VALUES IN ('us');"
               "INSERT INTO parted SELECT g, CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END FROM generate_series(1, 10) g;"
               "CREATE PUBLICATION via_root FOR TABLE parted WITH (publish_via_partition_root = true);"
               "CREATE PUBLICATION leaves FOR TABLE parted");
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  {
    auto exported = export_slot(pg, db);
    capture got;
    BOOST_TEST_REQUIRE(read_snapshot(conn, exported.snapshot, {"via_root"}, got).has_value());
    BOOST_TEST(got.rows.size() == 1U);
    BOOST_TEST(got.column_texts("public.parted", 0) == numbers(1, 10));
  }
  {
    auto exported = export_slot(pg, db);
    capture got;
    BOOST_TEST_REQUIRE(read_snapshot(conn, exported.snapshot, {"leaves"}, got).has_value());
    BOOST_TEST(got.rows.size() == 2U);
    BOOST_TEST(got.column_texts("public.parted_eu", 0).size() == 5U);
    BOOST_TEST(got.column_texts("public.parted_us", 0).size() == 5U);
  }
}

BOOST_AUTO_TEST_CASE(relations_are_shaped_as_pgoutput_describes_them) {
  // For every kind of table, the snapshot's relation equals the one the decoder builds from the
  // Relation message of a streamed insert: same OID, names, identity, columns, types, modifiers, keys.
  auto& pg = live_server();
  const auto db =
      database(pg,
               "CREATE TABLE with_pk (id int PRIMARY KEY, v varchar(20), n numeric(10,2));"
               "CREATE TABLE no_key (a int, b text);"
               "CREATE TABLE full_identity (a int, b text); ALTER TABLE full_identity REPLICA IDENTITY FULL;"
               "CREATE TABLE by_index (a int NOT NULL, b int NOT NULL, c text);"
               "CREATE UNIQUE INDEX by_index_ab ON by_index (b, a);"
               "ALTER TABLE by_index REPLICA IDENTITY USING INDEX by_index_ab;"
               "CREATE TABLE nothing_identity (id int PRIMARY KEY, v text);"
               "ALTER TABLE nothing_identity REPLICA IDENTITY NOTHING;"
               "CREATE TABLE composite (x int, y text, z int, PRIMARY KEY (z, x));"
               "CREATE TABLE dropped (id int PRIMARY KEY, gone text, kept text); ALTER TABLE dropped DROP COLUMN gone;"
               "CREATE TABLE generated (id int PRIMARY KEY, g int GENERATED ALWAYS AS (id * 2) STORED, v text);"
               "CREATE TABLE listed (id int PRIMARY KEY, a text, b text);"
               "CREATE TABLE deferred (id int PRIMARY KEY DEFERRABLE, v text);"
               "CREATE TABLE \"Quoted \"\"T\"\" \u00fc\" (\"Id\" int PRIMARY KEY, \"v \u00fc\" text);"
               "CREATE TABLE parted (id int PRIMARY KEY, v text) PARTITION BY RANGE (id);"
               "CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100);"
               "CREATE PUBLICATION pub FOR TABLE with_pk, no_key, full_identity, by_index, nothing_identity,"
               "  composite, dropped, generated, listed (id, b), deferred, \"Quoted \"\"T\"\" \u00fc\", parted"
               "  WITH (publish_via_partition_root = true)");
  auto exported = export_slot(pg, db);
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  capture got;
  auto snapshot = point_in_time_snapshot::open(conn, exported.snapshot, std::vector<std::string>{"pub"});
  BOOST_TEST_REQUIRE(snapshot.has_value());
  std::map<std::uint32_t, replicant::relation_info> from_snapshot;
  for (const auto& t : snapshot->tables()) from_snapshot.emplace(t.relation->oid, *t.relation);
  BOOST_TEST(from_snapshot.size() == 12U);
  BOOST_TEST_REQUIRE(snapshot->read(got.handler()).has_value());

  pg.sql(
      "INSERT INTO with_pk VALUES (1, 'v', 1.5); INSERT INTO no_key VALUES (1, 'b');"
      "INSERT INTO full_identity VALUES (1, 'b'); INSERT INTO by_index VALUES (1, 2, 'c');"
      "INSERT INTO nothing_identity VALUES (1, 'v'); INSERT INTO composite VALUES (1, 'y', 2);"
      "INSERT INTO dropped VALUES (1, 'k'); INSERT INTO generated (id, v) VALUES (1, 'v');"
      "INSERT INTO listed VALUES (1, 'a', 'b'); INSERT INTO deferred VALUES (1, 'v');"
      "INSERT INTO \"Quoted \"\"T\"\" \u00fc\" VALUES (1, 'v'); INSERT INTO parted VALUES (1, 'v')",
      db);
  const auto stream = stream_inserts(std::move(exported.repl), exported.slot, "pub", 12);
  std::size_t compared = 0;
  for (const auto& t : stream->transactions) {
    for (const replicant::change& c : t.changes()) {
      BOOST_TEST_CONTEXT("table " << c.relation().table) {
        BOOST_TEST_REQUIRE(from_snapshot.count(c.relation().oid) == 1U);
        const auto& mine = from_snapshot.at(c.relation().oid);
        BOOST_TEST(mine.schema == c.relation().schema);
        BOOST_TEST(mine.table == c.relation().table);
        BOOST_TEST((mine.identity == c.relation().identity));
        BOOST_TEST_REQUIRE(mine.columns.size() == c.relation().columns.size());
        for (std::size_t i = 0; i < mine.columns.size(); ++i) {
          BOOST_TEST(mine.columns[i].name == c.relation().columns[i].name);
          BOOST_TEST(mine.columns[i].type_oid == c.relation().columns[i].type_oid);
          BOOST_TEST(mine.columns[i].type_modifier == c.relation().columns[i].type_modifier);
          BOOST_TEST(mine.columns[i].key == c.relation().columns[i].key);
        }
        BOOST_TEST((mine == c.relation()));
        ++compared;
      }
    }
  }
  BOOST_TEST(compared == 12U);
}

BOOST_AUTO_TEST_CASE(values_equal_the_streamed_values_of_the_same_data) {
  // The same rows reach the reader (as of the snapshot) and the stream (copied after the export,
  // ids shifted by 1000): every column's text is byte-for-byte the same and casts to equal values.
  auto& pg = live_server();
  const std::string columns =
      "n, n2, f8, f4, i8, i2, b, t, vc, ch, ba, ts, tstz, d, tm, tmtz, iv, u, j, jb, arr_i, arr_t, arr_2d, arr_ts, "
      "arr_n, m, e, dom, ip, pt, big";
  const auto db = database(
      pg,
      "CREATE TYPE mood AS ENUM ('sad', 'happy');"
      "CREATE DOMAIN positive AS int CHECK (VALUE > 0);"
      "CREATE TABLE typed (id int PRIMARY KEY, n numeric, n2 numeric(12,4), f8 float8, f4 real, i8 bigint, i2 smallint,"
      "  b bool, t text, vc varchar(20), ch char(5), ba bytea, ts timestamp(3), tstz timestamptz, d date, tm time,"
      "  tmtz timetz, iv interval, u uuid, j json, jb jsonb, arr_i int[], arr_t text[], arr_2d int[][],"
      "  arr_ts timestamptz[], arr_n numeric[], m money, e mood, dom positive, ip inet, pt point, big text);"
      "INSERT INTO typed VALUES"
      " (1, 12345678901234567890.0100, 1.5, 'NaN', 'Infinity', -9223372036854775808, -32768, true,"
      "  E'back\\\\slash\\ttab\\nnewline\\rcr \u00fc \U0001F418 \"quote\" \\x01 \\\\N end\\\\', 'short', 'ab',"
      "  '\\x00ff5c0a0d09'::bytea, '2024-02-29 23:59:59.123', '2024-06-01 12:00:00.5+02', 'infinity', '24:00',"
      "  '12:34:56+05:30', '1 year 2 mons -3 days 04:05:06.789', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',"
      "  '{\"a\": [1, \"x\\\\y\"],  \"b\":null}', '{\"a\": [1, \"x\\\\y\"], \"t\": \"\\t\"}', '{1,NULL,3}',"
      "  ARRAY['a b', NULL, 'c\"d', E'e\\\\f', 'NULL', '', E'tab\\there', '{}'], '{{1,2},{3,4}}',"
      "  ARRAY['2024-01-01 00:00:00+00'::timestamptz, NULL, 'infinity'], '{1.50,NaN,-0.001}', 12.34, 'happy', 7,"
      "  '10.0.0.1/8', '(1.5,2)', repeat('long \\ text ', 20000)),"
      " (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
      "  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
      " (3, 'NaN', -0.0001, 1e-310, 3.14159, 0, 0, false, '', '', '', ''::bytea, '-infinity', 'infinity',"
      "  '-infinity', '00:00', '00:00+00', '0', '00000000-0000-0000-0000-000000000000', 'null', '{}', '{}', '{}',"
      "  '{}', '{}', '{}', -0.01, 'sad', 1, '::1', '(0,0)', ''),"
      " (4, 0.1, 99999999.9999, 0.1, 0.1, 42, 1, true,"
      "  (SELECT string_agg(chr(i), '') FROM generate_series(1, 127) i) || (SELECT string_agg(chr(i), '') FROM "
      "generate_series(160, 1000) i),"
      "  '\u00fc\u00fc\u00fc', 'x', '\\x5c5c'::bytea, '1999-12-31 23:59:59', '1999-12-31 23:59:59.999999-08', "
      "'2000-01-01',"
      "  '23:59:59.999999', '23:59:59-12', '-178000000 years', gen_random_uuid(), '[]', '[1, 2.50, \"\\u00fc\"]',"
      "  '{-2147483648,2147483647}', ARRAY[E'\\\\', E'\\n', '\"', ','], '{{NULL,NULL}}', '{}', '{Infinity,-Infinity}',"
      "  -92233720368547758.08, 'happy', 2147483647, '2001:db8::/32', '(-1e+300,1e-300)', E'\\\\N');"
      "CREATE PUBLICATION pub FOR TABLE typed");
  auto exported = export_slot(pg, db);
  pg.sql("INSERT INTO typed (id, " + columns + ") SELECT id + 1000, " + columns + " FROM typed", db);

  auto conn = open_session(pg.dsn(db), session_kind::normal);
  capture got;
  BOOST_TEST_REQUIRE(read_snapshot(conn, exported.snapshot, {"pub"}, got).has_value());
  const auto& snapshot_rows = got.rows["public.typed"];
  BOOST_TEST_REQUIRE(snapshot_rows.size() == 4U);

  const auto stream = stream_inserts(std::move(exported.repl), exported.slot, "pub", 4);
  std::map<std::string, captured_row> streamed_by_id;
  for (const auto& t : stream->transactions) {
    for (const replicant::change& c : t.changes()) {
      BOOST_TEST((c.relation() == got.relations.at("public.typed")));
      auto r = capture_row(c.record());
      const int id = std::stoi(r.raw.at(0).value()) - 1000;
      streamed_by_id.emplace(std::to_string(id), std::move(r));
    }
  }
  BOOST_TEST_REQUIRE(streamed_by_id.size() == 4U);
  const auto& relation = got.relations.at("public.typed");
  for (const captured_row& mine : snapshot_rows) {
    const auto& theirs = streamed_by_id.at(mine.raw.at(0).value());
    BOOST_TEST_REQUIRE(mine.raw.size() == theirs.raw.size());
    for (std::size_t i = 1; i < mine.raw.size(); ++i) {
      BOOST_TEST_CONTEXT("row " << *mine.raw[0] << ", column " << relation.columns[i].name) {
        BOOST_TEST(mine.raw[i].has_value() == theirs.raw[i].has_value());
        BOOST_TEST((mine.raw[i] == theirs.raw[i]), "raw text differs");
        BOOST_TEST((mine.values[i] == theirs.values[i]), "typed value differs");
        BOOST_TEST((mine.values[i].kind() == theirs.values[i].kind()));
      }
    }
  }
  // A sample of the casts, to be sure the comparison compared something typed.
  const auto& first =
      *std::find_if(snapshot_rows.begin(), snapshot_rows.end(), [](const captured_row& r) { return r.raw[0] == "1"; });
  BOOST_TEST((first.values[1].kind() == replicant::value_kind::numeric));
  BOOST_TEST((first.values[8].kind() == replicant::value_kind::text));
  BOOST_TEST((first.values[11].kind() == replicant::value_kind::bytea));
  BOOST_TEST((first.values[13].kind() == replicant::value_kind::timestamptz));
  BOOST_TEST((first.values[21].kind() == replicant::value_kind::array));
  BOOST_TEST(first.raw[8]->find("back\\slash\ttab\nnewline\rcr") == 0U);
}

BOOST_AUTO_TEST_CASE(failures_are_value_free_and_leave_the_connection_usable) {
  auto& pg = live_server();
  const auto db = database(pg,
                           "CREATE TABLE t (id int PRIMARY KEY, v text);"
                           "INSERT INTO t SELECT g, '" +
                               std::string{secret} +
                               "' FROM generate_series(1, 3000) g;"
                               "CREATE PUBLICATION pub FOR TABLE t;"
                               "CREATE PUBLICATION explodes FOR TABLE t WHERE (100 / (id - 2500) > -1000)");
  auto conn = open_session(pg.dsn(db), session_kind::normal);
  const auto value_free = [](const std::error_code& ec) { return ec.message().find(secret) == std::string::npos; };

  {
    // The handler fails: its error comes back unchanged, the transaction is rolled back.
    auto exported = export_slot(pg, db);
    int calls = 0;
    const auto r = replicant::read_point_in_time_snapshot(
        conn, exported.snapshot, std::vector<std::string>{"pub"},
        [&](const snapshot_batch&, const snapshot_context&) -> replicant::result<void> {
          ++calls;
          return replicant::fail(errc::sink_failed);
        });
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error() == errc::sink_failed);
    BOOST_TEST(calls == 1);
    BOOST_TEST(isolation(conn) == "read committed");
  }
  {
    // The handler throws: the exception propagates, the copy is cancelled and rolled back.
    auto exported = export_slot(pg, db);
    auto snapshot = point_in_time_snapshot::open(conn, exported.snapshot, std::vector<std::string>{"pub"});
    BOOST_TEST_REQUIRE(snapshot.has_value());
    BOOST_TEST(snapshot->is_open());
    BOOST_CHECK_THROW(
        static_cast<void>(snapshot->read([](const snapshot_batch&, const snapshot_context&) -> replicant::result<void> {
          throw std::runtime_error{"sink"};
        })),
        std::runtime_error);
    BOOST_TEST(!snapshot->is_open());
    BOOST_TEST(isolation(conn) == "read committed");
    // One read per snapshot.
    const auto again =
        snapshot->read([](const snapshot_batch&, const snapshot_context&) -> replicant::result<void> { return {}; });
    BOOST_TEST_REQUIRE(!again.has_value());
    BOOST_TEST(again.error() == errc::invalid_options);
  }
  {
    // A row filter that raises an error midway through the copy: the SQLSTATE only.
    auto exported = export_slot(pg, db);
    capture got;
    const auto r = read_snapshot(conn, exported.snapshot, {"explodes"}, got, {.batch_rows = 100});
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error() == errc::server_error);
    BOOST_TEST(conn.last_error().sqlstate == "22012");  // division_by_zero
    BOOST_TEST(value_free(r.error()));
    BOOST_TEST(isolation(conn) == "read committed");
  }
  {
    // The snapshot is gone once the exporting connection runs another command.
    auto exported = export_slot(pg, db);
    BOOST_TEST_REQUIRE(exported.repl.exec("IDENTIFY_SYSTEM").has_value());
    capture got;
    const auto r = read_snapshot(conn, exported.snapshot, {"pub"}, got);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error() == errc::server_error);
    const auto state = conn.last_error().sqlstate;
    BOOST_TEST((state == "22023" || state == "42704"), "SQLSTATE " << state);
    BOOST_TEST(value_free(r.error()));
    BOOST_TEST(isolation(conn) == "read committed");
  }
  {
    // A malformed snapshot name never reaches the server.
    capture got;
    for (const std::string& name : {std::string{"'; DROP TABLE t; --"}, std::string{secret}, std::string{},
                                    std::string(65, 'A'), std::string{"00000003-0000001b-1"}}) {
      const auto r = read_snapshot(conn, exported_snapshot{name, {}}, {"pub"}, got);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST((r.error().category() == replicant::identifier_category()));
      BOOST_TEST(value_free(r.error()));
    }
    BOOST_TEST(got.batches.empty());
    BOOST_TEST(pg.scalar("SELECT count(*) FROM t", db) == "3000");
  }
  {
    // A publication that does not exist, and bad options.
    auto exported = export_slot(pg, db);
    capture got;
    const auto missing = read_snapshot(conn, exported.snapshot, {"pub", std::string{secret}}, got);
    BOOST_TEST_REQUIRE(!missing.has_value());
    BOOST_TEST((missing.error() == replicant::errc::publication_missing));
    BOOST_TEST(value_free(missing.error()));
    BOOST_TEST(isolation(conn) == "read committed");
    const auto none = read_snapshot(conn, exported.snapshot, {}, got);
    BOOST_TEST_REQUIRE(!none.has_value());
    BOOST_TEST(none.error() == errc::invalid_options);
    const auto zero = read_snapshot(conn, exported.snapshot, {"pub"}, got, {.batch_rows = 0});
    BOOST_TEST_REQUIRE(!zero.has_value());
    BOOST_TEST(zero.error() == errc::invalid_options);
  }
  {
    // A stop request: cancelled, and the connection is left idle.
    auto exported = export_slot(pg, db);
    const int stop = ::eventfd(0, EFD_CLOEXEC);
    int calls = 0;
    const auto r = replicant::read_point_in_time_snapshot(
        conn, exported.snapshot, std::vector<std::string>{"pub"},
        [&](const snapshot_batch&, const snapshot_context&) -> replicant::result<void> {
          if (++calls == 2) {
            const std::uint64_t one = 1;
            BOOST_TEST_REQUIRE(::write(stop, &one, sizeof one) == static_cast<ssize_t>(sizeof one));
          }
          return {};
        },
        {.batch_rows = 100, .cancel_fd = stop});
    ::close(stop);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error() == errc::cancelled);
    BOOST_TEST(calls == 2);
    BOOST_TEST(isolation(conn) == "read committed");
    BOOST_TEST(conn.exec("SELECT 1").has_value());
  }
  {
    // Opened and dropped without reading: rolled back.
    auto exported = export_slot(pg, db);
    {
      auto snapshot = point_in_time_snapshot::open(conn, exported.snapshot, std::vector<std::string>{"pub"});
      BOOST_TEST_REQUIRE(snapshot.has_value());
      BOOST_TEST(isolation(conn) == "repeatable read");
    }
    BOOST_TEST(isolation(conn) == "read committed");
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // snapshot_reader_tests
