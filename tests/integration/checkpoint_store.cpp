// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The PostgreSQL checkpoint store against a live server: lazy table creation, round trips, tables
// of another shape, outages it heals from, the pinned synchronous_commit, value-free errors, and
// calls that cannot hang: a lock held on the checkpoint row or table, a frozen backend, interrupt().
#include <replicant/checkpoint/postgres_store.hpp>

#include <boost/test/unit_test.hpp>

#include "support/faults/frozen_process.hpp"
#include "support/server/pg_cluster.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(checkpoint_store_tests)

namespace utf = boost::unit_test;
using replicant::errc;
using replicant::lsn;
using replicant::postgres_checkpoint_store;
using replicant::postgres_store_options;
using replicant::slot_name;
using replicant::test::frozen_process;
using replicant::test::live_server;

static_assert(replicant::checkpoint_store<postgres_checkpoint_store>);
static_assert(!std::is_copy_constructible_v<postgres_checkpoint_store>);
static_assert(std::is_nothrow_move_constructible_v<postgres_checkpoint_store>);
static_assert(std::is_nothrow_move_assignable_v<postgres_checkpoint_store>);
static_assert(replicant::interruptible_store<postgres_checkpoint_store>);

namespace {

auto slot(std::string_view name) -> slot_name { return slot_name::make(name).value(); }

// A read's outcome as text, so that a failed check prints what came back.
auto show(const replicant::result<std::optional<lsn>>& r) -> std::string {
  if (!r) return "error " + std::string{replicant::to_string(static_cast<errc>(r.error().value()))};
  if (!*r) return "none";
  return replicant::to_string(**r);
}

// The error of a call that was expected to fail; an empty code if it succeeded.
template <class T>
auto error_of(const replicant::result<T>& r) -> std::error_code {
  return r ? std::error_code{} : r.error();
}

// Sends this process's stderr to a temporary file while it lives, to check what libpq printed.
class stderr_capture {
 public:
  stderr_capture() {
    std::fflush(stderr);
    BOOST_TEST_REQUIRE(file_ != nullptr);
    saved_ = ::dup(STDERR_FILENO);
    BOOST_TEST_REQUIRE(::dup2(::fileno(file_), STDERR_FILENO) >= 0);
  }
  ~stderr_capture() {
    restore();
    std::fclose(file_);
  }
  stderr_capture(const stderr_capture&) = delete;
  auto operator=(const stderr_capture&) -> stderr_capture& = delete;

  // Everything written so far.
  [[nodiscard]] auto text() const -> std::string {
    std::fflush(stderr);
    std::string out;
    std::rewind(file_);
    for (int c; (c = std::fgetc(file_)) != EOF;) out.push_back(static_cast<char>(c));
    return out;
  }

 private:
  void restore() noexcept {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    saved_ = -1;
  }
  std::FILE* file_ = std::tmpfile();
  int saved_ = -1;
};

// A database of its own for one test, and a store on it.
struct fresh_database {
  replicant::test::pg_cluster& pg = live_server();
  std::string db = pg.unique_name("cps");
  fresh_database() { pg.create_database(db); }

  [[nodiscard]] auto store(std::string table = "replicant_checkpoints") const -> postgres_checkpoint_store {
    return postgres_checkpoint_store{postgres_store_options{.conninfo = pg.dsn(db), .table = std::move(table)}};
  }
  [[nodiscard]] auto exists(std::string_view table) -> bool {
    return pg.scalar("SELECT to_regclass('" + std::string{table} + "') IS NOT NULL", db) == "t";
  }
  // A store whose every command gives up after @p timeout.
  [[nodiscard]] auto bounded_store(std::chrono::milliseconds timeout) const -> postgres_checkpoint_store {
    return postgres_checkpoint_store{postgres_store_options{.conninfo = pg.dsn(db), .command_timeout = timeout}};
  }
};

using clock_type = std::chrono::steady_clock;

// Polls @p cond every 20 ms until it holds or @p timeout passed.
auto eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout) -> bool {
  const auto deadline = clock_type::now() + timeout;
  while (clock_type::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

auto since(clock_type::time_point t) -> std::chrono::milliseconds {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - t);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(postgres_checkpoint_store_suite, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(creates_its_table_lazily_on_the_first_call) {
  fresh_database f;
  auto store = f.store();
  BOOST_TEST(!store.is_connected());
  BOOST_TEST(!f.exists("replicant_checkpoints"), "constructing connects to nothing");

  BOOST_TEST(show(store.read(slot("orders"))) == "none");
  BOOST_TEST(store.is_connected());
  BOOST_TEST(f.exists("replicant_checkpoints"));
  // The shape the documentation promises.
  const auto columns = f.pg.sql(
      "SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute"
      " WHERE attrelid = 'replicant_checkpoints'::regclass AND attnum > 0 ORDER BY attnum",
      f.db);
  BOOST_TEST_REQUIRE(columns.size() == 2U);
  BOOST_TEST(*columns[0][0] == "slot_name");
  BOOST_TEST(*columns[0][1] == "text");
  BOOST_TEST(*columns[1][0] == "commit_lsn");
  BOOST_TEST(*columns[1][1] == "bigint");
  BOOST_TEST(*columns[1][2] == "t");
  BOOST_TEST(f.pg.scalar("SELECT count(*) FROM pg_index WHERE indrelid = 'replicant_checkpoints'::regclass"
                         " AND indisprimary",
                         f.db) == "1");
}

BOOST_AUTO_TEST_CASE(round_trips_checkpoints_across_store_instances) {
  fresh_database f;
  {
    auto store = f.store();
    BOOST_TEST_REQUIRE(store.write(slot("orders"), lsn{0x16'B374'D848}).has_value());
    BOOST_TEST(show(store.read(slot("orders"))) == "16/B374D848");
    BOOST_TEST_REQUIRE(store.write(slot("orders"), lsn{0x17'0000'0000}).has_value());
    BOOST_TEST(show(store.read(slot("orders"))) == "17/0");
  }
  // A new store (a restarted process) reads what the old one wrote.
  auto again = f.store();
  BOOST_TEST(show(again.read(slot("orders"))) == "17/0");
  BOOST_TEST(f.pg.scalar("SELECT commit_lsn FROM replicant_checkpoints WHERE slot_name = 'orders'", f.db) ==
             std::to_string(0x17'0000'0000LL));

  // Every 64-bit LSN survives the bigint column, including those above 2^63 (stored negative).
  for (const lsn at : {lsn{}, lsn{~std::uint64_t{0}}, lsn{0x8000'0000'0000'0000}, lsn{0x7FFF'FFFF'FFFF'FFFF}}) {
    BOOST_TEST_REQUIRE(again.write(slot("edge"), at).has_value());
    BOOST_TEST(show(again.read(slot("edge"))) == replicant::to_string(at));
  }
  BOOST_TEST(f.pg.scalar("SELECT commit_lsn FROM replicant_checkpoints WHERE slot_name = 'edge'", f.db) ==
             "9223372036854775807");
}

BOOST_AUTO_TEST_CASE(slots_are_independent_rows) {
  fresh_database f;
  auto a = f.store();
  auto b = f.store();
  BOOST_TEST_REQUIRE(a.write(slot("one"), lsn{100}).has_value());
  BOOST_TEST(show(b.read(slot("two"))) == "none");
  BOOST_TEST_REQUIRE(b.write(slot("two"), lsn{200}).has_value());
  BOOST_TEST_REQUIRE(a.write(slot("one"), lsn{300}).has_value());
  BOOST_TEST(show(a.read(slot("two"))) == "0/C8");
  BOOST_TEST(show(b.read(slot("one"))) == "0/12C");
  BOOST_TEST(f.pg.scalar("SELECT count(*) FROM replicant_checkpoints", f.db) == "2");
}

BOOST_AUTO_TEST_CASE(uses_the_configured_table_and_keeps_its_case) {
  fresh_database f;
  auto store = f.store("Etl_Checkpoints$1");
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{9}).has_value());
  BOOST_TEST(f.exists("\"Etl_Checkpoints$1\""));
  BOOST_TEST(!f.exists("replicant_checkpoints"));
  BOOST_TEST(show(f.store("Etl_Checkpoints$1").read(slot("s"))) == "0/9");
  // Resolved through search_path: a schema chosen in the connection string is where it lives.
  f.pg.sql("CREATE SCHEMA etl", f.db);
  postgres_checkpoint_store in_schema{
      {.conninfo = f.pg.dsn(f.db) + " options='-c search_path=etl'", .table = "replicant_checkpoints"}};
  BOOST_TEST_REQUIRE(in_schema.write(slot("s"), lsn{10}).has_value());
  BOOST_TEST(f.pg.scalar("SELECT commit_lsn FROM etl.replicant_checkpoints", f.db) == "10");
}

BOOST_AUTO_TEST_CASE(works_with_a_table_created_beforehand_by_a_role_that_may_not_create) {
  fresh_database f;
  f.pg.sql(
      "CREATE TABLE replicant_checkpoints (slot_name text PRIMARY KEY, commit_lsn bigint NOT NULL,"
      " note text, updated timestamptz NOT NULL DEFAULT now())",
      f.db);
  const auto role = f.pg.unique_name("cps_writer");
  f.pg.sql("CREATE ROLE " + role + " LOGIN", f.db);
  f.pg.sql("REVOKE CREATE ON SCHEMA public FROM PUBLIC", f.db);
  f.pg.sql("GRANT SELECT, INSERT, UPDATE ON replicant_checkpoints TO " + role, f.db);
  postgres_checkpoint_store store{{.conninfo = f.pg.dsn(f.db) + " user=" + role}};
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{11}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == "0/B");

  // Without the table, that role cannot create one: a server error, transient (an operator can
  // fix the grant while the pipeline retries).
  postgres_checkpoint_store cannot{{.conninfo = f.pg.dsn(f.db) + " user=" + role, .table = "other_checkpoints"}};
  const auto r = cannot.read(slot("s"));
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error() == errc::checkpoint_store_failed);
  BOOST_TEST(cannot.last_sqlstate() == "42501");  // insufficient_privilege
  BOOST_TEST(!replicant::is_permanent_store_fault(r.error()));
  BOOST_TEST(!cannot.is_connected());
}

BOOST_AUTO_TEST_CASE(a_table_of_another_shape_is_a_permanent_mismatch) {
  fresh_database f;
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"lsn_as_text", "CREATE TABLE lsn_as_text (slot_name text PRIMARY KEY, commit_lsn text NOT NULL)"},
      {"lsn_as_pg_lsn", "CREATE TABLE lsn_as_pg_lsn (slot_name text PRIMARY KEY, commit_lsn pg_lsn NOT NULL)"},
      {"slot_as_varchar", "CREATE TABLE slot_as_varchar (slot_name varchar PRIMARY KEY, commit_lsn bigint)"},
      {"lsn_missing", "CREATE TABLE lsn_missing (slot_name text PRIMARY KEY, lsn bigint NOT NULL)"},
      {"slot_missing", "CREATE TABLE slot_missing (slot text PRIMARY KEY, commit_lsn bigint NOT NULL)"},
      {"not_unique", "CREATE TABLE not_unique (slot_name text, commit_lsn bigint NOT NULL)"},
      {"wider_key", "CREATE TABLE wider_key (slot_name text, commit_lsn bigint, PRIMARY KEY (slot_name, commit_lsn))"},
      {"partial_unique",
       "CREATE TABLE partial_unique (slot_name text, commit_lsn bigint);"
       " CREATE UNIQUE INDEX ON partial_unique (slot_name) WHERE commit_lsn > 0"},
      {"deferrable_key",
       "CREATE TABLE deferrable_key (slot_name text PRIMARY KEY DEFERRABLE, commit_lsn bigint NOT NULL)"},
      {"extra_required",
       "CREATE TABLE extra_required (slot_name text PRIMARY KEY, commit_lsn bigint, owner text NOT NULL)"},
      {"unlogged", "CREATE UNLOGGED TABLE unlogged (slot_name text PRIMARY KEY, commit_lsn bigint NOT NULL)"},
      {"a_view", "CREATE VIEW a_view AS SELECT 'x'::text AS slot_name, 1::bigint AS commit_lsn"},
      {"a_sequence", "CREATE SEQUENCE a_sequence"},
  };
  for (const auto& [table, ddl] : shapes) {
    f.pg.sql(ddl, f.db);
    BOOST_TEST_CONTEXT("table " << table) {
      auto store = f.store(table);
      const auto r = store.read(slot("s"));
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == errc::store_mismatch);
      BOOST_TEST(replicant::is_permanent_store_fault(r.error()));
      BOOST_TEST(!store.is_connected());
      const auto w = store.write(slot("s"), lsn{1});
      BOOST_TEST_REQUIRE(!w.has_value());
      BOOST_TEST(w.error() == errc::store_mismatch);
    }
  }
  // None of them was written to or replaced.
  BOOST_TEST(f.pg.scalar("SELECT count(*) FROM lsn_as_text", f.db) == "0");
}

BOOST_AUTO_TEST_CASE(a_stored_value_that_is_not_a_checkpoint_is_a_mismatch) {
  fresh_database f;
  f.pg.sql("CREATE TABLE nullable (slot_name text PRIMARY KEY, commit_lsn bigint)", f.db);
  f.pg.sql("INSERT INTO nullable VALUES ('s', NULL)", f.db);
  auto store = f.store("nullable");
  BOOST_TEST(show(store.read(slot("other"))) == "none", "the shape itself is acceptable");
  BOOST_TEST(show(store.read(slot("s"))) == "error store_mismatch");
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{5}).has_value());  // a write repairs the row
  BOOST_TEST(show(store.read(slot("s"))) == "0/5");
}

BOOST_AUTO_TEST_CASE(a_shape_change_under_an_open_connection_is_a_mismatch) {
  fresh_database f;
  auto store = f.store();
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{1}).has_value());
  f.pg.sql("ALTER TABLE replicant_checkpoints RENAME COLUMN commit_lsn TO position", f.db);
  const auto w = store.write(slot("s"), lsn{2});
  BOOST_TEST_REQUIRE(!w.has_value());
  BOOST_TEST(w.error() == errc::store_mismatch);
  BOOST_TEST(store.last_sqlstate() == "42703");
  BOOST_TEST(show(store.read(slot("s"))) == "error store_mismatch");  // reconnected, probed again
}

BOOST_AUTO_TEST_CASE(an_invalid_table_name_is_refused_without_connecting) {
  // Nothing listens on port 1: a connection attempt would fail connection_failed, not this.
  for (const char* bad : {"", "1table", "my-table", "public.replicant_checkpoints", "\"quoted\"", "t\xC3\xA9",
                          "a_name_that_is_far_too_long_to_be_a_postgresql_identifier_at_all_"}) {
    postgres_checkpoint_store store{{.conninfo = "host=127.0.0.1 port=1", .table = bad}};
    const auto r = store.read(slot("s"));
    BOOST_TEST_CONTEXT("name of " << std::string_view{bad}.size() << " bytes") {
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == errc::invalid_identifier);
      BOOST_TEST(replicant::is_permanent_store_fault(r.error()));
      const auto w = store.write(slot("s"), lsn{1});
      BOOST_TEST_REQUIRE(!w.has_value());
      BOOST_TEST(w.error() == errc::invalid_identifier);
    }
  }
  postgres_checkpoint_store no_time{{.conninfo = "host=127.0.0.1 port=1", .connect_timeout = {}}};
  BOOST_TEST(show(no_time.read(slot("s"))) == "error invalid_options");
  postgres_checkpoint_store unparseable{{.conninfo = "host = = ="}};
  BOOST_TEST(show(unparseable.read(slot("s"))) == "error invalid_options");
}

BOOST_AUTO_TEST_CASE(concurrent_first_uses_all_succeed_quietly) {
  fresh_database f;
  // Several stores racing to create the same table: the losers of CREATE TABLE IF NOT EXISTS see a
  // unique or duplicate-object violation on the catalogs, which must count as "someone else
  // created it". The server's notices about it name the table: none may reach stderr.
  const stderr_capture captured;
  for (int round = 0; round < 8; ++round) {
    const std::string table = "race_" + std::to_string(round);
    constexpr int racers = 4;
    std::vector<std::string> outcomes(racers);
    std::atomic<int> waiting{racers};
    std::vector<std::thread> threads;
    for (int i = 0; i < racers; ++i) {
      threads.emplace_back([&, i] {
        auto store = f.store(table);
        const auto name = slot("racer_" + std::to_string(i));
        waiting.fetch_sub(1);
        while (waiting.load() > 0) std::this_thread::yield();
        auto w = store.write(name, lsn{static_cast<std::uint64_t>(i + 1)});
        outcomes[static_cast<std::size_t>(i)] =
            w ? show(store.read(name)) : "error " + std::string{store.last_sqlstate()};
      });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < racers; ++i) {
      BOOST_TEST(outcomes[static_cast<std::size_t>(i)] == replicant::to_string(lsn{static_cast<std::uint64_t>(i + 1)}));
    }
  }
  BOOST_TEST(captured.text().find("race_") == std::string::npos, "nothing printed names the table");
}

BOOST_AUTO_TEST_CASE(pins_synchronous_commit_on_whatever_the_session_asks_for) {
  fresh_database f;
  // The caller's connection string turns durability off, as a role or database default could.
  postgres_checkpoint_store store{{.conninfo = f.pg.dsn(f.db) + " application_name=cps_sync_probe"
                                                                " options='-c synchronous_commit=off'"}};
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{1}).has_value());

  // With a synchronous standby required that never comes, a commit under synchronous_commit = on
  // waits (wait event SyncRep); under off or local it returns at once. So a write that waits proves
  // the store's own setting won.
  const replicant::test::scoped_setting no_standby{f.pg, "synchronous_standby_names", "nobody"};

  // Commits start to wait once the checkpointer has taken the reload in (the shared
  // sync_standbys_defined flag), a moment after new sessions see the setting. So a write that
  // completes without waiting is retried for a while; one that waits ends the search.
  const auto sync_waits = [&] {
    return f.pg.scalar(
               "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cps_sync_probe'"
               " AND wait_event = 'SyncRep'") == "1";
  };
  std::atomic<bool> done{false};
  replicant::result<void> outcome;
  std::thread writer;
  bool waited = false;
  std::uint64_t last = 1;
  for (int attempt = 0; attempt < 20 && !waited; ++attempt) {
    if (writer.joinable()) {
      writer.join();
      BOOST_TEST_REQUIRE(outcome.has_value());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    done = false;
    ++last;
    writer = std::thread{[&store, &outcome, &done, at = lsn{last}] {
      outcome = store.write(slot("s"), at);
      done = true;
    }};
    for (int i = 0; i < 100 && !waited && !done; ++i) {
      waited = sync_waits();
      if (!waited) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  // Lifting the requirement releases the waiting commit.
  f.pg.reset("synchronous_standby_names");
  f.pg.reload();
  for (int i = 0; i < 200 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!done) f.pg.sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'cps_sync_probe'");
  writer.join();
  BOOST_TEST(waited, "a write waited for a synchronous standby, so synchronous_commit was on");
  BOOST_TEST(outcome.has_value());
  BOOST_TEST(show(store.read(slot("s"))) == replicant::to_string(lsn{last}));
}

BOOST_AUTO_TEST_CASE(survives_a_server_restart) {
  fresh_database f;
  auto store = f.store();
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x42}).has_value());
  f.pg.restart();
  // The first call may find the old connection dead; it fails transiently and drops it, and a
  // later call reconnects. Each call is one attempt: retries are the pipeline's.
  std::vector<std::string> seen;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto r = store.read(slot("s"));
    seen.push_back(show(r));
    if (r) break;
    BOOST_TEST((r.error() == errc::connection_failed || r.error() == errc::checkpoint_store_failed));
    BOOST_TEST(!replicant::is_permanent_store_fault(r.error()));
    BOOST_TEST(!store.is_connected());
  }
  BOOST_TEST_REQUIRE(!seen.empty());
  BOOST_TEST(seen.back() == "0/42");
  BOOST_TEST(seen.size() <= 2U);
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x43}).has_value());
  BOOST_TEST(show(f.store().read(slot("s"))) == "0/43");
}

BOOST_AUTO_TEST_CASE(a_server_that_is_down_is_a_transient_fault) {
  fresh_database f;
  auto store = f.store();
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x50}).has_value());
  struct restart_guard {
    replicant::test::pg_cluster& pg;
    ~restart_guard() {
      try {
        pg.start();  // a no-op when it is running
      } catch (...) {
      }
    }
  } guard{f.pg};
  f.pg.stop();
  for (int i = 0; i < 3; ++i) {
    const auto w = store.write(slot("s"), lsn{0x51});
    BOOST_TEST_REQUIRE(!w.has_value());
    BOOST_TEST((w.error() == errc::connection_failed || w.error() == errc::checkpoint_store_failed));
    BOOST_TEST(!replicant::is_permanent_store_fault(w.error()));
    const auto r = store.read(slot("s"));
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error() == errc::connection_failed, "with the connection gone, connecting is what fails");
  }
  // A fresh store against a server that is down fails the same way.
  BOOST_TEST(show(f.store().read(slot("s"))) == "error connection_failed");
  f.pg.start();
  BOOST_TEST(show(store.read(slot("s"))) == "0/50");
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x51}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == "0/51");
}

BOOST_AUTO_TEST_CASE(errors_never_carry_the_table_name_or_the_connection_string) {
  fresh_database f;
  const std::string table = "zz_secret_table_4711";
  const std::string secret = "s3cr3t-VALUE-4711";
  std::vector<std::error_code> errors;
  f.pg.sql("CREATE TABLE " + table + " (slot_name text PRIMARY KEY, commit_lsn text)", f.db);
  {  // a mismatch
    postgres_checkpoint_store s{{.conninfo = f.pg.dsn(f.db) + " application_name=" + secret, .table = table}};
    errors.push_back(error_of(s.read(slot("s"))));
  }
  {  // a refused connection, with a password in the string
    postgres_checkpoint_store s{{.conninfo = "host=127.0.0.1 port=1 password=" + secret, .table = table}};
    errors.push_back(error_of(s.write(slot("s"), lsn{1})));
  }
  {  // a rejected login: a user that does not exist
    postgres_checkpoint_store s{{.conninfo = f.pg.dsn(f.db) + " user=" + secret, .table = table}};
    errors.push_back(error_of(s.read(slot("s"))));
  }
  {  // an unparseable connection string
    postgres_checkpoint_store s{{.conninfo = "host=" + secret + " = =", .table = table}};
    errors.push_back(error_of(s.read(slot("s"))));
  }
  BOOST_TEST_REQUIRE(errors.size() == 4U);
  BOOST_TEST(errors[0] == errc::store_mismatch);
  BOOST_TEST(errors[1] == errc::connection_failed);
  BOOST_TEST(errors[2] == errc::connection_failed);
  BOOST_TEST(errors[3] == errc::invalid_options);
  for (const auto& ec : errors) {
    BOOST_TEST(std::string_view{ec.category().name()} == "replicant");
    BOOST_TEST(ec.message().find("4711") == std::string::npos);
    BOOST_TEST(ec.message().find("secret") == std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_lock_held_on_the_checkpoint_ends_the_call_at_command_timeout) {
  fresh_database f;
  auto store = f.bounded_store(std::chrono::milliseconds(400));
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{1}).has_value());
  {
    // Another session holds the row: the upsert waits for its lock, until lock_timeout.
    auto holder = f.pg.connect(f.db);
    holder.exec("BEGIN");
    holder.exec("SELECT * FROM replicant_checkpoints WHERE slot_name = 's' FOR UPDATE");
    const auto started = clock_type::now();
    const auto w = store.write(slot("s"), lsn{2});
    const auto took = since(started);
    BOOST_TEST(error_of(w) == errc::checkpoint_store_failed);
    BOOST_TEST(store.last_sqlstate() == "55P03");  // lock_not_available: lock_timeout ended the wait
    BOOST_TEST(!replicant::is_permanent_store_fault(error_of(w)));
    BOOST_TEST(!store.is_connected());
    BOOST_TEST(took >= std::chrono::milliseconds(350), took.count() << " ms");
    BOOST_TEST(took < std::chrono::milliseconds(3000), took.count() << " ms");
    // A read takes no row lock: it still sees the last committed checkpoint.
    BOOST_TEST(show(store.read(slot("s"))) == "0/1");
    holder.exec("ROLLBACK");
  }
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{2}).has_value());
  {
    // A table lock stops the read too.
    auto holder = f.pg.connect(f.db);
    holder.exec("BEGIN");
    holder.exec("LOCK TABLE replicant_checkpoints IN ACCESS EXCLUSIVE MODE");
    auto fresh = f.bounded_store(std::chrono::milliseconds(400));
    const auto started = clock_type::now();
    BOOST_TEST(show(fresh.read(slot("s"))) == "error checkpoint_store_failed");
    BOOST_TEST(fresh.last_sqlstate() == "55P03");
    BOOST_TEST(since(started) < std::chrono::milliseconds(3000));
    holder.exec("ROLLBACK");
    BOOST_TEST(show(fresh.read(slot("s"))) == "0/2");
  }
  // Nothing the store gave up on is left on the server.
  BOOST_TEST(f.pg.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + f.db +
                         "' AND wait_event_type = 'Lock'") == "0");
}

BOOST_AUTO_TEST_CASE(a_frozen_backend_ends_the_call_a_second_after_command_timeout) {
  fresh_database f;
  auto store = f.bounded_store(std::chrono::milliseconds(300));
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{1}).has_value());
  const int pid = store.backend_pid();
  BOOST_TEST_REQUIRE(pid > 0);
  frozen_process frozen{pid};
  // The server cannot enforce its timeout in a process that does not run: the store's own
  // deadline, a second after it, ends the call, as a lost connection.
  const auto started = clock_type::now();
  const auto w = store.write(slot("s"), lsn{2});
  const auto took = since(started);
  BOOST_TEST(error_of(w) == errc::connection_failed);
  BOOST_TEST(store.last_sqlstate().empty());
  BOOST_TEST(took >= std::chrono::milliseconds(1200), took.count() << " ms");
  BOOST_TEST(took < std::chrono::milliseconds(4000), took.count() << " ms");
  // The next call reconnects: a new backend, which is not frozen. The same value is written again,
  // as the pipeline's retry does.
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{2}).has_value());
  BOOST_TEST(store.backend_pid() != pid);
  // Thawed, the old backend finds the statement it had not read, and may still run it: the same
  // value, so nothing changes. Then it notices its client is gone and exits.
  frozen.thaw();
  BOOST_TEST(eventually(
      [&] { return f.pg.scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = " + std::to_string(pid)) == "0"; },
      std::chrono::seconds(10)));
  BOOST_TEST(show(store.read(slot("s"))) == "0/2");
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{3}).has_value());
  BOOST_TEST(show(f.store().read(slot("s"))) == "0/3");
}

BOOST_AUTO_TEST_CASE(interrupt_ends_a_call_waiting_for_a_lock_at_once) {
  fresh_database f;
  auto store = f.bounded_store(std::chrono::seconds(30));
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{1}).has_value());
  auto holder = f.pg.connect(f.db);
  holder.exec("BEGIN");
  holder.exec("SELECT * FROM replicant_checkpoints WHERE slot_name = 's' FOR UPDATE");
  std::atomic<bool> returned{false};
  std::error_code outcome;
  const auto started = clock_type::now();
  std::thread caller{[&] {
    outcome = error_of(store.write(slot("s"), lsn{2}));
    returned.store(true);
  }};
  BOOST_TEST(eventually(
      [&] {
        return f.pg.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + f.db +
                           "' AND wait_event_type = 'Lock'") == "1";
      },
      std::chrono::seconds(10)));
  BOOST_TEST(!returned.load());
  store.interrupt();
  caller.join();
  BOOST_TEST(outcome == errc::cancelled);
  BOOST_TEST(!replicant::is_permanent_store_fault(outcome));
  BOOST_TEST(since(started) < std::chrono::seconds(5), "a command_timeout of 30 s, ended by the interrupt");
  BOOST_TEST(!store.is_connected());
  // The abandoned statement leaves the server within the connection check's second (14+), or at
  // its lock's release; here the lock is released, and the upsert, if it ran, wrote 0/2.
  holder.exec("ROLLBACK");
  BOOST_TEST(eventually(
      [&] {
        return f.pg.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + f.db +
                           "' AND wait_event_type = 'Lock'") == "0";
      },
      std::chrono::seconds(10)));
  // An interrupt between calls does not end the next one.
  store.interrupt();
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{3}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == "0/3");
}

BOOST_AUTO_TEST_CASE(a_non_positive_command_timeout_is_refused_without_connecting) {
  for (const auto t : {std::chrono::milliseconds(0), std::chrono::milliseconds(-1)}) {
    postgres_checkpoint_store store{{.conninfo = "host=127.0.0.1 port=1", .command_timeout = t}};
    BOOST_TEST(show(store.read(slot("s"))) == "error invalid_options");
    BOOST_TEST(replicant::is_permanent_store_fault(error_of(store.write(slot("s"), lsn{1}))));
  }
}

BOOST_AUTO_TEST_CASE(a_moved_store_keeps_its_connection) {
  fresh_database f;
  auto first = f.store();
  BOOST_TEST_REQUIRE(first.write(slot("s"), lsn{3}).has_value());
  postgres_checkpoint_store second{std::move(first)};
  BOOST_TEST(second.is_connected());
  BOOST_TEST(show(second.read(slot("s"))) == "0/3");
  auto third = f.store("elsewhere");
  third = std::move(second);
  BOOST_TEST(show(third.read(slot("s"))) == "0/3");
  BOOST_TEST(!f.exists("elsewhere"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // checkpoint_store_tests
