// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-record-captures: re-records the pgoutput captures of this directory from a throwaway
// server of the test harness (tests/support/server/pg_cluster.hpp). Not a test; see README.md.
//
//   replicant-record-captures <major> <out-dir> [scenario...]
//
// For each scenario group it creates a database, the tables and a publication, one slot per
// capture, runs the group's workload, and then records each capture with the same loop as
// replicant-capture. Every capture of a group therefore decodes the very same WAL: `types` and
// `types_binary` are one workload in text and in binary mode, `streaming` and
// `streaming_parallel` one workload with streaming 'on' and 'parallel'.
//
// The golden tests (tests/unit/decoder/captures.cpp) check exact values against the SQL below:
// change the two together.

#include "capture_session.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/wire/capture_file.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using replicant::test::pg_cluster;
using replicant::test::pg_cluster_options;

// One capture of a group: its scenario name (also the slot name and the file's stem), the oldest
// major that can record it, and the START_REPLICATION options beyond proto_version and
// publication_names.
struct capture_plan {
  std::string scenario;
  int min_major = 15;
  std::string options;
};

// Tables and a publication (setup), then statements run in order on one session (workload).
struct group {
  std::string name;
  std::vector<std::string> setup;
  std::vector<std::string> workload;
  std::vector<capture_plan> captures;
  // Walsender settings of the capturing session (the connection string's `options`).
  std::string session_options{};
  bool two_phase_slot = false;
};

// The publication every group publishes its tables through, and a table outside it whose
// transactions push the walsender past the end position without adding anything to the capture.
constexpr std::string_view publication = "captures";
constexpr std::string_view fence_table = "CREATE TABLE capture_fence (id bigserial PRIMARY KEY)";

// A 3000-character pseudo-random text (lower-case letters from a multiplicative hash of the
// position, which the golden tests recompute), stored out of line and uncompressed (STORAGE
// EXTERNAL), so that an UPDATE not touching it sends it as unchanged TOAST.
constexpr std::string_view toast_value =
    "(SELECT string_agg(chr(97 + ((g::int8 * 2654435761) % 4294967291 % 26)::int4), '' ORDER BY g)"
    " FROM generate_series(1, 3000) g)";

// Streaming starts when a transaction's decoded changes exceed logical_decoding_work_mem; 64kB is
// the smallest setting, and about 500 one-column rows exceed it.
constexpr std::string_view small_work_mem = "-c logical_decoding_work_mem=64kB";

auto groups() -> std::vector<group> {
  std::vector<group> out;

  out.push_back(group{
      "types",
      {"CREATE DOMAIN capture_positive AS int4 CHECK (VALUE > 0)", "CREATE TYPE capture_mood AS ENUM ('sad', 'happy')",
       "CREATE TABLE types (id int4 PRIMARY KEY, c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8, c_oid oid,"
       " c_float4 float4, c_float8 float8, c_numeric numeric, c_numeric_scaled numeric(12,4), c_money money,"
       " c_text text, c_varchar varchar(20), c_bpchar char(6), c_name name, c_char \"char\","
       " c_bytea bytea, c_uuid uuid, c_json json, c_jsonb jsonb,"
       " c_date date, c_time time, c_timestamp timestamp, c_timestamptz timestamptz, c_interval interval,"
       " c_timetz timetz, c_int4_array int4[], c_text_array text[], c_numeric_array numeric[], c_date_array date[],"
       " c_timestamptz_array timestamptz[], c_uuid_array uuid[], c_bool_array bool[], c_float8_array float8[],"
       " c_bytea_array bytea[], c_interval_array interval[], c_domain capture_positive, c_enum capture_mood)",
       "CREATE PUBLICATION captures FOR TABLE types"},
      {"BEGIN",
       // 1: ordinary values.
       "INSERT INTO types VALUES (1, true, -1234, 1234567, 9007199254740993, 4000000000,"
       " 1.5, 0.1, 12345.6789, 1.5, '1234.56',"
       " 'h\u00e9llo, w\u00f6rld \u2713 \"quoted\" \\back', 'varchar value', 'ab', 'a_name', 'x',"
       " '\\x00ff10deadbeef', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"k\": [1, 2.5, null], \"s\": \"x\"}',"
       " '{\"b\": 1, \"a\": [true, null]}',"
       " '2024-02-29', '13:14:15.123456', '2024-02-29 12:34:56.789012', '2024-02-29 12:34:56.789012+02',"
       " '1 year 2 mons 3 days 04:05:06.789', '13:14:15.5+05:30',"
       " '{{1,2},{3,NULL}}', '{\"a b\",NULL,\"NULL\",\"\",x,\"q\\\"uote\"}', '{1.5,NaN,-0.001}',"
       " '{2024-01-01,infinity,NULL}', '{\"2024-01-01 00:00:00+00\",-infinity}',"
       " '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}', '{t,f,NULL}', '{1.25,NaN,-Infinity}',"
       " '{\"\\\\x01ff\",NULL}', '{\"1 day\",\"-00:00:01\"}', 42, 'happy')",
       // 2: the other end of each range, NaN and infinities, empty values.
       "INSERT INTO types VALUES (2, false, -32768, 2147483647, '-9223372036854775808', 4294967295,"
       " 'NaN', 'Infinity', 'NaN', -99999999.9999, '-92233720368547758.08',"
       " '', 'exactly twenty chars', 'abcdef', 'Name With Spaces', 'Z',"
       " '\\x', '00000000-0000-0000-0000-000000000000', '[]', '\"str\"',"
       " '0044-03-15 BC', '24:00:00', 'infinity', '-infinity',"
       " '-1 days +02:00:00', '23:59:59.999999-15:59',"
       " '{}', '{{a,b},{NULL,\"c d\"}}', '{1234567890123456789012345678901234567890,-Infinity}', '{-infinity}',"
       " '{}', '{}', '{}', '{-0,Infinity}', '{}', '{}', 1, 'sad')",
       // 3: more edges: 40 integer digits, negative zero, the first timestamp year.
       "INSERT INTO types VALUES (3, NULL, 32767, -2147483648, 9223372036854775807, 0,"
       " '-Infinity', '-0', 1234567890123456789012345678901234567890.0123456789, 0, '0',"
       " 'line\nbreak\ttab', NULL, NULL, NULL, NULL,"
       " NULL, NULL, 'null', 'null',"
       " '-infinity', '00:00:00', '4713-01-01 00:00:00 BC', 'infinity',"
       " '0', '00:00:00+00',"
       " NULL, NULL, '{Infinity}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
       // 4: numeric infinity; 5: every column NULL.
       "INSERT INTO types (id, c_numeric) VALUES (4, 'Infinity')", "INSERT INTO types (id) VALUES (5)", "COMMIT"},
      {{"types", 15, ""}, {"types_binary", 15, ", binary 'true'"}}});

  const std::string toast{toast_value};
  out.push_back(group{
      "rows",
      {"CREATE TABLE plain (id int4 PRIMARY KEY, note text, big text)",
       "ALTER TABLE plain ALTER COLUMN big SET STORAGE EXTERNAL",
       "CREATE TABLE full_identity (id int4, note text, big text)", "ALTER TABLE full_identity REPLICA IDENTITY FULL",
       "ALTER TABLE full_identity ALTER COLUMN big SET STORAGE EXTERNAL",
       "CREATE PUBLICATION captures FOR TABLE plain, full_identity",
       // Replication origins are cluster-wide; the workload marks one transaction with it.
       "SELECT pg_replication_origin_create('capture_origin')"},
      {"INSERT INTO plain VALUES (1, 'first', " + toast + ")",
       // No key column changed and the key is not TOASTed: no old tuple, big is unchanged TOAST.
       "UPDATE plain SET note = 'second' WHERE id = 1",
       // The key changed: the old key ('K') comes along.
       "UPDATE plain SET id = 2 WHERE id = 1",
       "INSERT INTO full_identity VALUES (10, 'full', " + toast + "), (11, 'full too', 'small')",
       // REPLICA IDENTITY FULL: the whole old row ('O'); big is still unchanged in the new row.
       "UPDATE full_identity SET note = 'full, updated' WHERE id = 10", "DELETE FROM full_identity WHERE id = 11",
       "DELETE FROM plain WHERE id = 2",
       // A transaction carrying a replication origin ('O' after 'B').
       "SELECT pg_replication_origin_session_setup('capture_origin')", "BEGIN",
       "SELECT pg_replication_origin_xact_setup('0/ABCDEF0', '2024-02-29 12:00:00+00')",
       "INSERT INTO plain VALUES (3, 'from an origin', 'small')", "COMMIT",
       "SELECT pg_replication_origin_session_reset()",
       // Several operations on two tables in one transaction, in order.
       "BEGIN", "INSERT INTO plain VALUES (4, 'mixed', NULL)", "INSERT INTO full_identity VALUES (12, 'mixed', NULL)",
       "UPDATE plain SET note = 'mixed, updated' WHERE id = 4", "DELETE FROM plain WHERE id = 3", "COMMIT"},
      {{"rows", 15, ""}}});

  out.push_back(
      group{"truncate",
            {"CREATE TABLE parent (id serial PRIMARY KEY, note text)",
             "CREATE TABLE child (id int4 PRIMARY KEY, parent_id int4 REFERENCES parent)",
             "CREATE TABLE other (id int4 PRIMARY KEY)", "CREATE PUBLICATION captures FOR TABLE parent, child, other"},
            {"INSERT INTO parent (note) VALUES ('p1'), ('p2')", "INSERT INTO child VALUES (1, 1)",
             "INSERT INTO other VALUES (1)",
             // CASCADE adds child; RESTART IDENTITY resets parent's sequence.
             "TRUNCATE parent RESTART IDENTITY CASCADE", "INSERT INTO parent (note) VALUES ('after restart')",
             "TRUNCATE other", "BEGIN", "INSERT INTO other VALUES (2)", "TRUNCATE other, child",
             "INSERT INTO other VALUES (3)", "COMMIT"},
            {{"truncate", 15, ""}}});

  out.push_back(group{
      "ddl",
      {"CREATE TABLE evolving (id int4 PRIMARY KEY, a text, b int4)", "CREATE PUBLICATION captures FOR TABLE evolving"},
      {"INSERT INTO evolving VALUES (1, 'one', 1)",
       "ALTER TABLE evolving ADD COLUMN c text",  // additive
       "INSERT INTO evolving VALUES (2, 'two', 2, 'added c')",
       "ALTER TABLE evolving DROP COLUMN a",  // destructive: dropped
       "INSERT INTO evolving VALUES (3, 3, 'dropped a')",
       "ALTER TABLE evolving ALTER COLUMN b TYPE int8",  // additive: widened (a rewrite)
       "INSERT INTO evolving VALUES (4, 4000000000, 'widened b')",
       // DDL inside a transaction, between two of its changes.
       "BEGIN", "INSERT INTO evolving VALUES (5, 5, 'before d')", "ALTER TABLE evolving ADD COLUMN d int4 DEFAULT 7",
       "INSERT INTO evolving VALUES (6, 6, 'after d', 8)", "COMMIT",
       // A row written before d existed reads d's default.
       "UPDATE evolving SET c = 'updated' WHERE id = 1"},
      {{"ddl", 15, ""}}});

  out.push_back(
      group{"messages",
            {"CREATE TABLE notes (id int4 PRIMARY KEY)", "CREATE PUBLICATION captures FOR TABLE notes"},
            {"BEGIN", "INSERT INTO notes VALUES (1)",
             "SELECT pg_logical_emit_message(true, 'capture.tx', 'inside the transaction')", "COMMIT",
             "SELECT pg_logical_emit_message(false, 'capture.alone', '\\x00ff00fe'::bytea)",
             "SELECT pg_logical_emit_message(true, 'capture.only', 'the only content of its transaction')", "BEGIN",
             "SELECT pg_logical_emit_message(true, 'capture.rolled_back', 'never delivered')",
             "SELECT pg_logical_emit_message(false, 'capture.despite_rollback', 'delivered although rolled back')",
             "INSERT INTO notes VALUES (2)", "ROLLBACK", "INSERT INTO notes VALUES (3)"},
            {{"messages", 15, ", messages 'true'"}}});

  // Streamed transactions. What pushes a transaction past logical_decoding_work_mem is 600 rows in
  // `ballast`, which is not published: the reorder buffer counts every change of the transaction,
  // pgoutput then sends only the published ones, so the stream blocks stay small.
  out.push_back(
      group{"streaming",
            {"CREATE TABLE big (id int4 PRIMARY KEY)", "CREATE TABLE ballast (id int4)",
             "CREATE PUBLICATION captures FOR TABLE big"},
            {"BEGIN", "INSERT INTO big SELECT g FROM generate_series(1, 5) g",
             "INSERT INTO ballast SELECT g FROM generate_series(1, 600) g",  // first block
             "SELECT pg_logical_emit_message(true, 'capture.kept', 'top level')", "SAVEPOINT doomed",
             // Inside a stream pgoutput labels a message with the top-level xid, not its subtransaction's
             // (pgoutput_message), so nothing on the wire ties this one to the subtransaction: it comes
             // before the subtransaction's first change, and a consumer cannot tell it apart from `kept`.
             "SELECT pg_logical_emit_message(true, 'capture.unattributable', 'aborted, before the first change')",
             "INSERT INTO big SELECT g FROM generate_series(1001, 1005) g",
             "SELECT pg_logical_emit_message(true, 'capture.dropped', 'in the aborted subtransaction')",
             "INSERT INTO ballast SELECT g FROM generate_series(1, 600) g",  // second block
             "ROLLBACK TO SAVEPOINT doomed",                                 // Stream Abort (xid, subxid)
             "INSERT INTO big SELECT g FROM generate_series(2001, 2010) g", "SAVEPOINT released",
             "INSERT INTO big VALUES (3001)", "RELEASE SAVEPOINT released", "COMMIT",
             // A streamed transaction that aborts as a whole: Stream Abort (xid, xid).
             "BEGIN", "INSERT INTO big SELECT g FROM generate_series(5001, 5003) g",
             "INSERT INTO ballast SELECT g FROM generate_series(1, 600) g", "ROLLBACK",
             // An ordinary transaction after them.
             "INSERT INTO big VALUES (4001)"},
            {{"streaming", 15, ", streaming 'on', messages 'true'"},
             {"streaming_parallel", 16, ", streaming 'parallel', messages 'true'"}},
            std::string{small_work_mem}});

  out.push_back(
      group{"two_phase",
            {"CREATE TABLE tp (id int4 PRIMARY KEY, note text)", "CREATE TABLE ballast (id int4)",
             "CREATE PUBLICATION captures FOR TABLE tp"},
            {"BEGIN", "INSERT INTO tp VALUES (1, 'prepared, then committed')", "PREPARE TRANSACTION 'capture-commit'",
             "INSERT INTO tp VALUES (2, 'committed while the other was prepared')", "COMMIT PREPARED 'capture-commit'",
             "BEGIN", "INSERT INTO tp VALUES (3, 'prepared, then rolled back')",
             "PREPARE TRANSACTION 'capture-rollback'", "ROLLBACK PREPARED 'capture-rollback'",
             // Large enough to be streamed: Stream Prepare ('p') instead of Begin Prepare ... Prepare.
             "BEGIN", "INSERT INTO tp SELECT g, 'streamed' FROM generate_series(1001, 1005) g",
             "INSERT INTO ballast SELECT g FROM generate_series(1, 600) g", "PREPARE TRANSACTION 'capture-streamed'",
             "COMMIT PREPARED 'capture-streamed'", "INSERT INTO tp VALUES (4, 'after the streamed prepare')"},
            {{"two_phase", 15, ", two_phase 'on', streaming 'on'"}},
            std::string{small_work_mem},
            true});

  return out;
}

// pgoutput's highest protocol on each server: 3 on 15, 4 from 16 (PROTOCOL.md §2.1).
auto proto_version(int major) -> int { return major >= 16 ? 4 : 3; }

// Runs @p statements in order; a failure names the statement by its place in the list and its
// SQLSTATE (pg_error's what()), not by the server's message, which can quote values.
auto run(replicant::test::pg_connection& conn, const std::string& what, const std::vector<std::string>& statements)
    -> void {
  for (std::size_t i = 0; i < statements.size(); ++i) {
    try {
      conn.exec(statements[i]);
    } catch (const replicant::test::pg_error& e) {
      throw std::runtime_error{what + " statement " + std::to_string(i + 1) + ": " + e.what()};
    }
  }
}

auto record_group(pg_cluster& pg, const group& g, const fs::path& out_dir, const std::set<std::string>& wanted) -> int {
  std::vector<capture_plan> plans;
  for (const auto& c : g.captures) {
    if (pg.major() >= c.min_major && (wanted.empty() || wanted.count(c.scenario) != 0)) plans.push_back(c);
  }
  if (plans.empty()) return 0;

  const std::string db = "capture_" + g.name;
  pg.create_database(db);
  {
    auto conn = pg.connect(db);
    conn.exec("SET client_min_messages = warning");  // e.g. "truncate cascades to table": expected here
    conn.exec(fence_table);
    run(conn, g.name + " setup", g.setup);
    // One slot per capture, all at the same position, before the workload.
    for (const auto& c : plans) {
      conn.exec("SELECT pg_create_logical_replication_slot('" + c.scenario + "', 'pgoutput', false, " +
                (g.two_phase_slot ? "true" : "false") + ")");
    }
    run(conn, g.name + " workload", g.workload);
  }
  // The end position, then one more transaction the walsender decodes (and skips: the table is
  // not published) so that it reports a position past the end.
  const auto until = replicant::parse_lsn(pg.scalar("SELECT pg_current_wal_insert_lsn()", db));
  if (!until) throw std::runtime_error{"record: unreadable end LSN"};
  pg.sql("INSERT INTO capture_fence DEFAULT VALUES", db);

  int failures = 0;
  for (const auto& c : plans) {
    replicant::tools::capture_request request;
    request.dsn = pg.dsn(db);
    if (!g.session_options.empty()) request.dsn += " options='" + g.session_options + "'";
    request.command = "START_REPLICATION SLOT " + c.scenario + " LOGICAL 0/0 (proto_version '" +
                      std::to_string(proto_version(pg.major())) + "', publication_names '" + std::string{publication} +
                      "'" + c.options + ")";
    request.until = *until;
    request.scenario = c.scenario;
    request.timeout = std::chrono::seconds(120);
    auto captured = replicant::tools::record(request);
    if (!captured) {
      std::fprintf(stderr, "record: %s on PostgreSQL %d: %s\n", c.scenario.c_str(), pg.major(),
                   captured.error().message().c_str());
      ++failures;
      continue;
    }
    const fs::path file =
        out_dir / (c.scenario + ".pg" + std::to_string(pg.major()) + std::string{replicant::test::capture_extension});
    replicant::test::write_capture(file, *captured);
    std::fprintf(stderr, "record: %s: %zu records, %ju bytes\n", file.c_str(), captured->records.size(),
                 static_cast<std::uintmax_t>(fs::file_size(file)));
  }
  return failures;
}

}  // namespace

auto main(int argc, char** argv) -> int {
  if (argc < 3) {
    std::fprintf(stderr, "usage: replicant-record-captures <major> <out-dir> [scenario...]\n");
    return 2;
  }
  const int major = std::atoi(argv[1]);
  if (major < 15) {
    std::fprintf(stderr, "record: PostgreSQL 15 or later is needed\n");
    return 2;
  }
  const fs::path out_dir = argv[2];
  std::set<std::string> wanted;
  for (int i = 3; i < argc; ++i) wanted.insert(argv[i]);

  // A misspelt scenario would otherwise record nothing, silently.
  std::set<std::string> known;
  for (const auto& g : groups()) {
    for (const auto& c : g.captures) {
      if (major >= c.min_major) known.insert(c.scenario);
    }
  }
  for (const auto& name : wanted) {
    if (known.count(name) == 0) {
      std::fprintf(stderr, "record: no scenario %s for PostgreSQL %d\n", name.c_str(), major);
      return 2;
    }
  }

  try {
    fs::create_directories(out_dir);
    // The harness finds the binaries from the major (tools/provision's cache) unless
    // REPLICANT_PG_BINDIR names them.
    ::setenv("REPLICANT_PG_MAJOR", argv[1], 1);
    pg_cluster pg{pg_cluster_options::from_environment()};
    // PREPARE TRANSACTION needs prepared-transaction slots, a setting read at server start.
    pg.set("max_prepared_transactions", "10");
    pg.restart();

    int failures = 0;
    for (const auto& g : groups()) failures += record_group(pg, g, out_dir, wanted);
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "record: %s\n", e.what());
  }
  return 1;
}
