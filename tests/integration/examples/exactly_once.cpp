// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Exactly-once, end to end, once per PostgreSQL major: replicant-pg-mirror (examples/pg_mirror)
// mirrors a busy source database into a target database while the test kills it with SIGKILL at
// random moments, or crashes the server under it, and restarts it. Afterwards every source row must
// equal its target row, and every source transaction must have taken effect exactly once:
//
//   loss       = transactions the writer committed - distinct commit LSNs the mirror applied = 0
//   duplicates = applied log rows - distinct commit LSNs in it                                = 0
//
// Every writer transaction also inserts its own id into the published table `txlog`, so the test
// knows exactly which transactions committed even when a server crash swallowed a COMMIT's answer.
//
// The same kill storm runs in each checkpoint mode of the mirror (--checkpoint): `sink` and
// `batches` keep the checkpoint in the target transaction and must show no duplicate; `lib` and
// `lib-batched` let the library write it afterwards, so each kill may apply one transaction (or one
// batch) again: duplicates are bounded, loss is still 0, and the rows must still be equal. In lib
// mode the test also takes the target (which holds the checkpoint store) away, on a server of its
// own, until the mirror gives up, and checks that a restart loses nothing. `deferred` hands each
// transaction to a worker thread of the mirror's sink, which confirms it later (deferred_checkpoint):
// exactly once as well, under kills and under the deferred policy's own crash matrix (suite
// deferred_matrix: kills between hand-off and confirmation, confirmations out of order, one lost,
// a failure reported after a later confirmation).
//
// Sizes (environment; defaults in brackets; CI runs 3,000 and 10 kills, on 18; tools/soak runs
// the long storms on every major): REPLICANT_EXACTLY_ONCE_TRANSACTIONS [5000] writer
// transactions per case, REPLICANT_EXACTLY_ONCE_KILLS [12] SIGKILLs at least,
// REPLICANT_EXACTLY_ONCE_CRASHES [3] server crashes, REPLICANT_EXACTLY_ONCE_SEED [random] to replay.
// The modes other than `sink` run two fifths of the transactions and a third of the kills each (at
// least 1), and the store outage an eighth of the transactions.
// The program under test is examples/pg_mirror; its options header gives the exit statuses.
#include "../../../examples/pg_mirror/options.hpp"

#include <boost/test/unit_test.hpp>

#include "support/common/required.hpp"
#include "support/common/temp_dir.hpp"
#include "support/common/time_scale.hpp"
#include "support/processes/process.hpp"
#include "support/processes/sink_process.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/writers/background_writer.hpp"
#include "support/writers/source_writer.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_exactly_once_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::test::background_writer;
using replicant::test::live_server;
using replicant::test::pg_connection;
namespace mirror = replicant::examples::pg_mirror;

namespace {

// The build's own binary: examples/pg_mirror/CMakeLists.txt passes its path as REPLICANT_PG_MIRROR_BINARY.
#ifdef REPLICANT_PG_MIRROR_BINARY
constexpr std::string_view mirror_binary = REPLICANT_PG_MIRROR_BINARY;
#else
constexpr std::string_view mirror_binary;
#endif

// Skips the live tests of a build that has no replicant-pg-mirror (examples switched off), saying why.
const replicant::test::binary_known binary_known{mirror_binary, "REPLICANT_PG_MIRROR_BINARY", "replicant-pg-mirror"};

// The same program built with the crash points compiled in (REPLICANT_FAULT_INJECTION): the crash
// matrix's. examples/pg_mirror/CMakeLists.txt passes its path as REPLICANT_PG_MIRROR_FAULTS_BINARY.
#ifdef REPLICANT_PG_MIRROR_FAULTS_BINARY
constexpr std::string_view faults_binary = REPLICANT_PG_MIRROR_FAULTS_BINARY;
#else
constexpr std::string_view faults_binary;
#endif

// Written into some rows; must never show up in the mirror's output.
constexpr std::string_view secret = "S3CR3T-mirror-7731";

using replicant::test::env_number;
using replicant::test::wait_until;

// The tables of both databases. `docs.body` is stored out of line and uncompressed, so an update
// that does not touch it makes pgoutput send it as "unchanged TOAST". `ledger` (with a primary key)
// and `events` (with no key at all, and duplicate rows) are REPLICA IDENTITY FULL: the server sends
// their whole old rows, TOASTed values inlined, and their new rows' untouched TOASTed values as
// unchanged.
constexpr std::string_view schema_ddl = R"sql(
CREATE TABLE accounts (
  id int PRIMARY KEY, balance bigint NOT NULL, note text, updated timestamptz, amount numeric(14,3),
  ratio double precision, tags text[], flag boolean, meta jsonb, day date, span interval, raw bytea);
CREATE TABLE docs (id int PRIMARY KEY, rev int NOT NULL, title text, body text);
ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL;
CREATE TABLE pairs (a int, b text, v int, PRIMARY KEY (a, b));
CREATE TABLE "Mixed Case" ("Key" int PRIMARY KEY, "Value" text);
CREATE TABLE txlog (id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE TABLE ledger (id int PRIMARY KEY, qty int NOT NULL, memo text, blob text);
ALTER TABLE ledger REPLICA IDENTITY FULL;
ALTER TABLE ledger ALTER COLUMN blob SET STORAGE EXTERNAL;
CREATE TABLE events (kind text, n int, note text, big text);
ALTER TABLE events REPLICA IDENTITY FULL;
ALTER TABLE events ALTER COLUMN big SET STORAGE EXTERNAL;
)sql";

auto is_lib_mode(std::string_view mode) -> bool { return mode == "lib" || mode == "lib-batched"; }

// The tables mirror_pub publishes in checkpoint mode @p mode, each with the ORDER BY that lists its
// rows canonically. `events` has no key, which the mirror refuses where a transaction may be
// applied twice (the lib modes): there it is written, but neither published nor compared.
auto mirrored_tables(std::string_view mode) -> std::vector<std::pair<std::string, std::string>> {
  std::vector<std::pair<std::string, std::string>> tables = {
      {"accounts", "id"}, {"docs", "id"},   {"pairs", "a, b"},    {"\"Mixed Case\"", "\"Key\""},
      {"txlog", "id"},    {"ledger", "id"}, {"events", "t::text"}};
  if (is_lib_mode(mode)) tables.pop_back();
  return tables;
}

// The REPLICA IDENTITY FULL tables among them.
auto is_full_identity(std::string_view table) -> bool { return table == "ledger" || table == "events"; }

// --- the mirror as a child process ------------------------------------------------------------------

// replicant-pg-mirror, started, killed and stopped as any sink program under test.
using mirror_process = replicant::test::sink_process;

// --- the source side: transactions whose commit is known ---------------------------------------------

// The source's transactions, each counted exactly across server crashes.
using source_writer = replicant::test::txlog_writer;

// A random mixed transaction body: 1-5 statements over random keys, some touching several rows,
// some moving a row to a new key, some leaving the TOASTed column alone, a sixth of them on the
// REPLICA IDENTITY FULL tables.
class workload {
 public:
  explicit workload(std::uint64_t seed) : rng_(seed) {}

  auto operator()(std::uint64_t id) -> std::string {
    std::string sql;
    const int n = pick(1, 5);
    for (int j = 0; j < n; ++j) sql += statement(id, j);
    if (pick(0, 999) == 0) sql += "TRUNCATE pairs;";
    return sql;
  }

 private:
  auto pick(int low, int high) -> int { return std::uniform_int_distribution<int>{low, high}(rng_); }
  auto key(int high) -> std::string { return std::to_string(pick(1, high)); }

  auto account_row(const std::string& k) -> std::string {
    const int shape = pick(0, 9);
    const std::string note = shape == 0   ? "NULL"
                             : shape == 1 ? "'" + std::string{secret} + "'"
                             : shape == 2 ? "E'it''s \\\\ a\\nline ü ' || md5(random()::text)"
                                          : "md5(random()::text)";
    return "(" + k + ", (random() * 1e9)::bigint, " + note +
           ", clock_timestamp(), (random() * 1e6)::numeric(14,3), random(), ARRAY['x', NULL, 'y z'], " +
           (shape == 3 ? "NULL" : "random() < 0.5") + ", jsonb_build_object('k', " + k +
           ", 'v', random()), current_date - " + key(5000) + ", interval '-1 day 02:03:04.5' * " + key(9) +
           ", decode(md5(random()::text), 'hex'))";
  }

  auto statement(std::uint64_t id, int j) -> std::string {
    const std::string fresh = std::to_string(1000000 + id * 8 + static_cast<std::uint64_t>(j));
    const int what = pick(0, 119);
    if (what < 20) {
      // Distinct keys: one INSERT ... ON CONFLICT DO UPDATE may not touch a row twice.
      const int k = pick(1, 2998);
      std::string rows = account_row(std::to_string(k));
      for (int extra = pick(0, 2); extra > 0; --extra) rows += ", " + account_row(std::to_string(k + extra));
      return "INSERT INTO accounts VALUES " + rows +
             " ON CONFLICT (id) DO UPDATE SET balance = EXCLUDED.balance, note = EXCLUDED.note, "
             "updated = EXCLUDED.updated;";
    }
    if (what < 35) {
      return "UPDATE accounts SET balance = balance + 1, updated = clock_timestamp() WHERE id = " + key(3000) + ";";
    }
    if (what < 43) {
      const int k = pick(1, 3000);
      return "UPDATE accounts SET flag = NOT flag, ratio = ratio / 3 WHERE id BETWEEN " + std::to_string(k) + " AND " +
             std::to_string(k + 6) + ";";
    }
    if (what < 51) {
      const int k = pick(1, 3000);
      return "DELETE FROM accounts WHERE id BETWEEN " + std::to_string(k) + " AND " + std::to_string(k + pick(0, 2)) +
             ";";
    }
    if (what < 53) return "UPDATE accounts SET id = " + fresh + " WHERE id = " + key(3000) + ";";
    if (what < 63) {
      return "INSERT INTO docs VALUES (" + key(300) +
             ", 0, md5(random()::text), repeat(md5(random()::text), 80)) ON CONFLICT (id) DO UPDATE SET "
             "body = EXCLUDED.body, rev = docs.rev + 1;";
    }
    if (what < 78) return "UPDATE docs SET rev = rev + 1, title = md5(random()::text) WHERE id = " + key(300) + ";";
    if (what < 83) return "UPDATE docs SET body = repeat(md5(random()::text), 90) WHERE id = " + key(300) + ";";
    if (what < 88) return "DELETE FROM docs WHERE id = " + key(300) + ";";
    if (what < 90) return "UPDATE docs SET id = " + fresh + " WHERE id = " + key(300) + ";";
    if (what < 95) {
      return "INSERT INTO pairs VALUES (" + key(50) + ", 'b' || " + key(7) + ", " + key(1000) +
             ") ON CONFLICT (a, b) DO UPDATE SET v = EXCLUDED.v;";
    }
    if (what < 97) return "DELETE FROM pairs WHERE a = " + key(50) + ";";
    if (what < 100) {
      return "INSERT INTO \"Mixed Case\" VALUES (" + key(100) +
             ", md5(random()::text)) ON CONFLICT (\"Key\") DO UPDATE "
             "SET \"Value\" = EXCLUDED.\"Value\";";
    }
    if (what < 110) return ledger_statement(what, fresh);
    return events_statement(what);
  }

  // REPLICA IDENTITY FULL with a primary key: upserts, updates that leave the TOASTed blob alone
  // (the old row carries it whole, the new row as unchanged), key changes, deletes.
  auto ledger_statement(int what, const std::string& fresh) -> std::string {
    if (what < 104) {
      const std::string memo = pick(0, 4) == 0 ? "'" + std::string{secret} + "'" : "md5(random()::text)";
      const std::string blob = pick(0, 2) == 0 ? "NULL" : "repeat(md5(random()::text), 80)";
      return "INSERT INTO ledger VALUES (" + key(300) + ", " + key(1000) + ", " + memo + ", " + blob +
             ") ON CONFLICT (id) DO UPDATE SET qty = EXCLUDED.qty, memo = EXCLUDED.memo;";
    }
    if (what < 107) return "UPDATE ledger SET qty = qty + 1 WHERE id = " + key(300) + ";";
    if (what < 108) return "UPDATE ledger SET blob = repeat(md5(random()::text), 85) WHERE id = " + key(300) + ";";
    if (what < 109) return "DELETE FROM ledger WHERE id = " + key(300) + ";";
    return "UPDATE ledger SET id = " + fresh + " WHERE id = " + key(300) + ";";
  }

  // REPLICA IDENTITY FULL without any key: rows inserted twice over (identical, NULLs included),
  // updates and deletes that touch several identical rows at once, some leaving the TOASTed column
  // alone. About fifty rows at any time, so that matching whole rows stays cheap.
  auto events_statement(int what) -> std::string {
    const std::string kind = "'k" + key(20) + "'";
    if (what < 113) {
      const std::string note = pick(0, 4) == 0 ? "'" + std::string{secret} + "'" : pick(0, 1) == 0 ? "NULL" : "'n'";
      const std::string big = pick(0, 2) == 0 ? "repeat(md5(random()::text), 80)" : "NULL";
      return "INSERT INTO events SELECT " + kind + ", " + std::to_string(pick(0, 3)) + ", " + note + ", " + big +
             " FROM generate_series(1, " + key(2) + ");";
    }
    if (what < 116) {
      return "UPDATE events SET n = n + 1 WHERE kind = " + kind + " AND n = " + std::to_string(pick(0, 3)) + ";";
    }
    if (what < 117) return "UPDATE events SET big = repeat(md5(random()::text), 85) WHERE kind = " + kind + ";";
    return "DELETE FROM events WHERE kind = " + kind + ";";
  }

  std::mt19937_64 rng_;
};

// --- a source and a target database, and the verdict --------------------------------------------------

struct verdict {
  std::uint64_t applied_rows = 0;
  std::uint64_t distinct_applied = 0;
  std::uint64_t source_transactions = 0;
  std::vector<std::string> differing_tables;  // names only
  // The REPLICA IDENTITY FULL tables, row by row (whole rows as text, as multisets): rows in the
  // source, source rows the target lacks, and target rows beyond the source's (a row applied twice).
  std::uint64_t full_rows = 0;
  std::uint64_t full_rows_lost = 0;
  std::uint64_t full_rows_extra = 0;
};

// The rows of @p result (one text column each) as a sorted multiset.
auto sorted_rows(const replicant::test::rows& result) -> std::vector<std::string> {
  std::vector<std::string> out;
  out.reserve(result.size());
  for (const auto& r : result) out.push_back(r.at(0).value_or(""));
  std::sort(out.begin(), out.end());
  return out;
}

// How many of @p from's rows @p to lacks, counting repeats (multiset difference). Both sorted.
auto rows_missing(const std::vector<std::string>& from, const std::vector<std::string>& to) -> std::uint64_t {
  std::vector<std::string> missing;
  std::set_difference(from.begin(), from.end(), to.begin(), to.end(), std::back_inserter(missing));
  return missing.size();
}

// The mirror's --checkpoint mode and the settings the cases give it: batches small enough, and
// their delay short enough, that kills land in the middle of a batch.
constexpr std::uint64_t batch_size = 50;

auto mode_arguments(std::string_view mode) -> std::vector<std::string> {
  std::vector<std::string> args{"--checkpoint", std::string{mode}};
  if (mode == "batches" || mode == "lib-batched") {
    args.insert(args.end(), {"--batch-size", std::to_string(batch_size), "--batch-delay-ms", "25"});
  }
  return args;
}

// A source database and a target database, on the test program's server, or the target on a server
// of its own (@p target_server).
struct mirror_fixture {
  explicit mirror_fixture(std::string checkpoint_mode = "sink", replicant::test::pg_cluster* target_server = nullptr)
      : tpg(target_server != nullptr ? *target_server : pg), mode(std::move(checkpoint_mode)) {
    pg.create_database(source);
    tpg.create_database(target);
    pg.sql(schema_ddl, source);
    std::string published;
    for (const auto& [table, order] : mirrored_tables(mode)) published += (published.empty() ? "" : ", ") + table;
    pg.sql("CREATE PUBLICATION mirror_pub FOR TABLE " + published, source);
    tpg.sql(schema_ddl, target);
  }
  ~mirror_fixture() {
    try {
      pg.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + slot +
             "' AND NOT active");
    } catch (...) {
    }
  }
  mirror_fixture(const mirror_fixture&) = delete;
  auto operator=(const mirror_fixture&) -> mirror_fixture& = delete;

  replicant::test::pg_cluster& pg = live_server();  // the source's server
  replicant::test::pg_cluster& tpg;                 // the target's server
  std::string mode;
  std::string source = pg.unique_name("eo_src");
  std::string target = pg.unique_name("eo_dst");
  std::string slot = pg.unique_name("eo_slot");
  std::filesystem::path log = pg.directory() / (slot + ".log");

  // The mirror in this fixture's mode, with @p extra options (@p binary: the crash matrix's build),
  // starting from now on (or, with --snapshot among @p extra, from a copy of the tables).
  [[nodiscard]] auto mirror(const std::vector<std::string>& extra = {}, std::string_view binary = mirror_binary) const
      -> mirror_process {
    const bool snapshot = std::find(extra.begin(), extra.end(), "--snapshot") != extra.end();
    std::vector<std::string> args{"--source", pg.dsn(source), "--target",      tpg.dsn(target),
                                  "--slot",   slot,           "--publication", "mirror_pub"};
    if (!snapshot) args.emplace_back("--go-forward-only");
    for (auto& a : mode_arguments(mode)) args.push_back(std::move(a));
    args.insert(args.end(), extra.begin(), extra.end());
    return mirror_process{std::string{binary}, "replicant-pg-mirror", std::move(args), log};
  }

  auto slot_active() -> bool {
    return pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active") == "1";
  }

  // The slot's checkpoint has reached @p at: the target's own (sink, batches), or the one the
  // library wrote to its store in the target database (lib modes; a bigint). False while there is
  // none yet, or while the target is down.
  auto checkpoint_reached(const std::string& at) -> bool {
    const std::string query =
        is_lib_mode(mode) ? "SELECT coalesce((SELECT commit_lsn >= ('" + at +
                                "'::pg_lsn - '0/0'::pg_lsn)::bigint FROM replicant_checkpoints WHERE slot_name = '" +
                                slot + "'), false)"
                          : "SELECT coalesce((SELECT commit_lsn >= '" + at +
                                "'::pg_lsn FROM replicant_mirror_checkpoint WHERE slot = '" + slot + "'), false)";
    try {
      return tpg.scalar(query, target) == "t";
    } catch (const std::exception&) {
      return false;
    }
  }

  // Commits a marker transaction after everything else and waits until the checkpoint has passed
  // it: then every earlier transaction has been applied or skipped.
  // @p stall bounds the time without progress rather than the whole wait: a long soak leaves a
  // backlog that takes as long as it takes, but a mirror that stops applying fails soon.
  auto catch_up(source_writer& w, std::chrono::seconds stall) -> bool {
    const std::string before = pg.scalar("SELECT pg_current_wal_lsn()", source);
    if (!w.commit([](std::uint64_t) { return std::string{}; })) return false;
    auto progress = applied();
    auto deadline = std::chrono::steady_clock::now() + stall;
    while (std::chrono::steady_clock::now() < deadline) {
      if (checkpoint_reached(before)) return true;
      if (const auto now_applied = applied(); now_applied > progress) {
        progress = now_applied;
        deadline = std::chrono::steady_clock::now() + stall;
      }
      std::this_thread::sleep_for(50ms);
    }
    return checkpoint_reached(before);
  }

  // The commit LSN of the @p n-th transaction in the target's applied log, in commit order (from 1).
  auto nth_applied(std::uint64_t n) -> std::string {
    return tpg.scalar("SELECT commit_lsn FROM replicant_mirror_applied ORDER BY commit_lsn OFFSET " +
                          std::to_string(n - 1) + " LIMIT 1",
                      target);
  }

  // Whether the slot's acknowledged position (confirmed_flush_lsn) is at or below @p at.
  auto acknowledged_at_most(const std::string& at) -> bool {
    return pg.scalar("SELECT confirmed_flush_lsn <= '" + at +
                     "'::pg_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'") == "t";
  }

  // Whether the slot's acknowledged position is past every transaction the target applied: the
  // end of the last one was acknowledged.
  auto acknowledged_everything_applied() -> bool {
    const std::string last = tpg.scalar("SELECT max(commit_lsn) FROM replicant_mirror_applied", target);
    return pg.scalar("SELECT confirmed_flush_lsn > '" + last +
                     "'::pg_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'") == "t";
  }

  // Waits until the target's applied log holds @p rows rows or more; @p stall bounds the time
  // without progress, as in catch_up(), rather than the whole wait. @return whether it holds exactly
  // @p rows then.
  auto applied_reaches(std::uint64_t rows, std::chrono::seconds stall) -> bool {
    auto progress = applied();
    auto deadline = std::chrono::steady_clock::now() + stall;
    while (progress < rows && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(50ms);
      if (const auto now_applied = applied(); now_applied > progress) {
        progress = now_applied;
        deadline = std::chrono::steady_clock::now() + stall;
      }
    }
    return progress == rows;
  }

  // What the server says of the stream and of every session, for a stall's message (positions,
  // states and wait events: never a value).
  auto server_view() -> std::string {
    try {
      return "server: WAL at " + pg.scalar("SELECT pg_current_wal_lsn()") + "; slot and walsender: " +
             pg.scalar(
                 "SELECT coalesce(string_agg(concat_ws(' ', 'active', s.active, 'confirmed', "
                 "s.confirmed_flush_lsn, 'state', r.state, 'sent', r.sent_lsn, 'flushed', r.flush_lsn, "
                 "'reply', r.reply_time), '; '), 'none') FROM pg_replication_slots s LEFT JOIN "
                 "pg_stat_replication r ON r.pid = s.active_pid WHERE s.slot_name = '" +
                 slot + "'") +
             "; sessions: " +
             pg.scalar(
                 "SELECT coalesce(string_agg(concat_ws(' ', datname, backend_type, state, wait_event_type, "
                 "wait_event, now() - state_change), '; '), 'none') FROM pg_stat_activity WHERE pid <> "
                 "pg_backend_pid() AND backend_type IN ('client backend', 'walsender')");
    } catch (const std::exception& e) {
      return std::string{"server: not readable ("} + e.what() + ")";
    }
  }

  // Rows in the target's applied log (0 while the target is down).
  auto applied() -> std::uint64_t {
    try {
      return std::stoull(tpg.scalar("SELECT count(*) FROM replicant_mirror_applied", target));
    } catch (const std::exception&) {
      return 0;
    }
  }

  auto judge() -> verdict {
    verdict v;
    v.applied_rows = std::stoull(tpg.scalar("SELECT count(*) FROM replicant_mirror_applied", target));
    v.distinct_applied =
        std::stoull(tpg.scalar("SELECT count(DISTINCT commit_lsn) FROM replicant_mirror_applied", target));
    v.source_transactions = std::stoull(pg.scalar("SELECT count(*) FROM txlog", source));
    for (const auto& [table, order] : mirrored_tables(mode)) {
      const std::string rows = "SELECT t::text FROM " + table + " t ORDER BY " + order;
      const auto in_source = pg.sql(rows, source);
      const auto in_target = tpg.sql(rows, target);
      if (in_source != in_target) v.differing_tables.push_back(table);
      if (!is_full_identity(table)) continue;
      const auto from = sorted_rows(in_source);
      const auto to = sorted_rows(in_target);
      v.full_rows += from.size();
      v.full_rows_lost += rows_missing(from, to);
      v.full_rows_extra += rows_missing(to, from);
    }
    return v;
  }
};

auto report(const mirror_fixture& f, std::string_view scenario, std::uint64_t transactions, int kills, int crashes,
            std::int64_t loss, std::int64_t duplicates) -> void {
  std::cout << "exactly-once: pg" << f.pg.major() << " mode=" << f.mode << " transactions=" << transactions
            << " kills=" << kills << " crashes=" << crashes << " loss=" << loss << " duplicates=" << duplicates << " ("
            << scenario << ")" << std::endl;
}

// How many lines of @p output contain @p what.
auto printed_lines(const std::string& output, std::string_view what) -> std::size_t {
  std::size_t n = 0;
  for (auto at = output.find(what); at != std::string::npos; at = output.find(what, at + what.size())) ++n;
  return n;
}

// Checks the verdict against what the writer committed, and prints the line. Duplicates must be 0,
// or at most @p max_duplicates where the mode allows repeats. Returns the duplicates.
auto check(mirror_fixture& f, source_writer& w, const mirror_process& m, std::string_view scenario, int kills,
           int crashes, std::int64_t max_duplicates = 0) -> std::int64_t {
  // The library's deliveries, checked apart from the mirror's claim (which turns repeats away, and
  // so would hide them): none at or below the checkpoint the sink gave at connect. Only the modes
  // where the sink owns the checkpoint give one.
  const auto below = printed_lines(m.output(), " delivered at or below the checkpoint given");
  BOOST_TEST(below == 0U, "the library delivered transactions at or below the sink's checkpoint");
  const verdict v = f.judge();
  const auto loss = static_cast<std::int64_t>(w.committed()) - static_cast<std::int64_t>(v.distinct_applied);
  const auto duplicates = static_cast<std::int64_t>(v.applied_rows) - static_cast<std::int64_t>(v.distinct_applied);
  report(f, scenario, w.committed(), kills, crashes, loss, duplicates);
  std::cout << "exactly-once: pg" << f.pg.major() << " mode=" << f.mode << " REPLICA IDENTITY FULL rows=" << v.full_rows
            << " lost=" << v.full_rows_lost << " extra=" << v.full_rows_extra << " (" << scenario << ")" << std::endl;
  // The writer's own count agrees with the source (so loss is measured against the truth).
  BOOST_TEST(v.source_transactions == w.committed());
  BOOST_TEST(loss == 0);
  BOOST_TEST(duplicates >= 0);
  BOOST_TEST(duplicates <= max_duplicates);
  BOOST_TEST(v.full_rows_lost == 0U);
  BOOST_TEST(v.full_rows_extra == 0U);
  BOOST_TEST(v.differing_tables.empty());
  for (const auto& t : v.differing_tables) BOOST_TEST_MESSAGE("differs: " + t);
  return duplicates;
}

auto seed_from_environment() -> std::uint64_t {
  const auto s = env_number("REPLICANT_EXACTLY_ONCE_SEED", 0);
  return s != 0 ? s : std::random_device{}();
}

auto seconds_since(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) -> double {
  return std::chrono::duration<double>(to - from).count();
}

// The sum of a count the mirror prints when it ends, e.g. "... N unchanged TOAST columns kept ...",
// over every run in @p output.
auto printed_count(const std::string& output, std::string_view what) -> std::uint64_t {
  std::uint64_t total = 0;
  std::istringstream lines{output};
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(what);
    if (at == std::string::npos || at == 0) continue;
    const auto start = line.rfind(' ', at - 1);
    total += std::stoull(line.substr(start + 1, at - start - 1));
  }
  return total;
}

// The WAL position of the first halt the mirror printed ("replicant halted: ...; at X/Y; ..."), or
// an empty string.
auto printed_halt_at(const std::string& output) -> std::string {
  const auto halted = output.find("replicant halted: ");
  if (halted == std::string::npos) return {};
  const auto end_of_line = output.find('\n', halted);
  const auto at = output.find("; at ", halted);
  if (at == std::string::npos || at > end_of_line) return {};
  const auto start = at + 5;
  return output.substr(start, output.find(';', start) - start);
}

auto unchanged_kept(const std::string& output) -> std::uint64_t {
  return printed_count(output, " unchanged TOAST columns kept");
}

// The storm cases' transactions: random ones from the workload seeded with @p seed.
auto random_transactions(source_writer& w, std::uint64_t seed) -> std::function<bool(std::uint64_t)> {
  return [&w, work = workload{seed}](std::uint64_t) mutable { return w.commit(std::ref(work)); };
}

// The evidence that a storm's kills interrupted work instead of all landing before the mirror had
// started streaming (as they would if its start-up outlasted the kill interval, under a sanitizer
// on two loaded cores): kills that came after the mirror had applied something in that run, target
// transactions the server rolled back (a kill inside one), and transactions applied before the
// final catch-up. check() asserts at least one of each.
class interruptions {
 public:
  explicit interruptions(mirror_fixture& f) : f_{f}, rollbacks_at_start_{rollbacks()} {}

  /// Call right before each kill.
  auto before_kill() -> void {
    const auto now = f_.applied();
    last_interrupted_ = now > applied_at_last_kill_;
    if (last_interrupted_) ++mid_stream_;
    applied_at_last_kill_ = now;
  }
  /// Whether the last kill came after its run had applied something.
  [[nodiscard]] auto last_kill_interrupted_work() const -> bool { return last_interrupted_; }
  /// Waits (a bounded time) until the mirror has applied something since the last kill, or until
  /// @p nothing_left says nothing is left to apply.
  template <class Predicate>
  auto wait_for_progress(Predicate nothing_left) -> void {
    wait_until([&] { return f_.applied() > applied_at_last_kill_ || nothing_left(); }, 120s);
  }
  /// Call when the writer has committed its last transaction, before the final catch-up.
  auto writer_done() -> void { applied_before_catch_up_ = f_.applied(); }

  /// @p repeated: the storm's duplicates, where its mode allows them (0 elsewhere). A repeat is a
  /// kill between a target commit and its checkpoint: in the at-least-once modes that is the window
  /// that matters, and it stands in for a rollback, which a mode with short target transactions
  /// (lib-batched) may by chance never get from a few random kills.
  auto check(std::string_view mode, int kills, std::int64_t repeated = 0) -> void {
    const auto rolled_back = rollbacks() - rollbacks_at_start_;
    std::cout << "exactly-once: pg" << f_.pg.major() << " mode=" << mode << " kills mid-stream: " << mid_stream_
              << " of " << kills << ", target transactions rolled back: " << rolled_back
              << ", applied before the catch-up: " << applied_before_catch_up_ << std::endl;
    BOOST_TEST(mid_stream_ >= 1, "no kill came after the mirror had applied anything");
    BOOST_TEST((rolled_back >= 1U || repeated >= 1),
               "no kill landed inside a target transaction, nor between a commit and its checkpoint");
    BOOST_TEST(applied_before_catch_up_ >= 1U, "nothing was applied while the storm went on");
  }

 private:
  auto rollbacks() -> std::uint64_t {
    return std::stoull(f_.tpg.scalar("SELECT xact_rollback FROM pg_stat_database WHERE datname = '" + f_.target + "'"));
  }

  mirror_fixture& f_;
  std::uint64_t rollbacks_at_start_;
  std::uint64_t applied_at_last_kill_ = 0;
  std::uint64_t applied_before_catch_up_ = 0;
  int mid_stream_ = 0;
  bool last_interrupted_ = true;
};

// SIGKILL at random moments while a writer commits as fast as it can, in checkpoint mode @p mode.
// Each kill may cause at most @p duplicates_per_kill duplicates (0: exactly once).
auto kill_storm(const std::string& mode, std::uint64_t transactions, int min_kills, std::int64_t duplicates_per_kill)
    -> void {
  const auto seed = seed_from_environment();
  mirror_fixture f{mode};
  std::cout << "exactly-once: pg" << f.pg.major() << " mode=" << mode << " kill storm, seed " << seed << std::endl;
  const auto started = std::chrono::steady_clock::now();
  auto m = f.mirror();
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));

  source_writer w{f.pg.dsn(f.source)};
  background_writer writer{transactions, random_transactions(w, seed)};
  std::mt19937_64 rng{seed ^ 0x9e3779b97f4a7c15ULL};
  interruptions evidence{f};
  int kills = 0;
  int unexpected_exits = 0;
  while (kills < min_kills || writer.writing()) {
    // A run after one killed before it applied anything is let apply something first: on a
    // loaded machine the mirror's start-up can outlast the random interval, and then no kill would
    // land mid-stream. The others may land anywhere, start-up included.
    if (!evidence.last_kill_interrupted_work()) {
      evidence.wait_for_progress([&] { return !writer.writing() && f.applied() >= w.committed(); });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{std::uniform_int_distribution<int>{20, 400}(rng)});
    if (!m.running()) {
      ++unexpected_exits;  // it must never stop by itself
      BOOST_TEST_MESSAGE("the mirror exited by itself with status " << m.last_status());
    }
    evidence.before_kill();
    m.kill();
    ++kills;
    m.start();
  }
  BOOST_TEST_REQUIRE(writer.join());
  evidence.writer_done();
  const auto written = std::chrono::steady_clock::now();
  const bool caught_up = f.catch_up(w, 120s);
  BOOST_TEST(caught_up);
  BOOST_TEST_MESSAGE("kill storm (" << mode << "): writer " << seconds_since(started, written) << " s, catch-up "
                                    << seconds_since(written, std::chrono::steady_clock::now()) << " s");
  BOOST_TEST(m.running());
  BOOST_TEST(m.stop() == mirror::exit_ok);
  BOOST_TEST(unexpected_exits == 0);
  const auto repeated = check(f, w, m, "random SIGKILLs", kills, 0, duplicates_per_kill * kills);
  evidence.check(mode, kills, repeated);
  BOOST_TEST(m.output().find(secret) == std::string::npos);
  BOOST_TEST_MESSAGE("kill storm (" << mode << "): " << m.starts() << " mirror starts in "
                                    << seconds_since(started, std::chrono::steady_clock::now()) << " s");
}

// Every kind of change and value, deterministically, in checkpoint mode @p mode: types whose text
// form must survive the round trip, NULLs, quoting, key changes, composite keys, unchanged TOAST
// columns, deletes, truncation. Then a restart that applies nothing twice.
auto every_kind_of_change(const std::string& mode) -> void {
  mirror_fixture f{mode};
  auto m = f.mirror();
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
  source_writer w{f.pg.dsn(f.source)};
  const auto tx = [&](std::string sql) { BOOST_TEST_REQUIRE(w.commit([&](std::uint64_t) { return sql; })); };
  tx("INSERT INTO accounts VALUES (1, 10, E'quote '' backslash \\\\ newline \\n tab \\t ü €', '2024-02-29 "
     "12:34:56.789012+05:30', 12345678901.125, 'NaN', ARRAY['a', NULL, 'b c', '\"q\"'], true, "
     "'{\"a\": [1, 2.50, null], \"b\": \"x\"}', 'infinity', '-1 year 2 mons -3 days 04:05:06.7', '\\x00ff10'),"
     "(2, -5, NULL, '-infinity', NULL, '-Infinity', '{}', NULL, NULL, '0044-03-15 BC', NULL, ''::bytea),"
     "(3, 0, '" +
     std::string{secret} + "', now(), 0.001, 1e-300, NULL, false, '[]', current_date, '0', NULL);");
  tx("INSERT INTO docs VALUES (1, 0, 't1', repeat('0123456789abcdef', 200)), (2, 0, 't2', repeat('x', 5000)), "
     "(3, 0, 't3', 'short');");
  tx("INSERT INTO pairs VALUES (1, 'a', 1), (1, 'b', 2), (2, 'a', 3); "
     "INSERT INTO \"Mixed Case\" VALUES (1, 'one'), (2, NULL);");
  // Leaves docs.body alone: sent as unchanged TOAST for rows 1 and 2.
  tx("UPDATE docs SET rev = rev + 1, title = 'touched' WHERE id IN (1, 2, 3);");
  // A key change with the body unchanged: old key plus unchanged TOAST.
  tx("UPDATE docs SET id = 10 WHERE id = 2;");
  tx("UPDATE accounts SET id = 20, balance = 99 WHERE id = 1; UPDATE pairs SET b = 'z' WHERE a = 1 AND b = 'a'; "
     "UPDATE \"Mixed Case\" SET \"Value\" = 'two' WHERE \"Key\" = 2;");
  tx("DELETE FROM accounts WHERE id = 3; DELETE FROM docs WHERE id = 3; DELETE FROM pairs WHERE a = 2;");
  tx("TRUNCATE pairs, \"Mixed Case\"; INSERT INTO pairs VALUES (5, 'e', 5);");
  tx("UPDATE docs SET body = body || 'tail' WHERE id = 1;");
  // A key moved away and the old key used again at once (the shape that a transaction repeated in
  // lib mode must survive; the kill storms repeat such transactions).
  tx("UPDATE docs SET id = 11 WHERE id = 10; INSERT INTO docs VALUES (10, 7, 'again', repeat('z', 4000));");
  // REPLICA IDENTITY FULL, with a primary key and without any key: whole old rows (a TOASTed value
  // inlined in them), identical rows of which the source changes one, NULLs to match.
  tx("INSERT INTO ledger VALUES (1, 1, 'one', repeat('L', 3000)), (2, 2, NULL, NULL), (3, 3, '" + std::string{secret} +
     "', 'short'); INSERT INTO events VALUES ('a', 1, NULL, NULL), ('a', 1, NULL, NULL), ('b', 2, 'x', "
     "repeat('E', 3000)), ('c', NULL, '" +
     std::string{secret} + "', NULL), ('d', 4, 'dup', repeat('D', 3000)), ('d', 4, 'dup', repeat('D', 3000));");
  // The blobs stay as they are (unchanged in the new rows), a key changes under FULL.
  tx("UPDATE ledger SET qty = 10 WHERE id = 1; UPDATE ledger SET id = 20, memo = 'moved' WHERE id = 2; "
     "UPDATE events SET n = 5 WHERE ctid = (SELECT ctid FROM events WHERE kind = 'a' LIMIT 1); "
     "UPDATE events SET note = 'y' WHERE kind = 'b';");
  tx("DELETE FROM ledger WHERE id = 3; DELETE FROM events WHERE ctid = (SELECT ctid FROM events WHERE kind = 'd' "
     "LIMIT 1); DELETE FROM events WHERE n IS NULL; UPDATE events SET big = 'small' WHERE kind = 'd';");
  BOOST_TEST_REQUIRE(f.catch_up(w, 60s));
  BOOST_TEST(m.stop() == mirror::exit_ok);
  check(f, w, m, "every kind of change", 0, 0);
  BOOST_TEST(unchanged_kept(m.output()) >= 4U);

  // A restart applies nothing twice and goes on from the checkpoint.
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
  tx("INSERT INTO docs VALUES (4, 0, 't4', repeat('y', 3000));");
  BOOST_TEST_REQUIRE(f.catch_up(w, 60s));
  BOOST_TEST(m.stop() == mirror::exit_ok);
  check(f, w, m, "after a restart", 0, 0);
  BOOST_TEST(m.output().find(secret) == std::string::npos);
  BOOST_TEST(printed_count(m.output(), " superseded changes skipped") == 0U, "nothing was repeated");
}

// The sizes of the cases: a mode other than `sink` runs two fifths of the transactions and a third
// of the kills (rounded up), enough for its kills to land inside target transactions (the evidence
// check) while the whole program stays within about twice the `sink` cases' runtime.
auto transactions_for(bool extra_mode) -> std::uint64_t {
  const auto n = env_number("REPLICANT_EXACTLY_ONCE_TRANSACTIONS", 5000);
  return extra_mode ? std::max<std::uint64_t>(n * 2 / 5, 1) : n;
}
auto kills_for(bool extra_mode) -> int {
  const auto n = static_cast<int>(env_number("REPLICANT_EXACTLY_ONCE_KILLS", 12));
  return extra_mode ? (n + 2) / 3 : n;
}

// One case of the crash matrix: the mirror's crash-point build dies with SIGKILL at @p point
// (REPLICANT_CRASH_AT, docs/reliability.md) on a random early pass, @p crashes times in a row under
// a writer, then runs on without it. Every planned crash must happen (the point lies on the path),
// and the verdict is the mode's: nothing lost, at most @p duplicates_per_crash duplicates each.
// With @p large the writer commits transactions far larger than the mirror's memory budget.
auto crash_at(const std::string& point, const std::string& mode, const std::vector<std::string>& extra, int crashes,
              std::int64_t duplicates_per_crash, bool large = false) -> void {
  const auto seed = seed_from_environment();
  mirror_fixture f{mode};
  std::mt19937_64 rng{seed};
  const auto plan = [&] {
    return std::vector<std::string>{"REPLICANT_CRASH_AT=" + point + ":" +
                                    std::to_string(std::uniform_int_distribution<int>{1, 8}(rng))};
  };
  auto arguments = extra;
  const auto spill = f.pg.directory() / (f.slot + "-spill");
  if (large) arguments.insert(arguments.end(), {"--spill-dir", spill.string()});
  auto m = f.mirror(arguments, faults_binary);
  m.start(plan());
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active() || !m.running(); }, 60s));

  // The writer goes on until every planned crash has happened (and at least a few hundred
  // transactions, large ones fewer).
  source_writer w{f.pg.dsn(f.source)};
  std::atomic<bool> crashes_done{false};
  std::atomic<bool> ok{true};
  std::thread writer{[&] {
    workload work{seed};
    const std::uint64_t at_least = large ? 12 : 300;
    const std::uint64_t at_most = large ? 24 : 100000;  // each large one is 1,500 rows
    for (std::uint64_t i = 0; ok && i < at_most && (i < at_least || !crashes_done); ++i) {
      const bool committed = large ? w.commit([i](std::uint64_t id) {
        return "INSERT INTO docs SELECT g, " + std::to_string(id) + ", 'large " + std::to_string(i) +
               "', repeat(md5(g::text), 10) FROM generate_series(1, 1500) g ON CONFLICT (id) DO UPDATE SET rev = "
               "EXCLUDED.rev, title = EXCLUDED.title, body = EXCLUDED.body;";
      })
                                   : w.commit(std::ref(work));
      if (!committed) ok = false;
    }
  }};
  int crashed = 0;
  while (crashed < crashes) {
    if (!wait_until([&] { return !m.running(); }, 60s)) break;  // the point was not reached
    BOOST_TEST(m.last_status() == 128 + SIGKILL, "the mirror ended otherwise than at " << point);
    ++crashed;
    m.start(crashed < crashes ? plan() : std::vector<std::string>{});
  }
  crashes_done = true;
  writer.join();
  BOOST_TEST_REQUIRE(ok.load());
  BOOST_TEST(crashed == crashes, "crash point " << point << " reached " << crashed << " of " << crashes << " times");
  BOOST_TEST(f.catch_up(w, 180s));
  BOOST_TEST(m.stop() == mirror::exit_ok);
  check(f, w, m, "crash point " + point, crashed, 0, duplicates_per_crash * crashed);
  BOOST_TEST(m.output().find(secret) == std::string::npos);
  std::error_code ec;
  BOOST_TEST((!large || std::filesystem::is_empty(spill, ec)), "no spill file outlives the process");
}

// A writer on a thread of its own that commits random transactions until stop() (or the destructor):
// for cases that must go on writing while the mirror halts and restarts.
class open_ended_writer {
 public:
  open_ended_writer(source_writer& w, std::uint64_t seed)
      : thread_{[this, &w, seed] {
          workload work{seed};
          while (writing_ && ok_) {
            if (!w.commit(std::ref(work))) ok_ = false;
          }
        }} {}
  open_ended_writer(const open_ended_writer&) = delete;
  auto operator=(const open_ended_writer&) -> open_ended_writer& = delete;
  ~open_ended_writer() { static_cast<void>(stop()); }

  // Lets the transaction in progress finish, then stops. @return whether every commit succeeded.
  auto stop() -> bool {
    writing_ = false;
    if (thread_.joinable()) thread_.join();
    return ok_.load();
  }

 private:
  std::atomic<bool> writing_{true};
  std::atomic<bool> ok_{true};
  std::thread thread_;  // last: starts once the flags exist
};

// The deferred policy's halts (D4, D5 of the deferred matrix): the mirror runs with the test option
// `--test-confirmations <hook>:N` (N a random early transaction) and a confirmation timeout of 1 s,
// under a writer. It must stop by itself with exit status 1, halted `sink_failed` at the commit LSN
// of the N-th transaction it applied, with @p cause in the halt, and with the slot acknowledged no
// further than that transaction, although the worker applied (and confirmed) transactions after it.
// A restart without the option must then lose nothing and repeat nothing.
auto deferred_halt(const std::string& hook, std::string_view cause, const std::string& scenario) -> void {
  const auto seed = seed_from_environment();
  mirror_fixture f{"deferred"};
  std::mt19937_64 rng{seed};
  const auto nth = std::uniform_int_distribution<std::uint64_t>{5, 40}(rng);
  std::cout << "exactly-once: pg" << f.pg.major() << " mode=deferred --test-confirmations " << hook << ":" << nth
            << ", seed " << seed << std::endl;
  const auto started = std::chrono::steady_clock::now();
  auto m = f.mirror({"--test-confirmations", hook + ":" + std::to_string(nth), "--confirm-timeout-ms", "1000"});
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
  source_writer w{f.pg.dsn(f.source)};
  open_ended_writer writer{w, seed};
  const bool halted = wait_until([&] { return !m.running(); }, 60s);
  const auto halted_after = seconds_since(started, std::chrono::steady_clock::now());
  const auto output = m.output();
  BOOST_TEST(halted, "the mirror did not stop by itself");
  BOOST_TEST(m.last_status() == mirror::exit_failure);
  BOOST_TEST(output.find("replicant halted: sink_failed") != std::string::npos, output);
  BOOST_TEST(output.find(cause) != std::string::npos, output);
  BOOST_TEST(printed_count(output, " interventions") == 1U, output);
  const auto at = printed_halt_at(output);
  BOOST_TEST(!at.empty(), output);
  if (halted && !at.empty()) {
    // Positions only (no value): on a failure, where the halt was, where the target's N-th and its
    // neighbours are, so that a mismatch tells an off-by-one from a foreign transaction.
    BOOST_TEST(at == f.nth_applied(nth), "the halt is at " << at << ", the target's transaction " << nth << " at "
                                                           << f.nth_applied(nth) << " (" << nth - 1 << ": "
                                                           << f.nth_applied(nth - 1) << ", " << nth + 1 << ": "
                                                           << f.nth_applied(nth + 1) << ")");
    BOOST_TEST(f.acknowledged_at_most(at), "nothing from the failed transaction on is acknowledged");
    BOOST_TEST(f.applied() > nth, "the worker applied transactions after it");
  }

  // The operator's restart, without the option: everything the server sends again is either
  // applied for the first time or turned away by the claim.
  auto again = f.mirror();
  again.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active() || !again.running(); }, 60s));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST_REQUIRE(writer.stop());
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(again.running());
  BOOST_TEST(again.stop() == mirror::exit_ok);
  check(f, w, m, scenario, 0, 0, 0);
  BOOST_TEST(again.output().find(secret) == std::string::npos);
  std::cout << "exactly-once: pg" << f.pg.major() << " mode=deferred " << scenario << ": halted at transaction " << nth
            << " after " << halted_after << " s; whole case "
            << seconds_since(started, std::chrono::steady_clock::now()) << " s" << std::endl;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(exactly_once, *utf::label("integration") * utf::precondition(binary_known))

BOOST_AUTO_TEST_CASE(mirrors_every_kind_of_change) { every_kind_of_change("sink"); }

BOOST_AUTO_TEST_CASE(mirrors_every_kind_of_change_in_batches) { every_kind_of_change("batches"); }

BOOST_AUTO_TEST_CASE(mirrors_every_kind_of_change_with_a_library_checkpoint) {
  every_kind_of_change("lib");
  every_kind_of_change("lib-batched");
}

BOOST_AUTO_TEST_CASE(mirrors_every_kind_of_change_with_deferred_confirmations) { every_kind_of_change("deferred"); }

// A REPLICA IDENTITY FULL table without any key cannot be mirrored where a transaction may be
// applied twice: a repeated insert would leave its row twice, with no key to notice. In lib mode the
// mirror stops at the table's first change, says why, and quotes nothing.
BOOST_AUTO_TEST_CASE(refuses_a_keyless_table_where_transactions_may_repeat) {
  mirror_fixture f{"lib"};
  f.pg.sql("ALTER PUBLICATION mirror_pub ADD TABLE events", f.source);
  auto m = f.mirror();
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
  source_writer w{f.pg.dsn(f.source)};
  BOOST_TEST_REQUIRE(w.commit(
      [](std::uint64_t) { return "INSERT INTO events VALUES ('" + std::string{secret} + "', 1, NULL, NULL);"; }));
  BOOST_TEST_REQUIRE(wait_until([&] { return !m.running(); }, 60s), "the mirror went on");
  BOOST_TEST(m.last_status() == mirror::exit_failure);
  const auto output = m.output();
  BOOST_TEST(output.find("replicant.pg_mirror:1") != std::string::npos, "no_usable_key is the cause");
  BOOST_TEST(output.find(secret) == std::string::npos);
  BOOST_TEST(f.applied() == 0U);
}

// SIGKILL at random moments while a writer commits as fast as it can.
BOOST_AUTO_TEST_CASE(survives_random_kills_without_loss_or_duplicates) {
  kill_storm("sink", transactions_for(false), kills_for(false), 0);
}

// One target transaction per batch of 50: a kill in the middle of a batch loses the whole target
// transaction, and the batch comes again.
BOOST_AUTO_TEST_CASE(survives_random_kills_in_batches_without_loss_or_duplicates) {
  kill_storm("batches", transactions_for(true), kills_for(true), 0);
}

// The library writes the checkpoint after the target committed: a kill in between applies that one
// transaction again.
BOOST_AUTO_TEST_CASE(survives_random_kills_with_a_library_checkpoint_at_least_once) {
  kill_storm("lib", transactions_for(true), kills_for(true), 1);
}

// ... written once per batch of 50: a kill applies up to one batch again.
BOOST_AUTO_TEST_CASE(survives_random_kills_with_a_batched_library_checkpoint_at_least_once) {
  kill_storm("lib-batched", transactions_for(true), kills_for(true), static_cast<std::int64_t>(batch_size));
}

// A worker thread of the sink applies and confirms after the hand-off (deferred_checkpoint): a kill
// lands with transactions handed off and not yet applied, applied and not yet confirmed, confirmed
// and not yet acknowledged. The claim keeps it exactly once.
BOOST_AUTO_TEST_CASE(survives_random_kills_with_deferred_confirmations_without_loss_or_duplicates) {
  kill_storm("deferred", transactions_for(true), kills_for(true), 0);
}

// A kill before the library wrote any checkpoint repeats every transaction so far, on a target that
// holds them all already: the whole history comes again. First a key moved away, used again and
// moved again: the repeated moves find their rows gone or their new keys taken, and the key used
// again must still end as absent as it is in the source (it once stayed behind: the kill storms met
// it by chance). Then the kill storms' random workload, so that every shape of change is repeated
// after everything that came after it.
BOOST_AUTO_TEST_CASE(a_repeated_history_ends_as_the_source) {
  const auto seed = seed_from_environment();
  mirror_fixture f{"lib-batched"};
  std::cout << "exactly-once: pg" << f.pg.major() << " mode=lib-batched whole history repeated, seed " << seed
            << std::endl;
  // One batch of up to a million transactions, or an hour: no checkpoint write before the kill. So
  // both lag bounds are lifted too: everything received stays undurable on purpose, and the
  // cluster's WAL meanwhile (the target's writes, a checkpoint's full pages) passed 64 MiB in CI,
  // once ahead of what was handed over (max_inflight_lag) and once of the server's (max_wal_lag).
  auto m = f.mirror({"--batch-size", "1000000", "--batch-delay-ms", "3600000", "--max-inflight-lag-mib", "0",
                     "--max-wal-lag-mib", "0"});
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
  source_writer w{f.pg.dsn(f.source)};
  const auto tx = [&](std::string sql) { BOOST_TEST_REQUIRE(w.commit([&](std::uint64_t) { return sql; })); };
  const auto insert_7 = [&](int rev) {
    tx("INSERT INTO accounts (id, balance) VALUES (7, " + std::to_string(rev) + "); INSERT INTO docs VALUES (7, " +
       std::to_string(rev) + ", 'seven', repeat('" + std::to_string(rev) + "', 4000));");
  };
  // The moves leave docs.body unchanged (sent as unchanged TOAST); accounts sends whole rows.
  const auto move_7 = [&](int to) {
    tx("UPDATE accounts SET id = " + std::to_string(to) + " WHERE id = 7; UPDATE docs SET id = " + std::to_string(to) +
       " WHERE id = 7;");
  };
  insert_7(1);
  move_7(1001);
  insert_7(2);
  move_7(1002);
  insert_7(3);
  move_7(1003);
  workload work{seed};
  for (int i = 0; i < 3000; ++i) BOOST_TEST_REQUIRE(w.commit(std::ref(work)));
  // On a stall, what the mirror last said (value-free: the program never prints a row value), so
  // that a halt names its reason.
  const auto said = [&] {
    const auto out = m.output();
    return out.substr(out.size() > 1500 ? out.size() - 1500 : 0);
  };
  const auto stall = replicant::test::scaled(60s);  // a minute without progress; longer sanitized
  BOOST_TEST_REQUIRE(f.applied_reaches(w.committed(), stall),
                     "applied " << f.applied() << " of " << w.committed() << "; " << said() << "; " << f.server_view());
  m.kill();
  m.start();
  BOOST_TEST_REQUIRE(f.applied_reaches(2 * w.committed(), stall), "everything came again: applied "
                                                                      << f.applied() << " of " << 2 * w.committed()
                                                                      << "; " << said() << "; " << f.server_view());
  BOOST_TEST(m.stop() == mirror::exit_ok);
  check(f, w, m, "the whole history repeated", 1, 0, static_cast<std::int64_t>(w.committed()));
  BOOST_TEST(printed_count(m.output(), " superseded changes skipped") > 0U);
}

// Transactions far larger than the mirror's 1 MiB memory budget, each held partly in spill files
// while it is received, with SIGKILLs landing mid-spill and mid-delivery: still exactly once, and no
// spill file outlives a killed process.
BOOST_AUTO_TEST_CASE(survives_random_kills_while_spilling_large_transactions) {
  const auto seed = seed_from_environment();
  mirror_fixture f{"sink"};
  const auto spill = f.pg.directory() / (f.slot + "-spill");
  auto m = f.mirror({"--spill-dir", spill.string(), "--max-inflight-mib", "1", "--streaming"});
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
  source_writer w{f.pg.dsn(f.source)};
  const auto large = std::max<std::uint64_t>(8, transactions_for(true) / 100);
  background_writer writer{large, [&w](std::uint64_t i) {
                             // About 600 kB of rows: several times what the mirror may hold in memory.
                             return w.commit([i](std::uint64_t id) {
                               return "INSERT INTO docs SELECT g, " + std::to_string(id) + ", 'large " +
                                      std::to_string(i) +
                                      "', repeat(md5(g::text), 10) FROM generate_series(1, 1500) g ON CONFLICT (id) "
                                      "DO UPDATE SET rev = EXCLUDED.rev, title = EXCLUDED.title, body = EXCLUDED.body;";
                             });
                           }};
  std::mt19937_64 rng{seed ^ 0x5bd1e995ULL};
  interruptions evidence{f};
  int kills = 0;
  while (kills < 10 || writer.writing()) {
    // A transaction this large may take longer to apply than a random kill interval (a sanitizer on
    // two loaded cores): let each run apply one before its random kill, or no kill would interrupt
    // delivery and the storm would prove nothing.
    evidence.wait_for_progress([&] { return !writer.writing() && f.applied() >= w.committed(); });
    std::this_thread::sleep_for(std::chrono::milliseconds{std::uniform_int_distribution<int>{50, 600}(rng)});
    evidence.before_kill();
    m.kill();
    ++kills;
    m.start();
  }
  BOOST_TEST_REQUIRE(writer.join());
  evidence.writer_done();
  BOOST_TEST(f.catch_up(w, 180s));
  BOOST_TEST(m.stop() == mirror::exit_ok);
  check(f, w, m, "random SIGKILLs while spilling", kills, 0, 0);
  evidence.check("sink, spilling", kills);
  std::error_code ec;
  BOOST_TEST(std::filesystem::is_empty(spill, ec), "no spill file outlives the process");
}

// Immediate server shutdowns mid-stream: source and target go down together (one cluster), the
// writer's in-flight transaction may or may not have committed, the slot may rewind.
BOOST_AUTO_TEST_CASE(survives_server_crashes_without_loss_or_duplicates) {
  const auto transactions = transactions_for(false);
  const auto crashes = static_cast<int>(env_number("REPLICANT_EXACTLY_ONCE_CRASHES", 3));
  const auto seed = seed_from_environment();
  mirror_fixture f;
  std::cout << "exactly-once: pg" << f.pg.major() << " server crashes, seed " << seed << std::endl;
  const auto started = std::chrono::steady_clock::now();
  auto m = f.mirror();
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));

  source_writer w{f.pg.dsn(f.source)};
  background_writer writer{transactions, random_transactions(w, seed)};
  std::mt19937_64 rng{seed ^ 0x5851f42d4c957f2dULL};
  int crashed = 0;
  for (int i = 1; i <= crashes && writer.writing(); ++i) {
    // Spread the crashes over the run, each at a random point of its share.
    const auto share = transactions / static_cast<std::uint64_t>(crashes + 1);
    const auto at =
        share * static_cast<std::uint64_t>(i) + std::uniform_int_distribution<std::uint64_t>{0, share / 2}(rng);
    wait_until([&] { return w.committed() >= at || !writer.writing(); }, 300s);
    if (!writer.writing()) break;
    f.pg.crash();
    std::this_thread::sleep_for(std::chrono::milliseconds{std::uniform_int_distribution<int>{0, 300}(rng)});
    f.pg.start();
    ++crashed;
  }
  BOOST_TEST_REQUIRE(writer.join());
  const auto written = std::chrono::steady_clock::now();
  const bool caught_up = f.catch_up(w, 120s);
  BOOST_TEST(caught_up);
  BOOST_TEST_MESSAGE("server crashes: writer " << seconds_since(started, written) << " s, catch-up "
                                               << seconds_since(written, std::chrono::steady_clock::now()) << " s");
  BOOST_TEST(m.running());  // it rode out every crash by itself
  BOOST_TEST(m.stop() == mirror::exit_ok);
  BOOST_TEST(crashed >= 1);
  check(f, w, m, "server crashes", 0, crashed);
  BOOST_TEST_MESSAGE("server crashes: " << w.in_doubt() << " commits in doubt, " << w.retried() << " retried");
  BOOST_TEST(m.output().find(secret) == std::string::npos);
}

// Lib mode with the checkpoint store down: the target, and the store's table in it, live on a
// server of their own, which the test stops mid-stream. The mirror must give up once its store
// retry budget is spent (exit status 1, `checkpoint_store_failed`) rather than acknowledge anything
// unwritten; once the server is back, a restart must lose nothing, and repeat at most the one
// transaction whose checkpoint the outage swallowed.
BOOST_AUTO_TEST_CASE(halts_when_the_checkpoint_store_stays_away_and_resumes_without_loss) {
  const auto transactions = std::max<std::uint64_t>(transactions_for(false) / 8, 40);
  const auto seed = seed_from_environment();
  replicant::test::pg_cluster store_server;
  mirror_fixture f{"lib", &store_server};
  std::cout << "exactly-once: pg" << f.pg.major() << " mode=lib store outage, seed " << seed << std::endl;
  // Three attempts, 200 ms apart: the outage outlasts them by far.
  auto m = f.mirror({"--store-retries", "2", "--store-backoff-ms", "200"});
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));

  source_writer w{f.pg.dsn(f.source)};
  background_writer writer{transactions, random_transactions(w, seed)};
  BOOST_TEST_REQUIRE(wait_until([&] { return f.applied() >= transactions / 4; }, 120s));
  const auto down = std::chrono::steady_clock::now();  // the first failure comes after this
  store_server.stop();
  BOOST_TEST_REQUIRE(wait_until([&] { return !m.running(); }, 60s));
  const auto gave_up = seconds_since(down, std::chrono::steady_clock::now());
  BOOST_TEST(m.last_status() == mirror::exit_failure);
  const auto output = m.output();
  BOOST_TEST(output.find("checkpoint_store_failed") != std::string::npos, output);
  BOOST_TEST(output.find("after 3 attempts") != std::string::npos, output);
  BOOST_TEST(gave_up >= 0.4, "three attempts, 200 ms apart");
  BOOST_TEST_MESSAGE("store outage: the mirror gave up after " << gave_up << " s");

  store_server.start();
  m.start();
  BOOST_TEST_REQUIRE(writer.join());
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.running());
  BOOST_TEST(m.stop() == mirror::exit_ok);
  check(f, w, m, "checkpoint store outage", 0, 0, 1);
  BOOST_TEST(m.output().find(secret) == std::string::npos);
}

// The crash matrix (docs/reliability.md): SIGKILL at each crash point of the library, three times
// in a row, then a restart that runs to the end.
BOOST_AUTO_TEST_SUITE(crash_matrix,
                      *utf::precondition(replicant::test::binary_known{
                          faults_binary, "REPLICANT_PG_MIRROR_FAULTS_BINARY", "replicant-pg-mirror-faults"}))

// F1: the transaction is assembled, the sink has not seen it.
BOOST_AUTO_TEST_CASE(f1_before_the_sink_write) { crash_at("before_sink", "sink", {}, 3, 0); }

// F2: the target committed the rows and the checkpoint; the slot was not acknowledged.
BOOST_AUTO_TEST_CASE(f2_between_the_sink_write_and_the_ack) { crash_at("after_sink", "sink", {}, 3, 0); }

// F3: the library's store holds the checkpoint; the slot was not acknowledged.
BOOST_AUTO_TEST_CASE(f3_after_the_checkpoint_write_before_the_ack) {
  crash_at("after_checkpoint_write", "lib", {}, 3, 0);
}

// F4: a transaction is half received.
BOOST_AUTO_TEST_CASE(f4_mid_transaction) { crash_at("mid_transaction", "sink", {}, 3, 0); }

// F5: transactions wait in a batch that was not handed over.
BOOST_AUTO_TEST_CASE(f5_mid_batch) { crash_at("mid_batch", "batches", {}, 3, 0); }

// F8: part of a transaction was just written to a spill file.
BOOST_AUTO_TEST_CASE(f8_during_spill) {
  crash_at("during_spill", "sink", {"--max-inflight-mib", "1", "--streaming"}, 3, 0, true);
}

// The tables hold rows before the mirror first starts, so that --snapshot has something to copy:
// about 2,500 rows in `accounts` (three batches of the snapshot reader) and some in the others.
auto fill_before_the_snapshot(mirror_fixture& f) -> void {
  f.pg.sql(
      "INSERT INTO accounts (id, balance, note, tags, flag) SELECT g, g * 7, 'n ' || g, ARRAY['a', g::text], "
      "g % 2 = 0 FROM generate_series(100001, 102500) g; "
      "INSERT INTO docs SELECT g, 1, 't ' || g, repeat(md5(g::text), 100) FROM generate_series(100001, 100050) g; "
      "INSERT INTO pairs SELECT g, 'k' || g, g FROM generate_series(1, 300) g; "
      "INSERT INTO \"Mixed Case\" SELECT g, 'v' || g FROM generate_series(1, 300) g",
      f.source);
}

// Writes transactions until stopped, once the slot has its consistent point (transactions that
// commit before it are the snapshot's: they are copied, not applied, and would not count).
auto write_after_slot(mirror_fixture& f, source_writer& w, std::atomic<bool>& writing, std::uint64_t seed)
    -> std::thread {
  BOOST_TEST_REQUIRE(wait_until(
      [&] {
        return f.pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + f.slot +
                           "' AND confirmed_flush_lsn IS NOT NULL") == "1";
      },
      60s));
  return std::thread{[&w, &writing, seed] {
    workload work{seed};
    while (writing && w.commit(std::ref(work))) {
    }
  }};
}

// F6: a crash between two snapshot batches. The next start refuses to stream with a partial copy
// (snapshot_incomplete); the operator drops the slot and starts again; the copy is taken afresh
// (each table cleared at its first batch) and the mirror converges.
BOOST_AUTO_TEST_CASE(f6_mid_snapshot) {
  mirror_fixture f{"sink"};
  fill_before_the_snapshot(f);
  auto m = f.mirror({"--snapshot"}, faults_binary);
  m.start({"REPLICANT_CRASH_AT=mid_snapshot:2"});
  BOOST_TEST_REQUIRE(wait_until([&] { return !m.running(); }, 120s), "the snapshot never reached its second batch");
  BOOST_TEST(m.last_status() == 128 + SIGKILL);
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return !m.running(); }, 60s), "a partial snapshot was streamed from");
  BOOST_TEST(m.last_status() == mirror::exit_failure);
  BOOST_TEST(m.output().find("snapshot_incomplete") != std::string::npos);
  // The operator's way out: a new slot, a new copy.
  f.pg.sql("SELECT pg_drop_replication_slot('" + f.slot + "')");
  source_writer w{f.pg.dsn(f.source)};
  std::atomic<bool> writing{true};
  m.start();
  auto writer = write_after_slot(f, w, writing, seed_from_environment());
  std::this_thread::sleep_for(2s);
  writing = false;
  writer.join();
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.stop() == mirror::exit_ok);
  check(f, w, m, "crash point mid_snapshot, then a new slot", 1, 0, 0);
}

// F7: a crash after the snapshot is stored, before streaming began. The checkpoint is the
// snapshot's consistent point: the restart streams from exactly there.
BOOST_AUTO_TEST_CASE(f7_snapshot_handoff) {
  mirror_fixture f{"sink"};
  fill_before_the_snapshot(f);
  source_writer w{f.pg.dsn(f.source)};
  std::atomic<bool> writing{true};
  auto m = f.mirror({"--snapshot"}, faults_binary);
  m.start({"REPLICANT_CRASH_AT=snapshot_handoff:1"});
  auto writer = write_after_slot(f, w, writing, seed_from_environment());
  BOOST_TEST_REQUIRE(wait_until([&] { return !m.running(); }, 120s), "the snapshot never completed");
  BOOST_TEST(m.last_status() == 128 + SIGKILL);
  m.start();
  std::this_thread::sleep_for(2s);
  writing = false;
  writer.join();
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.stop() == mirror::exit_ok);
  check(f, w, m, "crash point snapshot_handoff", 1, 0, 0);
}

BOOST_AUTO_TEST_SUITE_END()

// The deferred policy's own crash matrix (docs/reliability.md): `--checkpoint deferred`, whose
// sink hands each transaction to a worker thread that applies it with the claim and confirms it
// afterwards. Kills between hand-off and confirmation, and the test option --test-confirmations of
// the mirror for confirmations out of order, one lost, and a failure reported after a later
// confirmation. Loss and duplicates must be 0 every time.
BOOST_AUTO_TEST_SUITE(deferred_matrix,
                      *utf::precondition(replicant::test::binary_known{
                          faults_binary, "REPLICANT_PG_MIRROR_FAULTS_BINARY", "replicant-pg-mirror-faults"}))

// D1: handed off to the worker, nothing confirmed (the library's `after_sink`, in deferred mode).
BOOST_AUTO_TEST_CASE(d1_killed_after_the_hand_off) { crash_at("after_sink", "deferred", {}, 3, 0); }

// D2: the worker's target transaction committed, its confirmation not given (the mirror's own
// crash point `mirror_before_confirm`).
BOOST_AUTO_TEST_CASE(d2_killed_between_commit_and_confirmation) {
  crash_at("mirror_before_confirm", "deferred", {}, 3, 0);
}

// D3: confirmations out of order. The worker applies in order but confirms in reversed pairs
// whenever a second transaction waits, under a writer and three SIGKILLs. The pipeline acknowledges
// only the contiguous confirmed prefix; it must never halt (every confirmation comes, within the
// 5 s timeout), and the clean stop must have acknowledged everything applied.
BOOST_AUTO_TEST_CASE(d3_confirmations_out_of_order) {
  const auto seed = seed_from_environment();
  mirror_fixture f{"deferred"};
  std::cout << "exactly-once: pg" << f.pg.major() << " mode=deferred --test-confirmations swap-pairs, seed " << seed
            << std::endl;
  const auto started = std::chrono::steady_clock::now();
  auto m = f.mirror({"--test-confirmations", "swap-pairs", "--confirm-timeout-ms", "5000"});
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
  source_writer w{f.pg.dsn(f.source)};
  open_ended_writer writer{w, seed};
  std::mt19937_64 rng{seed ^ 0x2545f4914f6cdd1dULL};
  int kills = 0;
  int unexpected_exits = 0;
  for (; kills < 3; ++kills) {
    std::this_thread::sleep_for(std::chrono::milliseconds{std::uniform_int_distribution<int>{150, 400}(rng)});
    if (!m.running()) ++unexpected_exits;
    m.kill();
    m.start();
  }
  std::this_thread::sleep_for(500ms);  // the last run confirms a backlog and a live stream
  BOOST_TEST_REQUIRE(writer.stop());
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.running());
  BOOST_TEST(m.stop() == mirror::exit_ok);
  BOOST_TEST(unexpected_exits == 0);
  BOOST_TEST(f.acknowledged_everything_applied(), "the clean stop acknowledged every confirmed transaction");
  const auto reversed = printed_count(m.output(), " interventions");
  BOOST_TEST(reversed > 0U, "no pair was confirmed in reverse");
  check(f, w, m, "confirmations out of order", kills, 0, 0);
  std::cout << "exactly-once: pg" << f.pg.major()
            << " mode=deferred pairs confirmed in reverse by the last run: " << reversed << "; whole case "
            << seconds_since(started, std::chrono::steady_clock::now()) << " s" << std::endl;
}

// D4: a confirmation lost. The worker applies transaction N but never confirms it: the policy's
// confirm_timeout (1 s here) halts `sink_failed`, cause timed_out, at N.
BOOST_AUTO_TEST_CASE(d4_a_confirmation_lost) { deferred_halt("drop", "timed out", "a confirmation lost"); }

// D5: a failure reported after a later confirmation. The worker applies N and N+1, confirms N+1,
// then reports N failed: the halt is at N, and N+1 is not acknowledged although it was confirmed.
BOOST_AUTO_TEST_CASE(d5_a_failure_after_a_later_confirmation) {
  deferred_halt("fail", "replicant.pg_mirror:6", "a failure after a later confirmation");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_exactly_once_tests
