// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The incremental snapshot mode against a real server, once per PostgreSQL major: a backfill in
// key-ordered chunks beside the live stream, reconciled against it with watermarks. Under a
// concurrent writer (inserts, updates, deletes on the tables being backfilled) the sink ends equal
// to the source row for row; a reconnect and a SIGKILL mid-backfill resume from the last applied
// chunk (loss 0, and no chunk or transaction applied twice with a sink-owned checkpoint; at most
// one chunk again in lib mode); a table kept hot halts `snapshot_table_contended` after three
// attempts; a table without a primary key is read whole; column lists and row filters are honoured.
//
// The crash test runs this very program a second time as the pipeline under test (its child mode
// `--incremental-snapshot-child`), mirroring into a target database, and kills it.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/processes/child_mode.hpp"
#include "support/processes/child_process.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/dedup_checkpoint.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <replicant/checkpoint/postgres_store.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(incremental_snapshot_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::event_log;
using replicant::test::pg_connection;
using replicant::test::running;
using replicant::test::wait_until;

namespace {

constexpr std::string_view secret = "s3cr3t-INCR-1618";

// --- rows as text -------------------------------------------------------------------------------

// One table as a sink or the source holds it: rows by key, or (tables without a key) a multiset.
struct table_state {
  std::map<std::string, std::string> keyed;
  std::multiset<std::string> whole;
  friend auto operator==(const table_state&, const table_state&) -> bool = default;
};
using database_state = std::map<std::string, table_state>;

// "name=text;" per column, NULL as \N: the same text whichever way a row arrived.
auto row_text(const replicant::row& r) -> std::string {
  std::string out;
  for (const replicant::field f : r) {
    out += f.name();
    out += '=';
    out += f.is_null() ? std::string_view{"\\N"} : f.raw().text();
    out += ';';
  }
  return out;
}

auto key_text(const replicant::row& r, const std::vector<std::string>& key) -> std::string {
  std::string out;
  for (const auto& k : key) {
    const auto f = r.find(k);
    out += f ? std::string{f->raw().text()} : std::string{"?"};
    out += ';';
  }
  return out;
}

// A state mirror in memory, for several tables: upserts by the key columns it is told about, a
// multiset for the others; its checkpoint and the backfill's progress stored with the rows (one
// unit, under one lock).
struct mirror_sink : replicant::test::dedup_checkpoint {
  std::mutex mutex;
  std::map<std::string, std::vector<std::string>> keys;  // table -> key columns; absent: no key
  database_state tables;
  std::optional<std::string> progress;
  std::vector<std::string> applied;  // the progress token of every chunk applied, in order
  std::uint64_t snapshot_rows = 0;
  bool complete = false;
  bool saw_column_outside_list = false;
  std::atomic<int> chunk_delay_ms{0};  // a slow sink, so that a backfill can be interrupted

  auto checkpoint() -> result<std::optional<lsn>> {
    const std::lock_guard lock{mutex};
    return dedup_checkpoint::checkpoint();
  }
  auto snapshot_progress() -> result<std::optional<std::string>> {
    const std::lock_guard lock{mutex};
    return progress;
  }
  auto handle_snapshot(const replicant::snapshot_batch& batch, const replicant::snapshot_context& ctx) -> result<void> {
    if (chunk_delay_ms.load() > 0 && !batch.empty()) std::this_thread::sleep_for(1ms * chunk_delay_ms.load());
    const std::lock_guard lock{mutex};
    const std::string name{batch.table().name};
    if (ctx.first_for_table) tables[name] = {};
    for (const auto& c : batch) {
      upsert(name, c.record());
      ++snapshot_rows;
    }
    progress = std::string{ctx.progress};
    if (!batch.empty() || ctx.last_for_table) applied.push_back(*progress);
    complete = complete || ctx.complete;
    return {};
  }
  auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
    const std::lock_guard lock{mutex};
    if (already_applied(t)) return t.commit_lsn();
    for (const auto& c : t.changes()) {
      const std::string name = c.relation().table;
      switch (c.op()) {
        case replicant::change_op::insert: upsert(name, c.record()); break;
        case replicant::change_op::update:
          if (!c.old().empty()) erase(name, c.old());
          upsert(name, c.record());
          break;
        case replicant::change_op::delete_: erase(name, c.old()); break;
        case replicant::change_op::truncate: tables[name] = {}; break;
        default: break;
      }
    }
    store(t.commit_lsn());
    return t.commit_lsn();
  }

  auto upsert(const std::string& table, const replicant::row& r) -> void {
    if (r.find("secret")) saw_column_outside_list = true;
    const auto k = keys.find(table);
    if (k == keys.end()) {
      tables[table].whole.insert(row_text(r));
    } else {
      tables[table].keyed[key_text(r, k->second)] = row_text(r);
    }
  }
  auto erase(const std::string& table, const replicant::row& old) -> void {
    const auto k = keys.find(table);
    if (k == keys.end()) {
      auto& rows = tables[table].whole;
      if (const auto it = rows.find(row_text(old)); it != rows.end()) rows.erase(it);
    } else {
      tables[table].keyed.erase(key_text(old, k->second));
    }
  }
  auto copy() -> database_state {
    const std::lock_guard lock{mutex};
    return tables;
  }
  auto done() -> bool {
    const std::lock_guard lock{mutex};
    return complete;
  }
};

using mirror_pipeline = replicant::pgoutput_pipeline<mirror_sink>;

// What the source holds of @p table, as the mirror would: @p columns as published, @p key as the
// mirror keys it (empty: a multiset), rows restricted by @p where.
auto source_table(replicant::test::published_database& f, const std::string& table,
                  const std::vector<std::string>& columns, const std::vector<std::string>& key,
                  const std::string& where = "true") -> table_state {
  std::string list;
  for (const auto& c : columns) list += (list.empty() ? "" : ", ") + c + "::text";
  pg_connection c{f.pg.dsn(f.db)};
  auto r = c.exec("SELECT " + list + " FROM " + table + " WHERE " + where);
  table_state out;
  for (int i = 0; i < r.row_count(); ++i) {
    std::string row;
    std::map<std::string, std::string> by_name;
    for (std::size_t j = 0; j < columns.size(); ++j) {
      const auto v = r.value(i, static_cast<int>(j));
      by_name[columns[j]] = v.value_or("\\N");
      row += columns[j] + "=" + v.value_or("\\N") + ";";
    }
    if (key.empty()) {
      out.whole.insert(row);
    } else {
      std::string k;
      for (const auto& name : key) k += by_name[name] + ";";
      out.keyed[k] = row;
    }
  }
  return out;
}

// Writes to `items` until stopped: inserts, updates of existing rows, deletes.
class writer {
 public:
  writer(replicant::test::published_database& f, std::string table, int existing, std::chrono::milliseconds pause = 1ms)
      : thread_{[this, &f, table = std::move(table), existing, pause] {
          pg_connection c{f.pg.dsn(f.db)};
          for (int i = 0; running_.load(); ++i) {
            c.exec("INSERT INTO " + table + " VALUES (" + std::to_string(100000 + i) + ", 'new', 1)");
            c.exec("UPDATE " + table + " SET label = 'changed " + std::to_string(i) +
                   "', qty = qty + 7 WHERE id = " + std::to_string(1 + (i * 37) % existing));
            if (i % 5 == 0) c.exec("DELETE FROM " + table + " WHERE id = " + std::to_string(1 + (i * 53) % existing));
            if (i % 11 == 0) c.exec("DELETE FROM " + table + " WHERE id = " + std::to_string(100000 + i / 2));
            ++writes_;
            std::this_thread::sleep_for(pause);
          }
        }} {}
  writer(const writer&) = delete;
  auto operator=(const writer&) -> writer& = delete;
  ~writer() { stop(); }
  auto stop() -> void {
    running_.store(false);
    if (thread_.joinable()) thread_.join();
  }
  [[nodiscard]] auto writes() const -> int { return writes_.load(); }

 private:
  std::atomic<bool> running_{true};
  std::atomic<int> writes_{0};
  std::thread thread_;
};

// Waits until @p check holds: the sink has caught up with a source that no longer changes.
auto converges(const std::function<bool()>& check) -> bool { return wait_until(check, 30s); }

// A mirrored table without the column @p column (rows stored before it was added lack it).
auto without(table_state t, std::string_view column, std::size_t* had = nullptr) -> table_state {
  for (auto& [key, row] : t.keyed) {
    if (const auto at = row.find(std::string{column} + "="); at != std::string::npos) {
      if (had != nullptr) ++*had;
      row.erase(at, row.find(';', at) + 1 - at);
    }
  }
  return t;
}

auto incremental_options(replicant::test::published_database& f, std::size_t chunk_rows) -> void {
  f.options.start = replicant::start::incremental_snapshot{.chunk_rows = chunk_rows, .max_pending_chunks = 2};
}

const std::vector<std::string> item_columns{"id", "label", "qty"};
const std::vector<std::string> by_id{"id"};

}  // namespace

// === the pipeline under test in a child process (for the crash test) ================================

namespace {

// The target side of the crash test: rows, checkpoint and progress in one transaction per delivery,
// each delivery logged, so that a duplicate shows up as a repeated log row.
constexpr std::string_view target_ddl = R"sql(
CREATE TABLE mirror (id int PRIMARY KEY, label text, qty int);
CREATE TABLE state (one int PRIMARY KEY, commit_lsn text, progress text);
INSERT INTO state VALUES (1, NULL, NULL);
CREATE TABLE applied_chunks (token text NOT NULL, rows int NOT NULL);
CREATE TABLE applied_txns (commit_lsn text NOT NULL);
)sql";

struct pg_sink {
  pg_connection target;

  auto literal(const replicant::row& r, std::string_view column) -> std::string {
    const auto f = r.find(column);
    if (!f || f->is_null()) return "NULL";
    return target.quote_literal(f->raw().text());
  }
  auto checkpoint() -> result<std::optional<lsn>> {
    auto r = target.exec("SELECT commit_lsn FROM state");
    const auto v = r.value(0, 0);
    if (!v) return std::optional<lsn>{};
    return std::optional<lsn>{replicant::parse_lsn(*v).value()};
  }
  auto snapshot_progress() -> result<std::optional<std::string>> {
    return target.exec("SELECT progress FROM state").value(0, 0);
  }
  auto handle_snapshot(const replicant::snapshot_batch& batch, const replicant::snapshot_context& ctx) -> result<void> {
    std::string sql = "BEGIN;";
    if (ctx.first_for_table) sql += "DELETE FROM mirror;";
    if (!batch.empty()) {
      sql += "INSERT INTO mirror VALUES ";
      bool first = true;
      for (const auto& c : batch) {
        sql += first ? "(" : ",(";
        first = false;
        sql += literal(c.record(), "id") + "," + literal(c.record(), "label") + "," + literal(c.record(), "qty") + ")";
      }
      sql += " ON CONFLICT (id) DO UPDATE SET label = EXCLUDED.label, qty = EXCLUDED.qty;";
    }
    const auto token = target.quote_literal(ctx.progress);
    sql += "UPDATE state SET progress = " + token + ";";
    sql += "INSERT INTO applied_chunks VALUES (" + token + ", " + std::to_string(batch.size()) + ");";
    sql += "COMMIT";
    target.exec(sql);
    return {};
  }
  auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
    const std::string at = replicant::to_string(t.commit_lsn());
    const auto stored = checkpoint();
    if (*stored && t.commit_lsn() <= **stored) return t.commit_lsn();
    std::string sql = "BEGIN;";
    for (const auto& c : t.changes()) {
      switch (c.op()) {
        case replicant::change_op::insert:
        case replicant::change_op::update:
          sql += "INSERT INTO mirror VALUES (" + literal(c.record(), "id") + "," + literal(c.record(), "label") + "," +
                 literal(c.record(), "qty") +
                 ") ON CONFLICT (id) DO UPDATE SET label = EXCLUDED.label, qty = EXCLUDED.qty;";
          break;
        case replicant::change_op::delete_:
          sql += "DELETE FROM mirror WHERE id = " + literal(c.old(), "id") + ";";
          break;
        default: break;
      }
    }
    sql += "UPDATE state SET commit_lsn = '" + at + "';INSERT INTO applied_txns VALUES ('" + at + "');COMMIT";
    target.exec(sql);
    return t.commit_lsn();
  }
};

}  // namespace

// Only the global namespace may specialise a library template.
BOOST_AUTO_TEST_SUITE_END()
template <>
inline constexpr bool replicant::enable_incremental_snapshot<incremental_snapshot_tests::pg_sink> = true;
template <>
inline constexpr bool replicant::enable_incremental_snapshot<incremental_snapshot_tests::mirror_sink> = true;
BOOST_AUTO_TEST_SUITE(incremental_snapshot_tests)

namespace {

// Not a test: the pipeline of the crash test, which runs its own program as a child process with
// `--incremental-snapshot-child <source dsn> <target dsn> <slot> <chunk rows>`. Runs until killed.
auto run_mirror_child(int argc, char** argv) -> int {
  if (argc != 6) return 2;
  try {
    pg_sink sink{pg_connection{argv[3]}};
    replicant::pipeline_options o;
    o.conninfo = argv[2];
    o.slot = argv[4];
    o.start = replicant::start::incremental_snapshot{.chunk_rows = std::stoul(argv[5]), .max_pending_chunks = 3};
    o.status_interval = 1s;
    o.reconnect_delay = 50ms;
    replicant::pgoutput_pipeline<pg_sink> p{sink, replicant::pgoutput_options{.publications = {"pub"}}, o};
    std::error_code ec;
    p.run(ec);
    if (ec) std::cerr << (p.last_halt() ? replicant::describe(*p.last_halt()) : ec.message()) << '\n';
    return ec ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "child: " << e.what() << '\n';
    return 3;
  }
}
const replicant::test::child_mode mirror_child{"--incremental-snapshot-child", &run_mirror_child};

}  // namespace

// === the tests =======================================================================================

BOOST_AUTO_TEST_SUITE(incremental, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(backfills_beside_a_concurrent_writer_and_ends_equal_to_the_source) {
  replicant::test::published_database f;
  incremental_options(f, 400);
  f.sql("INSERT INTO items SELECT g, 'row ' || g, g FROM generate_series(1, 6000) g");
  f.sql("UPDATE items SET label = '" + std::string{secret} + "' WHERE id = 7");
  mirror_sink sink;
  sink.keys["items"] = by_id;
  event_log events;
  {
    writer w{f, "items", 6000};
    running<mirror_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.done(); }, 60s));
    // The writer overlapped the backfill, and goes on past its end: counts, not a fixed sleep, so a
    // busy machine that slows the writer cannot fail the case.
    const auto during_backfill = w.writes();
    BOOST_TEST(during_backfill > 0);
    BOOST_TEST(wait_until([&] { return w.writes() > during_backfill + 20; }, 30s));
    w.stop();
    BOOST_TEST(converges([&] { return sink.copy()["items"] == source_table(f, "items", item_columns, by_id); }));
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(sink.snapshot_rows > 5000U);
  BOOST_TEST((sink.copy()["items"] == source_table(f, "items", item_columns, by_id)));
  // Every chunk applied once, in order, and the backfill began with its arming.
  BOOST_TEST(sink.applied.size() == std::set<std::string>(sink.applied.begin(), sink.applied.end()).size());
  BOOST_TEST(events.count("replicant.snapshot.started") == 1U);
  BOOST_TEST(events.count("replicant.snapshot.chunk_completed") >= 15U);
  BOOST_TEST(events.count("replicant.snapshot.table_completed") == 1U);
  BOOST_TEST(events.count("replicant.snapshot.completed") == 1U);
  BOOST_TEST(!events.contains("replicant.snapshot.failed"));
  BOOST_TEST(!events.contains(secret));

  // A restart after completion streams on, without a second backfill.
  f.sql("INSERT INTO items VALUES (99999, 'after', 1)");
  event_log again;
  running<mirror_pipeline> r{sink, f.pgoutput, f.options, &again.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return sink.copy()["items"].keyed.count("99999;") == 1U; }));
  BOOST_TEST(!r.stop());
  BOOST_TEST(!again.contains("replicant.snapshot."));
}

BOOST_AUTO_TEST_CASE(a_reconnect_mid_backfill_resumes_after_the_last_applied_chunk) {
  replicant::test::published_database f;
  incremental_options(f, 200);
  f.sql("INSERT INTO items SELECT g, 'row ' || g, g FROM generate_series(1, 4000) g");
  mirror_sink sink;
  sink.keys["items"] = by_id;
  sink.chunk_delay_ms = 40;
  event_log events;
  {
    writer w{f, "items", 4000, 3ms};
    running<mirror_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] {
      const std::lock_guard lock{sink.mutex};
      return sink.applied.size() >= 5U;
    }));
    // The walsender goes away under the pipeline: it reconnects, and the backfill resumes.
    f.pg.sql("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'");
    BOOST_TEST_REQUIRE(wait_until([&] { return events.contains("replicant.snapshot.resumed"); }));
    sink.chunk_delay_ms = 0;
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.done(); }, 60s));
    w.stop();
    BOOST_TEST(converges([&] { return sink.copy()["items"] == source_table(f, "items", item_columns, by_id); }));
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST((sink.copy()["items"] == source_table(f, "items", item_columns, by_id)));
  BOOST_TEST(sink.applied.size() == std::set<std::string>(sink.applied.begin(), sink.applied.end()).size());
  BOOST_TEST(events.count("replicant.snapshot.started") == 1U);
  BOOST_TEST(!events.contains("replicant.snapshot.chunk_retried"));  // a reconnect spends no contention budget
}

BOOST_AUTO_TEST_CASE(a_column_added_mid_backfill_is_read_by_the_chunks_after_it) {
  // The reader's shape of a table is stale once the stream describes the table anew: the session
  // ends, and the next one lists the tables again and resumes.
  replicant::test::published_database f;
  incremental_options(f, 200);
  f.sql("INSERT INTO items SELECT g, 'row ' || g, g FROM generate_series(1, 3000) g");
  mirror_sink sink;
  sink.keys["items"] = by_id;
  sink.chunk_delay_ms = 30;
  event_log events;
  {
    running<mirror_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] {
      const std::lock_guard lock{sink.mutex};
      return sink.applied.size() >= 3U;
    }));
    f.sql("ALTER TABLE items ADD COLUMN extra text DEFAULT 'd'");
    f.sql("UPDATE items SET qty = qty + 1 WHERE id = 1");  // the stream describes the new shape
    BOOST_TEST_REQUIRE(wait_until([&] { return events.contains("replicant.snapshot.resumed"); }));
    sink.chunk_delay_ms = 0;
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.done(); }, 60s));
    // Rows read after the change have the new column; those stored before it are the sink's to
    // complete (an added column is an additive schema change), so only the old columns are compared.
    BOOST_TEST(converges(
        [&] { return without(sink.copy()["items"], "extra") == source_table(f, "items", item_columns, by_id); }));
    BOOST_TEST(!r.stop());
  }
  std::size_t with_extra = 0;
  const auto mirrored = without(sink.copy()["items"], "extra", &with_extra);
  BOOST_TEST(with_extra >= 1000U);  // the chunks after the change
  BOOST_TEST(with_extra < 3000U);   // not those stored before it
  BOOST_TEST((mirrored == source_table(f, "items", item_columns, by_id)));
  BOOST_TEST(sink.applied.size() == std::set<std::string>(sink.applied.begin(), sink.applied.end()).size());
}

BOOST_AUTO_TEST_CASE(a_crash_mid_backfill_resumes_from_the_last_chunk_with_no_loss_and_no_duplicate) {
  replicant::test::published_database f;
  const std::string target_db = f.pg.unique_name("target");
  f.pg.create_database(target_db);
  f.pg.sql(target_ddl, target_db);
  f.sql("INSERT INTO items SELECT g, 'row ' || g, g FROM generate_series(1, 20000) g");
  replicant::test::temp_dir dir{"incremental_crash"};
  pg_connection target{f.pg.dsn(target_db)};
  const auto chunks = [&] { return std::stoi(target.exec("SELECT count(*) FROM applied_chunks").value(0, 0).value()); };
  const auto complete = [&] {
    const auto p = target.exec("SELECT progress FROM state").value(0, 0);
    return p && p->rfind("4:rbf11:C", 0) == 0;
  };
  // The target's rows, as the mirror tests hold them.
  const auto mirrored = [&] {
    table_state out;
    auto r = target.exec("SELECT id::text, label, qty::text FROM mirror");
    for (int i = 0; i < r.row_count(); ++i) {
      out.keyed[r.value(i, 0).value() + ";"] = "id=" + r.value(i, 0).value() +
                                               ";label=" + r.value(i, 1).value_or("\\N") +
                                               ";qty=" + r.value(i, 2).value() + ";";
    }
    return out;
  };
  const std::vector<std::string> args{"--incremental-snapshot-child", f.pg.dsn(f.db), f.pg.dsn(target_db), f.slot,
                                      "150"};
  int kills = 0;
  {
    writer w{f, "items", 20000, 2ms};
    for (const int threshold : {8, 30, 60}) {
      replicant::test::child_process p{"/proc/self/exe", args, dir.path() / "out", dir.path() / "err"};
      BOOST_TEST_REQUIRE(wait_until([&] { return chunks() >= threshold || !p.running(); }, 60s));
      BOOST_TEST_REQUIRE(p.running());
      if (complete()) break;  // too fast to interrupt: the checks below still hold
      p.kill();
      ++kills;
    }
    replicant::test::child_process p{"/proc/self/exe", args, dir.path() / "out", dir.path() / "err"};
    BOOST_TEST_REQUIRE(wait_until(complete, 60s));
    w.stop();
    // Loss 0: the target comes to equal the source, row for row.
    BOOST_TEST(converges([&] { return mirrored() == source_table(f, "items", item_columns, by_id); }));
    p.kill();
  }
  BOOST_TEST(kills >= 2);
  BOOST_TEST((mirrored() == source_table(f, "items", item_columns, by_id)));
  // Effect-duplicates 0: no chunk (not even the arming) and no transaction took effect twice; and
  // every restart went on from the last chunk instead of starting over.
  BOOST_TEST(target.exec("SELECT count(*) - count(DISTINCT token) FROM applied_chunks").value(0, 0).value() == "0");
  BOOST_TEST(target.exec("SELECT count(*) - count(DISTINCT commit_lsn) FROM applied_txns").value(0, 0).value() == "0");
  BOOST_TEST(std::stoi(target.exec("SELECT count(*) FROM applied_txns").value(0, 0).value()) > 100);
  BOOST_TEST(chunks() <= 20000 / 150 + 40);  // ~134 chunks read once each, plus the ones the writer added
}

BOOST_AUTO_TEST_CASE(a_table_without_a_primary_key_is_read_whole) {
  replicant::test::published_database f;
  incremental_options(f, 100);
  f.sql(
      "CREATE TABLE nokey (v int, w text); ALTER TABLE nokey REPLICA IDENTITY FULL;"
      "INSERT INTO nokey SELECT g % 50, 'w' || (g % 7) FROM generate_series(1, 1500) g;"
      "ALTER PUBLICATION pub ADD TABLE nokey");
  f.sql("INSERT INTO items SELECT g, 'row ' || g, g FROM generate_series(1, 1000) g");
  mirror_sink sink;
  sink.keys["items"] = by_id;
  event_log events;
  {
    running<mirror_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.done(); }, 60s));
    // Streamed on afterwards, duplicates included.
    f.sql(
        "INSERT INTO nokey VALUES (1, 'w1'), (1, 'w1'); DELETE FROM nokey WHERE v = 2 AND w = 'w2';"
        "UPDATE nokey SET w = 'moved' WHERE v = 3");
    BOOST_TEST(converges([&] { return sink.copy()["nokey"] == source_table(f, "nokey", {"v", "w"}, {}); }));
    BOOST_TEST(!r.stop());
  }
  const auto mirrored = sink.copy();
  BOOST_TEST(mirrored.at("nokey").whole.size() > 1000U);
  BOOST_TEST((mirrored.at("nokey") == source_table(f, "nokey", {"v", "w"}, {})));
  BOOST_TEST((mirrored.at("items") == source_table(f, "items", item_columns, by_id)));
  BOOST_TEST(events.count("replicant.snapshot.table_completed") == 2U);
}

BOOST_AUTO_TEST_CASE(honours_column_lists_and_row_filters_under_a_concurrent_writer) {
  replicant::test::published_database f;
  incremental_options(f, 150);
  f.sql(
      "CREATE TABLE listed (id int PRIMARY KEY, label text, secret text);"
      "INSERT INTO listed SELECT g, 'l' || g, '" +
      std::string{secret} +
      "' FROM generate_series(1, 1200) g;"
      "CREATE TABLE filtered (id int PRIMARY KEY, label text, qty int); ALTER TABLE filtered REPLICA IDENTITY FULL;"
      "INSERT INTO filtered SELECT g, 'f' || g, g % 40 FROM generate_series(1, 1200) g;"
      "DROP PUBLICATION pub; CREATE PUBLICATION pub FOR TABLE listed (id, label), filtered WHERE (qty > 20)");
  mirror_sink sink;
  sink.keys["listed"] = by_id;
  sink.keys["filtered"] = by_id;
  event_log events;
  {
    std::atomic<bool> writing{true};
    std::thread w{[&] {
      pg_connection c{f.pg.dsn(f.db)};
      for (int i = 0; writing.load(); ++i) {
        const std::string id = std::to_string(1 + (i * 13) % 1200);
        c.exec("UPDATE listed SET label = 'L" + std::to_string(i) + "' WHERE id = " + id);
        // Rows move into and out of the filter: pgoutput turns such updates into inserts and deletes.
        c.exec("UPDATE filtered SET qty = (qty + 17) % 40, label = 'F" + std::to_string(i) + "' WHERE id = " + id);
        if (i % 9 == 0) c.exec("DELETE FROM filtered WHERE id = " + id);
        c.exec("INSERT INTO filtered VALUES (" + std::to_string(5000 + i) + ", 'n', " + std::to_string(i % 40) + ")");
        std::this_thread::sleep_for(1ms);
      }
    }};
    running<mirror_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    const bool done = wait_until([&] { return sink.done(); }, 60s);
    std::this_thread::sleep_for(200ms);
    writing.store(false);
    w.join();
    BOOST_TEST_REQUIRE(done);
    BOOST_TEST(converges([&] {
      auto mirrored = sink.copy();
      return mirrored["listed"] == source_table(f, "listed", {"id", "label"}, by_id) &&
             mirrored["filtered"] == source_table(f, "filtered", item_columns, by_id, "qty > 20");
    }));
    BOOST_TEST(!r.stop());
  }
  const auto mirrored = sink.copy();
  BOOST_TEST(!sink.saw_column_outside_list);
  BOOST_TEST((mirrored.at("listed") == source_table(f, "listed", {"id", "label"}, by_id)));
  BOOST_TEST((mirrored.at("filtered") == source_table(f, "filtered", item_columns, by_id, "qty > 20")));
  BOOST_TEST(!events.contains(secret));
}

BOOST_AUTO_TEST_CASE(a_table_kept_hot_halts_after_three_contended_attempts) {
  // Without a key, any change to the table while its chunk is open spoils the chunk.
  replicant::test::published_database f;
  incremental_options(f, 100);
  f.sql(
      "CREATE TABLE hot (v int, w text); ALTER TABLE hot REPLICA IDENTITY FULL;"
      "INSERT INTO hot SELECT g, repeat('x', 200) FROM generate_series(1, 30000) g;"
      "DROP PUBLICATION pub; CREATE PUBLICATION pub FOR TABLE hot");
  mirror_sink sink;
  event_log events;
  std::atomic<bool> writing{true};
  // About a thousand inserts a second: every chunk window sees some, and the stream still keeps up
  // in a sanitized build (a writer without a pause outran an -O0 ASan pipeline, whose chunk then
  // never reached its high watermark).
  std::thread w{[&] {
    pg_connection c{f.pg.dsn(f.db)};
    while (writing.load()) {
      c.exec("INSERT INTO hot VALUES (0, 'hot')");
      std::this_thread::sleep_for(1ms);
    }
  }};
  std::error_code ec;
  std::optional<replicant::halt> halted;
  {
    running<mirror_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(wait_until([&] { return events.contains("replicant.snapshot.failed") || sink.done(); }, 60s));
    // The failure event comes from the reader before the pipeline halts on it: let it halt by
    // itself, rather than race a stop against the halt.
    if (!sink.done()) static_cast<void>(r.ends_within(30s));
    ec = r.stop();
    halted = r.pipeline.last_halt();
  }
  writing.store(false);
  w.join();
  BOOST_TEST(ec == replicant::errc::halted);
  BOOST_TEST_REQUIRE(halted.has_value());
  BOOST_TEST((halted->reason == halt_reason::snapshot_table_contended));
  BOOST_TEST_REQUIRE(halted->table.has_value());
  BOOST_TEST(halted->table->name == "hot");
  BOOST_TEST((halted->attempts == std::optional<std::uint32_t>{3U}));
  BOOST_TEST(events.count("replicant.snapshot.chunk_retried") == 2U);
  // Two retries, then the failure, and the halt's own connection.disconnected.
  BOOST_TEST(events.count("replicant.snapshot.failed reason=snapshot_table_contended") == 1U);
  BOOST_TEST(events.count("replicant.connection.disconnected reason=snapshot_table_contended") == 1U);
  BOOST_TEST(sink.applied.empty());
}

BOOST_AUTO_TEST_CASE(a_keyed_chunk_whose_rows_the_stream_keeps_rewriting_is_contended_too) {
  replicant::test::published_database f;
  incremental_options(f, 200);
  // Large labels stored out of line and uncompressed: reading a chunk detoasts 10 MB, while the
  // writer's small updates copy only TOAST pointers and are cheap to decode. Every read window then
  // spans many of the writer's commits, however busy the machine, and the stream keeps up with
  // them, so that the watermarks never queue behind a backlog.
  f.sql(
      "ALTER TABLE items ALTER COLUMN label SET STORAGE EXTERNAL;"
      "INSERT INTO items SELECT g, repeat('w', 50000), g FROM generate_series(1, 400) g");
  mirror_sink sink;
  sink.keys["items"] = by_id;
  event_log events;
  std::atomic<bool> writing{true};
  std::thread w{[&] {
    pg_connection c{f.pg.dsn(f.db)};
    // 110 rows of the first chunk per transaction: more than half of it, in every window.
    while (writing.load()) {
      c.exec("UPDATE items SET qty = qty + 1 WHERE id <= 110");
      std::this_thread::sleep_for(2ms);
    }
  }};
  auto why = halt_reason{};
  {
    running<mirror_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(wait_until([&] { return events.contains("replicant.snapshot.failed") || sink.done(); }, 60s));
    // The failure event comes from the reader before the pipeline halts on it: let it halt by
    // itself, rather than race a stop against the halt.
    if (!sink.done()) static_cast<void>(r.ends_within(30s));
    r.pipeline.stop();
    why = r.halted();
  }
  writing.store(false);
  w.join();
  BOOST_TEST((why == halt_reason::snapshot_table_contended));
  BOOST_TEST(events.count("replicant.snapshot.chunk_retried") == 2U);
}

BOOST_AUTO_TEST_CASE(lib_mode_keeps_progress_in_the_store_and_repeats_at_most_one_chunk) {
  replicant::test::published_database f;
  incremental_options(f, 250);
  f.sql("INSERT INTO items SELECT g, 'row ' || g, g FROM generate_series(1, 3000) g");
  const std::string store_db = f.pg.unique_name("store");
  f.pg.create_database(store_db);

  // A sink without a checkpoint of its own; it counts what it received.
  struct lib_sink {
    std::mutex mutex;
    mirror_sink rows;
    std::vector<std::string> tokens;
    std::atomic<int> chunks{0};
    std::atomic<bool> slow{true};
    auto handle_snapshot(const replicant::snapshot_batch& b, const replicant::snapshot_context& ctx) -> result<void> {
      if (slow.load() && !b.empty()) std::this_thread::sleep_for(30ms);
      {
        const std::lock_guard lock{mutex};
        if (!b.empty() || ctx.last_for_table) tokens.emplace_back(ctx.progress);
      }
      if (!b.empty()) ++chunks;
      return rows.handle_snapshot(b, ctx);
    }
    auto handle_transaction(const replicant::transaction& t) -> result<void> {
      rows.stored.reset();  // no dedup: lib mode may deliver again
      auto r = rows.handle_transaction(t);
      if (!r) return replicant::unexpected(r.error());
      return {};
    }
  };
  using policy = replicant::lib_owned_checkpoint<replicant::postgres_checkpoint_store>;
  using lib_pipeline = replicant::pgoutput_pipeline<lib_sink, policy>;
  const auto make_policy = [&] {
    return policy{.store = replicant::postgres_checkpoint_store{{.conninfo = f.pg.dsn(store_db)}},
                  .batch = std::nullopt,
                  .max_retries = 5,
                  .retry_backoff = 100ms};
  };
  lib_sink sink;
  sink.rows.keys["items"] = by_id;
  event_log events;
  {
    running<lib_pipeline> r{sink, f.pgoutput, make_policy(), f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.chunks.load() >= 4; }));
    BOOST_TEST(!r.stop());
  }
  const auto stored =
      f.pg.scalar("SELECT progress FROM replicant_snapshot_progress WHERE slot_name = '" + f.slot + "'", store_db);
  BOOST_TEST(stored.rfind("4:rbf11:T", 0) == 0U);
  sink.slow.store(false);
  {
    writer w{f, "items", 3000, 2ms};
    running<lib_pipeline> r{sink, f.pgoutput, make_policy(), f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.rows.done(); }, 60s));
    w.stop();
    // The store's own writes (on this server) keep the WAL moving: wait for the rows, not the slot.
    BOOST_TEST(wait_until([&] { return sink.rows.copy()["items"] == source_table(f, "items", item_columns, by_id); }));
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(events.count("replicant.snapshot.resumed") == 1U);
  const std::set<std::string> distinct(sink.tokens.begin(), sink.tokens.end());
  BOOST_TEST(sink.tokens.size() - distinct.size() <= 1U);  // at most the chunk in flight at the stop
  BOOST_TEST(f.pg.scalar("SELECT progress FROM replicant_snapshot_progress", store_db).rfind("4:rbf11:C", 0) == 0U);
}

BOOST_AUTO_TEST_CASE(a_sink_that_cannot_keep_progress_is_refused_at_start) {
  replicant::test::published_database f;
  incremental_options(f, 100);
  replicant::test::memory_sink sink;  // no handle_snapshot, no snapshot_progress
  replicant::test::event_log events;
  running<replicant::pgoutput_pipeline<replicant::test::memory_sink>> r{sink, f.pgoutput, f.options,
                                                                        &events.dispatcher};
  BOOST_TEST((r.halted() == halt_reason::snapshot_unsupported));
  BOOST_TEST(events.disconnected(halt_reason::snapshot_unsupported));
  BOOST_TEST(!f.slot_exists());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // incremental_snapshot_tests
