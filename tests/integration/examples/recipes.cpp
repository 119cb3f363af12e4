// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The recipes (examples/recipes, quoted by the docs) against a live server: each program streams a
// few dozen transactions, is stopped, killed and restarted, and what it wrote is counted. The SQL
// sink and the broker sink apply every transaction exactly once across a SIGKILL; the library-owned
// sink, with the file store and with the PostgreSQL store, repeats nothing across clean restarts
// and leaves the store at its last line; the REPLICA IDENTITY FULL sink ends with the source's
// rows and each change's balance before and after. The last case measures what FULL costs in WAL.
//
// The binaries are the build's own: examples/recipes/CMakeLists.txt passes their paths.
#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/common/time_scale.hpp"
#include "support/processes/child_process.hpp"
#include "support/processes/process.hpp"
#include "support/server/pg_cluster.hpp"

#include <replicant/core/lsn.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <exception>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_recipes_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::test::child_process;
using replicant::test::live_server;
using replicant::test::read_file;
using replicant::test::scaled;
using replicant::test::temp_dir;

namespace {

#ifdef REPLICANT_RECIPE_SQL_SINK
constexpr std::string_view sql_sink_binary = REPLICANT_RECIPE_SQL_SINK;
constexpr std::string_view lib_owned_binary = REPLICANT_RECIPE_LIB_OWNED;
constexpr std::string_view full_binary = REPLICANT_RECIPE_REPLICA_IDENTITY_FULL;
constexpr std::string_view broker_binary = REPLICANT_RECIPE_BROKER_SINK;
#else
constexpr std::string_view sql_sink_binary;
constexpr std::string_view lib_owned_binary;
constexpr std::string_view full_binary;
constexpr std::string_view broker_binary;
#endif

const replicant::test::binary_known binaries_known{sql_sink_binary, "REPLICANT_RECIPE_SQL_SINK",
                                                   "replicant-recipe-sql-sink"};

const std::string orders_table = "CREATE TABLE orders (id bigint PRIMARY KEY, amount bigint NOT NULL)";

// A new database holding @p table (its DDL, naming @p name), published as recipe_pub, and the slot
// @p slot made now: the recipes start with go_forward, so everything written from here on reaches
// them whenever they start. @return the database's name.
auto make_source(const std::string& table, std::string_view name, const std::string& slot) -> std::string {
  auto& pg = live_server();
  const auto db = pg.unique_name("recipe_source");
  pg.create_database(db);
  pg.sql(table + "; CREATE PUBLICATION recipe_pub FOR TABLE " + std::string{name}, db);
  pg.sql("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')", db);
  return db;
}

// Commits @p n transactions into @p db, each inserting one order, ids from @p first on.
auto write_orders(const std::string& db, int first, int n) -> void {
  for (int id = first; id < first + n; ++id) {
    live_server().sql("INSERT INTO orders VALUES (" + std::to_string(id) + ", " + std::to_string(id * 10) + ")", db);
  }
}

// Waits until @p done() holds (a failing query counts as not yet), while @p p runs, at most
// @p ceiling (scaled). @return whether it held.
template <class Done>
auto wait_until(child_process& p, Done done, std::chrono::seconds ceiling = 60s) -> bool {
  const auto deadline = std::chrono::steady_clock::now() + scaled(ceiling);
  while (std::chrono::steady_clock::now() < deadline && p.running()) {
    try {
      if (done()) return true;
    } catch (const std::exception&) {
      // the table the program creates is not there yet
    }
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

// The server's clock now, to tell the walsenders started after this call from older ones.
auto server_clock() -> std::string { return live_server().scalar("SELECT clock_timestamp()::text"); }

// Whether a walsender started after @p since (server_clock()) streams the slot @p slot. A program
// started after @p since is then past installing its stop signal, so SIGTERM stops it cleanly:
// after a kill, what the test waits for may have been done by the killed run alone.
auto streams_since(const std::string& slot, const std::string& since) -> bool {
  return live_server().scalar(
             "SELECT count(*) FROM pg_replication_slots s JOIN pg_stat_replication r "
             "ON r.pid = s.active_pid WHERE s.slot_name = '" +
             slot + "' AND r.backend_start > '" + since + "'") == "1";
}

// Stops @p p with SIGTERM. @return its exit status.
auto stop(child_process& p) -> int {
  p.signal(SIGTERM);
  return p.wait(scaled(60s));
}

// The number a one-value query on @p db returns.
auto number(const std::string& query, const std::string& db) -> long {
  return std::stol(live_server().scalar(query, db));
}

// The lines of @p text.
auto lines_of(const std::string& text) -> std::vector<std::string> {
  std::vector<std::string> out;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The first word of each line of @p lines: its commit LSN, or its message id.
auto first_words(const std::vector<std::string>& lines) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(l.substr(0, l.find(' ')));
  return out;
}

auto distinct(const std::vector<std::string>& v) -> std::size_t {
  return std::set<std::string>(v.begin(), v.end()).size();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(recipes, *utf::label("integration") * utf::precondition(binaries_known))

BOOST_AUTO_TEST_CASE(the_sql_sink_applies_each_transaction_once_across_a_kill_and_restarts) {
  auto& pg = live_server();
  const auto source = make_source(orders_table, "orders", "recipe_sql");
  const auto target = pg.unique_name("recipe_target");
  pg.create_database(target);
  temp_dir dir{"replicant-recipes"};
  const std::vector<std::string> args{pg.dsn(source), pg.dsn(target)};
  const auto events = [&] { return number("SELECT count(*) FROM order_events", target); };

  write_orders(source, 1, 30);
  {
    child_process p{sql_sink_binary, args, dir.path() / "out1", dir.path() / "err1"};
    BOOST_TEST_REQUIRE(wait_until(p, [&] { return events() == 30; }), read_file(dir.path() / "err1"));
    // More while it runs, then a kill in the middle of them (or just after).
    write_orders(source, 31, 60);
    p.kill();
  }
  {
    const auto since = server_clock();
    child_process p{sql_sink_binary, args, dir.path() / "out2", dir.path() / "err2"};
    BOOST_TEST_REQUIRE(wait_until(p, [&] { return events() >= 90 && streams_since("recipe_sql", since); }),
                       read_file(dir.path() / "err2"));
    BOOST_TEST(stop(p) == 0);
  }
  // A clean restart, with an update and a delete among the new transactions.
  write_orders(source, 91, 10);
  pg.sql("UPDATE orders SET amount = 11 WHERE id = 1", source);
  pg.sql("DELETE FROM orders WHERE id = 2", source);
  {
    child_process p{sql_sink_binary, args, dir.path() / "out3", dir.path() / "err3"};
    BOOST_TEST_REQUIRE(wait_until(p, [&] { return events() >= 102; }), read_file(dir.path() / "err3"));
    BOOST_TEST(stop(p) == 0);
    BOOST_TEST(read_file(dir.path() / "err3").empty());
  }
  // Each of the 102 transactions has exactly one row: none lost, none applied twice.
  BOOST_TEST(events() == 102);
  BOOST_TEST(number("SELECT count(DISTINCT commit_lsn) FROM order_events", target) == 102);
  BOOST_TEST(number("SELECT count(DISTINCT id) FROM order_events WHERE op = 'insert'", target) == 100);
  BOOST_TEST(pg.scalar("SELECT amount FROM order_events WHERE op = 'update'", target) == "11");
  BOOST_TEST(pg.scalar("SELECT id || '/' || (amount IS NULL) FROM order_events WHERE op = 'delete'", target) ==
             "2/true");
  // The checkpoint row is the last commit applied.
  BOOST_TEST(pg.scalar("SELECT commit_lsn = (SELECT max(commit_lsn) FROM order_events) FROM recipe_checkpoint "
                       "WHERE slot = 'recipe_sql'",
                       target) == "t");
}

// The library-owned sink with @p store ("file" or "postgres", @p store_argument its file or
// conninfo) and the slot @p slot: two clean runs repeat nothing; @return the last line's LSN.
auto run_lib_owned_twice(const std::string& source, const std::string& store, const std::string& store_argument,
                         const temp_dir& dir) -> std::string {
  const auto output = dir.path() / "orders.log";
  const std::vector<std::string> args{live_server().dsn(source), output.string(), store, store_argument};
  const auto lines = [&] { return lines_of(read_file(output)).size(); };
  write_orders(source, 1, 20);
  {
    child_process p{lib_owned_binary, args, dir.path() / "out1", dir.path() / "err1"};
    BOOST_TEST_REQUIRE(wait_until(p, [&] { return lines() == 20; }), read_file(dir.path() / "err1"));
    BOOST_TEST(stop(p) == 0);
  }
  write_orders(source, 21, 20);
  {
    child_process p{lib_owned_binary, args, dir.path() / "out2", dir.path() / "err2"};
    BOOST_TEST_REQUIRE(wait_until(p, [&] { return lines() >= 40; }), read_file(dir.path() / "err2"));
    BOOST_TEST(stop(p) == 0);
    BOOST_TEST(read_file(dir.path() / "err2").empty());
  }
  const auto all = lines_of(read_file(output));
  BOOST_TEST(all.size() == 40U);
  BOOST_TEST(distinct(first_words(all)) == 40U);
  for (const auto& l : all) BOOST_TEST(l.ends_with(" insert public.orders"), l);
  return all.empty() ? std::string{} : first_words(all).back();
}

BOOST_AUTO_TEST_CASE(the_lib_owned_sink_with_the_file_store_repeats_nothing_across_clean_restarts) {
  const auto source = make_source(orders_table, "orders", "recipe_file");
  temp_dir dir{"replicant-recipes"};
  const auto checkpoint_file = dir.path() / "recipe_file.checkpoint";
  const auto last = run_lib_owned_twice(source, "file", checkpoint_file.string(), dir);
  // The store holds the last transaction written: the clean stop wrote it.
  const auto stored = read_file(checkpoint_file);
  BOOST_TEST(stored.find("slot recipe_file\n") != std::string::npos, stored);
  BOOST_TEST(stored.find("commit_lsn " + last + "\n") != std::string::npos, stored);
}

BOOST_AUTO_TEST_CASE(the_lib_owned_sink_with_the_postgres_store_repeats_nothing_across_clean_restarts) {
  auto& pg = live_server();
  const auto source = make_source(orders_table, "orders", "recipe_postgres");
  const auto store_db = pg.unique_name("recipe_store");
  pg.create_database(store_db);
  temp_dir dir{"replicant-recipes"};
  const auto last = run_lib_owned_twice(source, "postgres", pg.dsn(store_db), dir);
  // The store's row is the last transaction written (batched writes: the clean stop wrote it).
  const auto at = replicant::parse_lsn(last);
  BOOST_TEST_REQUIRE(at.has_value());
  BOOST_TEST(pg.scalar("SELECT commit_lsn FROM replicant_checkpoints WHERE slot_name = 'recipe_postgres'", store_db) ==
             std::to_string(static_cast<long long>(at->value())));
}

BOOST_AUTO_TEST_CASE(the_replica_identity_full_sink_keys_by_the_old_row_and_keeps_the_before_image) {
  auto& pg = live_server();
  const auto source = make_source(
      "CREATE TABLE accounts (id bigint PRIMARY KEY, owner text NOT NULL, balance bigint NOT NULL);"
      "ALTER TABLE accounts REPLICA IDENTITY FULL; ALTER TABLE accounts ALTER owner SET STORAGE EXTERNAL",
      "accounts", "recipe_full");
  const auto target = pg.unique_name("recipe_target");
  pg.create_database(target);
  temp_dir dir{"replicant-recipes"};
  // Five inserts; account 3's owner is 20,000 bytes, stored out of line (TOASTed).
  for (int id = 1; id <= 5; ++id) {
    const std::string owner = id == 3 ? "repeat('x', 20000)" : "'owner " + std::to_string(id) + "'";
    pg.sql("INSERT INTO accounts VALUES (" + std::to_string(id) + ", " + owner + ", " + std::to_string(id * 100) + ")",
           source);
  }
  pg.sql("UPDATE accounts SET balance = balance + 1 WHERE id = 3", source);  // leaves the TOASTed owner alone
  pg.sql("UPDATE accounts SET id = 10 WHERE id = 1", source);                // a key change
  pg.sql("DELETE FROM accounts WHERE id = 2", source);
  pg.sql("UPDATE accounts SET owner = 'renamed', balance = 7 WHERE id = 4", source);

  const auto history = [&] { return number("SELECT count(*) FROM account_history", target); };
  child_process p{full_binary, {pg.dsn(source), pg.dsn(target)}, dir.path() / "out", dir.path() / "err"};
  BOOST_TEST_REQUIRE(wait_until(p, [&] { return history() == 9; }), read_file(dir.path() / "err"));
  BOOST_TEST(stop(p) == 0);
  BOOST_TEST(read_file(dir.path() / "err").empty());

  const std::string rows =
      "SELECT string_agg(id || ':' || md5(owner) || ':' || balance, ',' ORDER BY id) FROM accounts";
  BOOST_TEST(pg.scalar(rows, target) == pg.scalar(rows, source));
  BOOST_TEST(pg.scalar("SELECT length(owner) FROM accounts WHERE id = 3", target) == "20000");
  // Balances before come from the old row; the key change is recorded under the new key.
  const std::string changes =
      "SELECT string_agg(op || ' ' || id || ' ' || coalesce(balance_before::text, '-') || ' ' || "
      "coalesce(balance_after::text, '-'), ', ' ORDER BY commit_lsn) FROM account_history WHERE op <> 'insert'";
  BOOST_TEST(pg.scalar(changes, target) == "update 3 300 301, update 10 100 100, delete 2 200 -, update 4 400 7");
}

BOOST_AUTO_TEST_CASE(the_broker_sink_publishes_each_transaction_once_across_a_kill_and_restarts) {
  const auto source = make_source(orders_table, "orders", "recipe_broker");
  temp_dir dir{"replicant-recipes"};
  const auto log = dir.path() / "broker.log";
  const std::vector<std::string> args{live_server().dsn(source), log.string()};
  const auto messages = [&] { return lines_of(read_file(log)).size(); };

  write_orders(source, 1, 30);
  {
    child_process p{broker_binary, args, dir.path() / "out1", dir.path() / "err1"};
    BOOST_TEST_REQUIRE(wait_until(p, [&] { return messages() == 30; }), read_file(dir.path() / "err1"));
    write_orders(source, 31, 60);
    p.kill();
  }
  {
    const auto since = server_clock();
    child_process p{broker_binary, args, dir.path() / "out2", dir.path() / "err2"};
    BOOST_TEST_REQUIRE(wait_until(p, [&] { return messages() >= 90 && streams_since("recipe_broker", since); }),
                       read_file(dir.path() / "err2"));
    BOOST_TEST(stop(p) == 0);
  }
  write_orders(source, 91, 10);
  {
    child_process p{broker_binary, args, dir.path() / "out3", dir.path() / "err3"};
    BOOST_TEST_REQUIRE(wait_until(p, [&] { return messages() >= 100; }), read_file(dir.path() / "err3"));
    BOOST_TEST(stop(p) == 0);
    BOOST_TEST(read_file(dir.path() / "err3").empty());
  }
  // One message per transaction, in commit order: none lost, none twice.
  const auto ids = first_words(lines_of(read_file(log)));
  BOOST_TEST(ids.size() == 100U);
  BOOST_TEST(distinct(ids) == 100U);
  std::vector<replicant::lsn> positions;
  for (const auto& id : ids) positions.push_back(replicant::parse_lsn(id).value_or(replicant::lsn{}));
  BOOST_TEST(std::is_sorted(positions.begin(), positions.end()));
}

// What docs/replica_identity_full.md says FULL costs: every update logs the whole old row, TOASTed
// values fetched and written inline, where DEFAULT logs nothing of the old row when the key stays.
BOOST_AUTO_TEST_CASE(replica_identity_full_logs_the_whole_old_row_with_every_update) {
  auto& pg = live_server();
  const auto db = pg.unique_name("recipe_wal");
  pg.create_database(db);
  const auto wal_per_update = [&](std::string_view identity) {
    const std::string table = "wal_" + std::string{identity};
    const std::string create =
        "CREATE TABLE " + table + " (id bigint PRIMARY KEY, owner text NOT NULL, balance bigint NOT NULL)";
    pg.sql(create, db);
    pg.sql("ALTER TABLE " + table + " REPLICA IDENTITY " + std::string{identity}, db);
    pg.sql("ALTER TABLE " + table + " ALTER owner SET STORAGE EXTERNAL", db);
    pg.sql("INSERT INTO " + table + " VALUES (1, repeat('x', 20000), 0)", db);
    const auto before = pg.scalar("SELECT pg_current_wal_insert_lsn()", db);
    pg.sql("DO $$ BEGIN FOR i IN 1..100 LOOP UPDATE " + table + " SET balance = balance + 1; END LOOP; END $$", db);
    return number("SELECT (pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '" + before + "') / 100)::bigint", db);
  };
  const long by_default = wal_per_update("default");
  const long by_full = wal_per_update("full");
  BOOST_TEST_MESSAGE("WAL per update of the balance of a row with a 20,000-byte TOASTed value, PostgreSQL "
                     << pg.major() << ": REPLICA IDENTITY DEFAULT " << by_default << " bytes, FULL " << by_full
                     << " bytes");
  BOOST_TEST(by_default < 1000);
  BOOST_TEST(by_full > 20000);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_recipes_tests
