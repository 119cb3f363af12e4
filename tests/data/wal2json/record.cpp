// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-record-plugin-captures: re-records the captures of tests/data/wal2json/ and
// tests/data/pglogical/ from a throwaway PostgreSQL 15 of the test harness (the Debian build, the
// only one provisioned with the wal2json and pglogical plugins). Not a test; see README.md.
//
//   replicant-record-plugin-captures <tests/data directory>
//
// One database, one workload, three slots created before it: pgoutput, wal2json and
// pglogical_output all decode the very same WAL. Each directory receives its plugin's capture and a
// pgoutput capture of the same run, which the golden tests (tests/unit/decoder/wal2json.cpp and
// pglogical.cpp) compare transaction by transaction; the plugin capture's header also keeps the
// catalog rows a pipeline would read at connect (relation_catalog's query, run after the workload).

#include "support/server/pg_cluster.hpp"
#include "support/wire/capture_file.hpp"
#include "support/wire/plugin_capture.hpp"

#include <replicant/decoder/catalog.hpp>
#include <replicant/decoder/pglogical.hpp>
#include <replicant/decoder/wal2json.hpp>
#include <replicant/pq/connection.hpp>
#include <replicant/pq/replication_stream.hpp>
#include <replicant/wire/framing.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using replicant::test::pg_cluster;
using replicant::test::pg_cluster_options;

constexpr std::string_view database = "capture_plugins";
constexpr std::string_view scenario = "plugins";

// The tables of the workload, in every plugin's table set.
const std::vector<replicant::table_name> tables = {
    {"public", "kinds"},    {"public", "docs"},    {"public", "full_identity"}, {"public", "keyless"},
    {"public", "evolving"}, {"public", "trunc_a"}, {"public", "trunc_b"},
};

// A 3000-character text stored out of line and uncompressed (STORAGE EXTERNAL), so that an UPDATE
// not touching it leaves it as unchanged TOAST. The golden tests recompute it.
constexpr std::string_view toast_value =
    "(SELECT string_agg(chr(97 + ((g::int8 * 2654435761) % 4294967291 % 26)::int4), '' ORDER BY g)"
    " FROM generate_series(1, 3000) g)";

// @p dsn_literal: the provider's own connection string, quoted as an SQL literal.
auto setup(const std::string& dsn_literal) -> std::vector<std::string> {
  return {
      "CREATE EXTENSION pglogical",
      "SELECT pglogical.create_node(node_name := 'capture_provider', dsn := " + dsn_literal + ")",
      "CREATE DOMAIN capture_positive AS int4 CHECK (VALUE > 0)",
      "CREATE TYPE capture_mood AS ENUM ('sad', 'happy')",
      "CREATE TABLE kinds (id int4 PRIMARY KEY, c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8,"
      " c_float4 float4, c_float8 float8, c_numeric numeric, c_numeric_scaled numeric(12,4), c_money money,"
      " c_text text, c_varchar varchar(20), c_bpchar char(6), c_bytea bytea, c_uuid uuid, c_json json, c_jsonb jsonb,"
      " c_date date, c_time time(3), c_timestamp timestamp(3), c_timestamptz timestamptz, c_interval interval,"
      " c_int4_array int4[], c_text_array text[], c_numeric_array numeric[], c_bool_array bool[],"
      " c_varchar_array varchar(5)[], c_domain capture_positive, c_enum capture_mood)",
      "CREATE TABLE docs (id int4 PRIMARY KEY, note text, big text)",
      "ALTER TABLE docs ALTER COLUMN big SET STORAGE EXTERNAL",
      "CREATE TABLE full_identity (id int4 PRIMARY KEY, note text, big text)",
      "ALTER TABLE full_identity ALTER COLUMN big SET STORAGE EXTERNAL",
      "CREATE TABLE keyless (note text, n int4)",
      "CREATE TABLE evolving (id int4 PRIMARY KEY, a text)",
      "CREATE TABLE trunc_a (id int4 PRIMARY KEY)",
      "CREATE TABLE trunc_b (id int4 PRIMARY KEY, note text)",
      // The same tables for every plugin: a publication, a table list, two replication sets.
      "CREATE PUBLICATION captures FOR TABLE kinds, docs, full_identity, keyless, evolving, trunc_a, trunc_b",
      "SELECT pglogical.replication_set_add_table('default', 'kinds')",
      "SELECT pglogical.replication_set_add_table('default', 'docs')",
      "SELECT pglogical.replication_set_add_table('default', 'full_identity')",
      // pglogical refuses a REPLICA IDENTITY FULL table in a set that replicates updates, but not
      // a table made FULL once it is in one; its key tuple is then the whole old row.
      "ALTER TABLE full_identity REPLICA IDENTITY FULL",
      "SELECT pglogical.replication_set_add_table('default_insert_only', 'keyless')",
      "SELECT pglogical.replication_set_add_table('default', 'evolving')",
      "SELECT pglogical.replication_set_add_table('default', 'trunc_a')",
      "SELECT pglogical.replication_set_add_table('default', 'trunc_b')",
      // Outside every table set: pushes the walsenders past the end position.
      "CREATE TABLE capture_fence (id bigserial PRIMARY KEY)",
  };
}

auto workload() -> std::vector<std::string> {
  const std::string toast{toast_value};
  return {
      // 1: one row of every kind of value, then 2: NaN and infinities, edges, 3: all NULL.
      "INSERT INTO kinds VALUES (1, true, -1234, 1234567, 9007199254740993, 1.5, 0.1,"
      " 1234567890123456789012345678901234567890.0123456789, 1.5, '1234.56',"
      " 'h\u00e9llo \"quoted\" \\back\nline', 'varchar value', 'ab', '\\x00ff10deadbeef',"
      " 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"k\": [1, 2.5, null], \"s\": \"x\"}', '{\"b\": 1, \"a\": [true, "
      "null]}',"
      " '2024-02-29', '13:14:15.123456', '2024-02-29 12:34:56.789012', '2024-02-29 12:34:56.789012+02',"
      " '1 year 2 mons 3 days 04:05:06.789', '{{1,2},{3,NULL}}', '{\"a b\",NULL,\"NULL\",\"\",x,\"q\\\"uote\"}',"
      " '{1.5,NaN,-0.001}', '{t,f,NULL}', '{abc,NULL}', 42, 'happy')",
      "INSERT INTO kinds VALUES (2, false, -32768, 2147483647, '-9223372036854775808', 'NaN', 'Infinity',"
      " 'NaN', -99999999.9999, '-92233720368547758.08', '', 'exactly twenty chars', 'abcdef', '\\x',"
      " '00000000-0000-0000-0000-000000000000', '[]', '\"str\"', '0044-03-15 BC', '24:00:00', 'infinity', '-infinity',"
      " '-1 days +02:00:00', '{}', '{}', '{1234567890123456789012345678901234567890,-Infinity}', '{}', '{}', 1,"
      " 'sad')",
      "INSERT INTO kinds (id, c_float4, c_float8, c_numeric) VALUES (3, '-0', '1e-300', '0.000001')",
      "INSERT INTO kinds (id) VALUES (4)",
      // Unchanged TOAST, a key change, a delete by key.
      "INSERT INTO docs VALUES (1, 'first', " + toast + ")",
      "UPDATE docs SET note = 'second' WHERE id = 1",
      "UPDATE docs SET id = 2 WHERE id = 1",
      "DELETE FROM docs WHERE id = 2",
      // REPLICA IDENTITY FULL: the whole old row with the update and the delete.
      "INSERT INTO full_identity VALUES (10, 'full', " + toast + "), (11, 'full too', 'small')",
      "UPDATE full_identity SET note = 'full, updated' WHERE id = 10",
      "DELETE FROM full_identity WHERE id = 11",
      // A table without a key: inserts only (pgoutput refuses its updates, pglogical takes it into
      // an insert-only set, wal2json would drop them).
      "INSERT INTO keyless VALUES ('no key', 1), (NULL, NULL)",
      // A column added between two transactions, and one inside a transaction, between its rows.
      "INSERT INTO evolving VALUES (1, 'one')",
      "ALTER TABLE evolving ADD COLUMN b int4",
      "INSERT INTO evolving VALUES (2, 'two', 2)",
      "BEGIN",
      "INSERT INTO evolving VALUES (3, 'three', 3)",
      "ALTER TABLE evolving ADD COLUMN c text DEFAULT 'filled'",
      "INSERT INTO evolving VALUES (4, 'four', 4, 'given')",
      "UPDATE evolving SET a = 'one, updated' WHERE id = 1",
      "COMMIT",
      // Truncates: two tables at once between inserts of one transaction, then one alone.
      "INSERT INTO trunc_a VALUES (1), (2)",
      "INSERT INTO trunc_b VALUES (1, 'b')",
      "BEGIN",
      "INSERT INTO trunc_a VALUES (3)",
      "TRUNCATE trunc_a, trunc_b",
      "INSERT INTO trunc_b VALUES (2, 'after the truncate')",
      "COMMIT",
      "TRUNCATE trunc_b",
      // Logical messages: with a row, and outside any transaction.
      "BEGIN",
      "INSERT INTO trunc_a VALUES (10)",
      "SELECT pg_logical_emit_message(true, 'capture.tx', 'inside the transaction')",
      "COMMIT",
      "SELECT pg_logical_emit_message(false, 'capture.alone', 'outside any transaction')",
      // Several tables and operations in one transaction, in order.
      "BEGIN",
      "INSERT INTO docs VALUES (5, 'mixed', NULL)",
      "INSERT INTO keyless VALUES ('mixed', 5)",
      "UPDATE docs SET note = 'mixed, updated' WHERE id = 5",
      "INSERT INTO full_identity VALUES (12, 'mixed', NULL)",
      "DELETE FROM docs WHERE id = 5",
      "COMMIT",
  };
}

auto run(replicant::test::pg_connection& conn, const std::string& what, const std::vector<std::string>& statements)
    -> void {
  for (std::size_t i = 0; i < statements.size(); ++i) {
    try {
      conn.exec(statements[i]);
    } catch (const replicant::test::pg_error& e) {
      // The statement's place and SQLSTATE only: a server message can quote values.
      throw std::runtime_error{what + " statement " + std::to_string(i + 1) + ": " + e.what()};
    }
  }
}

// Runs @p command on a new replication connection and keeps every CopyData payload until a
// keepalive reports the walsender at or past @p until, answering like a well-behaved consumer
// (the loop of tools/capture/capture_session.hpp, which is pgoutput-specific in its header only).
auto record_stream(const std::string& dsn, const std::string& command, replicant::lsn until)
    -> std::vector<std::vector<std::byte>> {
  using clock = std::chrono::steady_clock;
  using namespace replicant;
  auto conn = pq::connection::open(dsn, pq::session_kind::replication);
  if (!conn) throw std::runtime_error{"record: connect: " + conn.error().message()};
  auto stream = pq::replication_stream::start(std::move(*conn), command);
  if (!stream) throw std::runtime_error{"record: START_REPLICATION: " + stream.error().message()};

  std::vector<std::vector<std::byte>> records;
  lsn received{};
  lsn confirmable{};
  bool done = false;
  bool reply_due = false;
  const auto deadline = clock::now() + std::chrono::seconds(120);
  auto last_update = clock::now();
  auto last_data = clock::now();
  const auto send_update = [&](bool ask) {
    const standby_status_update update{
        .write = received,
        .flush = confirmable,
        .apply = confirmable,
        .clock = std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()),
        .reply_requested = ask};
    last_update = clock::now();
    if (auto sent = stream->send(encode_status_update(update)); !sent) {
      throw std::runtime_error{"record: status update: " + sent.error().message()};
    }
  };
  while (!done) {
    if (clock::now() >= deadline) throw std::runtime_error{"record: timed out"};
    auto got = stream->receive(
        [&](pq::frame&& f) {
          if (done) return;
          const auto bytes = f.bytes();
          auto parsed = parse_copy_data(bytes);
          if (!parsed) throw std::runtime_error{"record: a CopyData payload that is no replication message"};
          records.emplace_back(bytes.begin(), bytes.end());
          last_data = clock::now();
          if (const auto* k = std::get_if<primary_keepalive>(&*parsed)) {
            received = std::max(received, k->wal_end);
            confirmable = std::max(confirmable, k->wal_end);
            reply_due = reply_due || k->reply_requested;
            done = k->wal_end >= until;
          } else if (const auto* w = std::get_if<xlog_data>(&*parsed)) {
            received = std::max(received, w->wal_end);
          }
        },
        std::size_t{64} * 1024 * 1024);
    if (!got) throw std::runtime_error{"record: receive: " + got.error().message()};
    if (done) break;
    const auto now = clock::now();
    const bool idle = now - last_data >= std::chrono::milliseconds(200);
    if (reply_due || (idle && now - last_update >= std::chrono::milliseconds(200)) ||
        now - last_update >= std::chrono::seconds(5)) {
      send_update(idle);
      reply_due = false;
    }
    if (auto w = stream->wait(-1, std::chrono::milliseconds(100)); !w) {
      throw std::runtime_error{"record: wait: " + w.error().message()};
    }
  }
  send_update(false);
  if (auto finished = stream->finish(); !finished)
    throw std::runtime_error{"record: finish: " + finished.error().message()};
  return records;
}

auto catalog_rows(replicant::test::pg_connection& conn, const std::string& sql)
    -> std::vector<std::array<std::string, replicant::relation_catalog::query_columns>> {
  std::vector<std::array<std::string, replicant::relation_catalog::query_columns>> out;
  for (const auto& row : conn.exec(sql).all_rows()) {
    if (row.size() != replicant::relation_catalog::query_columns) throw std::runtime_error{"record: catalog width"};
    auto& copy = out.emplace_back();
    for (std::size_t i = 0; i < row.size(); ++i) copy[i] = row[i].value_or("");
  }
  return out;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  if (argc != 2) {
    std::fprintf(stderr, "usage: replicant-record-plugin-captures <tests/data directory>\n");
    return 2;
  }
  const fs::path data_dir = argv[1];
  try {
    ::setenv("REPLICANT_PG_MAJOR", "15", 1);
    pg_cluster pg{pg_cluster_options::from_environment()};
    // pglogical's output plugin lives in pglogical.so, which must be preloaded.
    pg.set("shared_preload_libraries", "pglogical");
    pg.restart();
    pg.create_database(database);

    replicant::wal2json_options w_options;
    w_options.tables = tables;
    w_options.messages = true;
    w_options.allow_special_numbers_as_null = true;  // Debian's 2.5 lacks numeric-data-types-as-string
    const replicant::wal2json_decoder w_decoder{w_options};
    replicant::pglogical_options p_options;
    p_options.replication_sets = {"default", "default_insert_only"};
    const replicant::pglogical_decoder p_decoder{p_options};

    const std::string pgoutput_options = "proto_version '3', publication_names 'captures', messages 'true'";
    struct slot {
      std::string name;
      std::string plugin;
      std::string options;
    };
    const std::vector<slot> slots = {
        {"plugins_pgoutput", "pgoutput", pgoutput_options},
        {"plugins_wal2json", "wal2json", w_decoder.start_options().value()},
        {"plugins_pglogical", "pglogical_output", p_decoder.start_options().value()},
    };

    auto conn = pg.connect(database);
    conn.exec("SET client_min_messages = warning");
    run(conn, "setup", setup(conn.quote_literal(pg.dsn(database))));
    for (const auto& s : slots) {
      conn.exec("SELECT pg_create_logical_replication_slot('" + s.name + "', '" + s.plugin + "')");
    }
    run(conn, "workload", workload());
    const auto until = replicant::parse_lsn(pg.scalar("SELECT pg_current_wal_insert_lsn()", database));
    if (!until) throw std::runtime_error{"record: unreadable end LSN"};
    pg.sql("INSERT INTO capture_fence DEFAULT VALUES", database);

    const auto w_catalog = catalog_rows(conn, replicant::relation_catalog::query_for_tables(tables).value());
    const auto p_catalog =
        catalog_rows(conn, replicant::relation_catalog::query_for_replication_sets(p_options.replication_sets).value());

    for (const auto& s : slots) {
      const std::string command = "START_REPLICATION SLOT " + s.name + " LOGICAL 0/0 (" + s.options + ")";
      auto records = record_stream(pg.dsn(database), command, *until);
      const int version = conn.server_version();
      const std::string stem = std::string{scenario} + (s.plugin == "pgoutput" ? ".pgoutput" : "") + ".pg15.capture";
      if (s.plugin == "pgoutput") {
        replicant::test::capture c;
        c.header = replicant::test::describe_options(s.options);
        c.header.scenario = std::string{scenario};
        c.header.server_version_num = version;
        c.header.end_lsn = *until;
        c.records = std::move(records);
        // The same reference in both directories, so that each is complete on its own.
        for (const char* dir : {"wal2json", "pglogical"}) {
          fs::create_directories(data_dir / dir);
          replicant::test::write_capture(data_dir / dir / stem, c);
        }
        std::fprintf(stderr, "record: %s: %zu records\n", stem.c_str(), c.records.size());
        continue;
      }
      replicant::test::plugin_capture c;
      c.plugin = s.plugin;
      c.scenario = std::string{scenario};
      c.server_version_num = version;
      c.options = s.options;
      c.end_lsn = *until;
      c.catalog_rows = s.plugin == "wal2json" ? w_catalog : p_catalog;
      c.records = std::move(records);
      const fs::path dir = data_dir / (s.plugin == "wal2json" ? "wal2json" : "pglogical");
      fs::create_directories(dir);
      replicant::test::write_plugin_capture(dir / stem, c);
      std::fprintf(stderr, "record: %s/%s: %zu records\n", dir.filename().c_str(), stem.c_str(), c.records.size());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "record: %s\n", e.what());
  }
  return 1;
}
