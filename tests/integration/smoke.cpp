// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Live smoke test, run once per PostgreSQL major: the replication commands a consumer starts with
// behave as PROTOCOL.md section 1 says on this version, and the harness
// (tests/support/server/pg_cluster) does what the other integration tests rely on.
#include "support/server/pg_cluster.hpp"

#include <boost/test/unit_test.hpp>

#include <replicant/core/lsn.hpp>

#include <cstdlib>
#include <optional>
#include <string>

BOOST_AUTO_TEST_SUITE(smoke_tests)

namespace utf = boost::unit_test;
using replicant::test::live_server;
using replicant::test::pg_error;

namespace {

// Type OIDs from pg_type.dat.
constexpr Oid int8_oid = 20;
constexpr Oid int4_oid = 23;
constexpr Oid text_oid = 25;

// The major ctest asked for; the harness checked the binaries against it, these tests check the
// running server.
auto expected_major() -> int {
  const char* major = std::getenv("REPLICANT_PG_MAJOR");
  return major != nullptr && *major != '\0' ? std::atoi(major) : live_server().major();
}

// A field for comparison and printing; "<NULL>" never collides with the values these tests expect.
auto text(const std::optional<std::string>& field) -> std::string { return field.value_or("<NULL>"); }

auto count_slots(const std::string& slot) -> std::string {
  return live_server().scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
}

// wal2json and pglogical_output are installed for the Debian PostgreSQL 15 only (tools/provision).
auto third_party_plugins_installed(utf::test_unit_id) -> boost::test_tools::assertion_result {
  boost::test_tools::assertion_result installed{live_server().major() == 15};
  installed.message() << "wal2json and pglogical_output are provisioned for PostgreSQL 15 only";
  return installed;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(replication_protocol, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(reports_the_expected_server_version) {
  auto& pg = live_server();
  const int major = expected_major();
  BOOST_TEST(pg.major() == major);

  auto repl = pg.connect_replication();
  BOOST_TEST(repl.server_version() / 10000 == major);
  // SHOW is also a replication command (repl_gram.y), so this runs in walsender mode.
  const auto shown = repl.exec("SHOW server_version_num").value(0, 0);
  BOOST_REQUIRE(shown.has_value());
  BOOST_TEST(std::stoi(*shown) / 10000 == major);
  BOOST_TEST(std::stoi(*shown) == repl.server_version());
}

BOOST_AUTO_TEST_CASE(identify_system_returns_four_typed_columns) {
  auto& pg = live_server();
  const auto db = pg.unique_name("identify");
  pg.create_database(db);

  auto repl = pg.connect_replication(db);
  const auto r = repl.exec("IDENTIFY_SYSTEM");
  BOOST_TEST_REQUIRE(r.row_count() == 1);
  BOOST_TEST_REQUIRE(r.column_count() == 4);
  BOOST_TEST(r.column_name(0) == "systemid");
  BOOST_TEST(r.column_name(1) == "timeline");
  BOOST_TEST(r.column_name(2) == "xlogpos");
  BOOST_TEST(r.column_name(3) == "dbname");
  BOOST_TEST(r.column_type(0) == text_oid);
  // int4 up to 15, int8 from 16 on (upstream 8ba3cb2f18; PROTOCOL.md section 1.3).
  BOOST_TEST(r.column_type(1) == (pg.major() <= 15 ? int4_oid : int8_oid));
  BOOST_TEST(r.column_type(2) == text_oid);
  BOOST_TEST(r.column_type(3) == text_oid);

  BOOST_TEST(text(r.value(0, 0)) == pg.scalar("SELECT system_identifier::text FROM pg_control_system()"));
  BOOST_TEST(text(r.value(0, 1)) == "1");
  const auto xlogpos = replicant::parse_lsn(r.value(0, 2).value_or(""));
  BOOST_TEST_REQUIRE(xlogpos.has_value());
  BOOST_TEST(xlogpos->is_valid());
  BOOST_TEST(text(r.value(0, 3)) == db);
}

BOOST_AUTO_TEST_CASE(creates_lists_and_drops_a_pgoutput_slot) {
  auto& pg = live_server();
  const auto db = pg.unique_name("slots");
  pg.create_database(db);
  const auto slot = pg.unique_name("smoke");

  auto repl = pg.connect_replication(db);
  const auto created = repl.exec("CREATE_REPLICATION_SLOT " + slot + " LOGICAL pgoutput (SNAPSHOT 'nothing')");
  BOOST_TEST_REQUIRE(created.row_count() == 1);
  BOOST_TEST_REQUIRE(created.column_count() == 4);
  BOOST_TEST(created.column_name(0) == "slot_name");
  BOOST_TEST(created.column_name(1) == "consistent_point");
  BOOST_TEST(created.column_name(2) == "snapshot_name");
  BOOST_TEST(created.column_name(3) == "output_plugin");
  BOOST_TEST(text(created.value(0, 0)) == slot);
  const auto consistent_point = replicant::parse_lsn(created.value(0, 1).value_or(""));
  BOOST_TEST_REQUIRE(consistent_point.has_value());
  BOOST_TEST(consistent_point->is_valid());
  BOOST_TEST(!created.value(0, 2).has_value());  // NULL unless SNAPSHOT 'export'
  BOOST_TEST(text(created.value(0, 3)) == "pgoutput");

  const auto listed = pg.sql(
      "SELECT slot_type, plugin, database, temporary::text, confirmed_flush_lsn::text "
      "FROM pg_replication_slots WHERE slot_name = '" +
      slot + "'");
  BOOST_TEST_REQUIRE(listed.size() == 1U);
  BOOST_TEST(text(listed[0][0]) == "logical");
  BOOST_TEST(text(listed[0][1]) == "pgoutput");
  BOOST_TEST(text(listed[0][2]) == db);
  BOOST_TEST(text(listed[0][3]) == "false");
  BOOST_TEST(replicant::parse_lsn(listed[0][4].value_or("")).value() == *consistent_point);

  // A second slot of the same name: duplicate_object, which consumers rely on (PROTOCOL.md 1.4).
  const auto again = repl.try_exec("CREATE_REPLICATION_SLOT " + slot + " LOGICAL pgoutput (SNAPSHOT 'nothing')");
  BOOST_TEST(!again.ok());
  BOOST_TEST(again.sqlstate() == "42710");

  repl.exec("DROP_REPLICATION_SLOT " + slot);
  BOOST_TEST(count_slots(slot) == "0");
}

BOOST_AUTO_TEST_CASE(creates_wal2json_and_pglogical_output_slots, *utf::precondition(third_party_plugins_installed)) {
  auto& pg = live_server();
  const auto db = pg.unique_name("plugins");
  pg.create_database(db);
  const auto create_and_drop = [&](const std::string& plugin) {
    BOOST_TEST_CONTEXT("plugin " << plugin) {
      auto repl = pg.connect_replication(db);
      const auto slot = pg.unique_name("plugin");
      const auto created =
          repl.try_exec("CREATE_REPLICATION_SLOT " + slot + " LOGICAL " + plugin + " (SNAPSHOT 'nothing')");
      BOOST_TEST_REQUIRE(created.ok(), "SQLSTATE " << created.sqlstate());
      BOOST_TEST(text(created.value(0, 3)) == plugin);
      BOOST_TEST(pg.scalar("SELECT plugin FROM pg_replication_slots WHERE slot_name = '" + slot + "'") == plugin);
      repl.exec("DROP_REPLICATION_SLOT " + slot);
      BOOST_TEST(count_slots(slot) == "0");
    }
  };
  create_and_drop("wal2json");

  // pglogical's output plugin lives in pglogical.so, which must be preloaded; without it the slot
  // cannot be created. The harness leaves shared_preload_libraries alone, so a test that needs
  // pglogical sets it and restarts.
  {
    auto repl = pg.connect_replication(db);
    const auto refused = repl.try_exec("CREATE_REPLICATION_SLOT " + pg.unique_name("plugin") +
                                       " LOGICAL pglogical_output (SNAPSHOT 'nothing')");
    BOOST_TEST(!refused.ok());
    BOOST_TEST(refused.error_message().find("shared_preload_libraries") != std::string::npos);
  }
  pg.set("shared_preload_libraries", "pglogical");
  pg.restart();
  create_and_drop("pglogical_output");
  pg.reset("shared_preload_libraries");
  pg.restart();
  BOOST_TEST(pg.scalar("SHOW shared_preload_libraries").empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(harness, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(configures_the_server_for_logical_replication) {
  auto& pg = live_server();
  BOOST_TEST(pg.scalar("SHOW wal_level") == "logical");
  BOOST_TEST(pg.scalar("SHOW max_wal_senders") == "32");
  BOOST_TEST(pg.scalar("SHOW max_replication_slots") == "32");
  BOOST_TEST(pg.scalar("SHOW fsync") == "off");
  BOOST_TEST(pg.scalar("SHOW listen_addresses") == "127.0.0.1");
  BOOST_TEST(pg.scalar("SHOW port") == std::to_string(pg.port()));
  if (pg.has_setting("output_plugin_libraries")) {
    const auto plugins = pg.scalar("SHOW output_plugin_libraries");
    BOOST_TEST(plugins.find("wal2json") != std::string::npos);
    BOOST_TEST(plugins.find("pglogical_output") != std::string::npos);
  }
  BOOST_TEST(!pg.has_setting("no_such_setting_anywhere"));
  BOOST_TEST(pg.has_setting("wal_level"));
}

BOOST_AUTO_TEST_CASE(reaches_the_server_over_tcp_and_the_unix_socket) {
  auto& pg = live_server();
  replicant::test::pg_connection tcp{pg.dsn()};
  BOOST_TEST(text(tcp.exec("SELECT host(inet_server_addr())").value(0, 0)) == "127.0.0.1");
  replicant::test::pg_connection unix_socket{pg.socket_dsn()};
  BOOST_TEST(!unix_socket.exec("SELECT inet_server_addr()").value(0, 0).has_value());  // NULL over a socket
}

BOOST_AUTO_TEST_CASE(reports_failures_by_sqlstate_without_the_statement) {
  auto& pg = live_server();
  BOOST_CHECK_EXCEPTION(pg.sql("SELECT * FROM missing_table_name"), pg_error, [](const pg_error& e) {
    return e.sqlstate() == "42P01" && std::string{e.what()}.find("missing_table_name") == std::string::npos &&
           e.server_message().find("missing_table_name") != std::string::npos;
  });
  BOOST_CHECK_THROW(static_cast<void>(pg.scalar("SELECT 1 UNION ALL SELECT 2")), std::runtime_error);
  BOOST_CHECK_THROW(static_cast<void>(pg.scalar("SELECT NULL")), std::runtime_error);
  BOOST_CHECK_THROW(static_cast<void>(pg.unique_name("Not Plain")), std::invalid_argument);
  BOOST_TEST(pg.unique_name("n") != pg.unique_name("n"));
}

BOOST_AUTO_TEST_CASE(keeps_databases_apart) {
  auto& pg = live_server();
  const auto a = pg.unique_name("iso");
  const auto b = pg.unique_name("iso");
  pg.create_database(a);
  pg.create_database(b);
  pg.sql("CREATE TABLE only_in_a (id int)", a);
  BOOST_TEST(pg.scalar("SELECT to_regclass('only_in_a') IS NOT NULL", a) == "t");
  BOOST_TEST(pg.scalar("SELECT to_regclass('only_in_a') IS NOT NULL", b) == "f");
  BOOST_TEST(pg.scalar("SELECT current_database()", b) == b);
  auto repl = pg.connect_replication(b);
  BOOST_TEST(text(repl.exec("IDENTIFY_SYSTEM").value(0, 3)) == b);
}

BOOST_AUTO_TEST_CASE(set_and_reload_change_a_setting) {
  auto& pg = live_server();
  const auto original = pg.scalar("SHOW wal_sender_timeout");
  BOOST_TEST(original != "7s");
  pg.set("wal_sender_timeout", "7s");
  pg.reload();
  BOOST_TEST(pg.scalar("SHOW wal_sender_timeout") == "7s");
  // Walsenders read the same configuration: this is how tests shorten replication timeouts.
  auto repl = pg.connect_replication();
  BOOST_TEST(text(repl.exec("SHOW wal_sender_timeout").value(0, 0)) == "7s");

  pg.reset("wal_sender_timeout");
  pg.reload();
  BOOST_TEST(pg.scalar("SHOW wal_sender_timeout") == original);
  BOOST_CHECK_THROW(pg.set("no_such_setting_anywhere", "1"), pg_error);
}

BOOST_AUTO_TEST_CASE(restart_keeps_data_settings_and_port) {
  auto& pg = live_server();
  const auto db = pg.unique_name("restart");
  pg.create_database(db);
  pg.sql("CREATE TABLE t (id int PRIMARY KEY)", db);
  pg.sql("INSERT INTO t SELECT generate_series(1, 100)", db);
  const replicant::test::setting_guard work_mem{pg, "work_mem", "5MB"};  // postgresql.auto.conf, read at start
  const auto port = pg.port();
  const auto pid = pg.postmaster_pid();
  const auto started = pg.scalar("SELECT pg_postmaster_start_time()");

  pg.restart();

  BOOST_TEST(pg.running());
  BOOST_TEST(pg.port() == port);
  BOOST_TEST(pg.postmaster_pid() != pid);
  BOOST_TEST(pg.scalar("SELECT pg_postmaster_start_time()") != started);
  BOOST_TEST(pg.scalar("SELECT count(*) FROM t", db) == "100");
  BOOST_TEST(pg.scalar("SHOW work_mem") == "5MB");
}

BOOST_AUTO_TEST_CASE(crash_then_start_recovers_committed_data) {
  auto& pg = live_server();
  const auto db = pg.unique_name("crash");
  pg.create_database(db);
  pg.sql("CREATE TABLE t (id int PRIMARY KEY)", db);
  pg.sql("INSERT INTO t SELECT generate_series(1, 1000)", db);
  const auto slot = pg.unique_name("crash");
  pg.sql("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')", db);
  const auto log_before = pg.server_log().size();

  pg.crash();
  BOOST_TEST(!pg.running());
  BOOST_TEST(pg.postmaster_pid() == 0);
  BOOST_CHECK_THROW(static_cast<void>(pg.connect()), pg_error);

  pg.start();
  BOOST_TEST(pg.running());
  BOOST_TEST(pg.scalar("SELECT count(*) FROM t", db) == "1000");
  BOOST_TEST(count_slots(slot) == "1");
  // Immediate shutdown wrote no shutdown checkpoint, so this start had to replay WAL.
  BOOST_TEST(pg.server_log().find("automatic recovery in progress", log_before) != std::string::npos);
  pg.sql("SELECT pg_drop_replication_slot('" + slot + "')");
}

BOOST_AUTO_TEST_CASE(stop_then_start_is_a_clean_cycle) {
  auto& pg = live_server();
  pg.stop();
  BOOST_TEST(!pg.running());
  pg.stop();  // no-op when stopped
  pg.crash();
  const auto log_before = pg.server_log().size();
  pg.start();
  pg.start();  // no-op when running
  BOOST_TEST(pg.running());
  BOOST_TEST(pg.scalar("SELECT 1") == "1");
  BOOST_TEST(pg.server_log().find("automatic recovery in progress", log_before) == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // smoke_tests
