// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Connection faults against a real server, once per PostgreSQL major: what a retry cannot fix
// halts at once with a reason of its own and the server's SQLSTATE (a wrong password, no password,
// a role that does not exist, a pg_hba.conf `reject` line, a database that does not exist); a
// server that is down is retried, each failed attempt visible in telemetry, until it is up again;
// and a run stopped before it ever reached the server says so. No halt, log line or event names
// the role, the database or the password.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

BOOST_AUTO_TEST_SUITE(connection_faults_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::test::event_log;
using replicant::test::live_server;
using replicant::test::memory_sink;

namespace {

// The password of the test's role: it must never show in a halt or an event.
constexpr std::string_view password = "pw-S3CR3T-9041";

using memory_pipeline = replicant::pgoutput_pipeline<memory_sink>;
using running = replicant::test::running<memory_pipeline>;

// A published database, and a role of its own that may log in and replicate, with a password.
struct fixture : replicant::test::published_database {
  std::string role = pg.unique_name("role");

  fixture() {
    pg.sql("CREATE ROLE " + role + " LOGIN REPLICATION PASSWORD '" + std::string{password} + "'");
    pg.sql("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role, db);
  }

  // Puts @p line first in pg_hba.conf (the first matching line decides) and reloads. The lines
  // name this fixture's role only, so they change nothing for anyone else.
  auto hba_first(const std::string& line) -> void {
    const auto file = pg.directory() / "data" / "pg_hba.conf";
    std::ifstream in{file};
    const std::string rest{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
    in.close();
    std::ofstream out{file, std::ios::trunc};
    out << line << '\n' << rest;
    out.close();
    pg.reload();
  }

  // The pipeline options with @p extra appended to the connection string.
  auto options_with(const std::string& extra) const -> replicant::pipeline_options {
    auto o = options;
    o.conninfo += " " + extra;
    return o;
  }
};

// Runs a pipeline with @p o and its telemetry going to @p events until it halts by itself (it must
// within 30 s), checks that the halt carries @p sqlstate, the refusal as its cause, that nothing was
// created and that neither it nor an event names the role, the database or the password, and
// returns its reason (which the case checks, with its event: tests/halts_provoked.txt records the
// case).
auto halts_with(fixture& f, const replicant::pipeline_options& o, event_log& events,
                std::optional<std::string> sqlstate) -> halt_reason {
  return replicant::test::refused_halt<memory_pipeline>(f, o, events, sqlstate, {std::string{password}, f.role, f.db});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(connection_faults, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(the_right_password_streams) {
  fixture f;
  f.hba_first("host all " + f.role + " 127.0.0.1/32 scram-sha-256");
  memory_sink sink;
  running r{sink, f.pgoutput, f.options_with("user=" + f.role + " password=" + std::string{password})};
  BOOST_TEST(f.first_row_delivered(sink));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_wrong_password_halts_authentication_failed) {
  fixture f;
  f.hba_first("host all " + f.role + " 127.0.0.1/32 scram-sha-256");
  event_log events;
  BOOST_TEST(halts_with(f, f.options_with("user=" + f.role + " password=wrong-" + std::string{password}), events,
                        "28P01") == halt_reason::authentication_failed);
  BOOST_TEST(events.disconnected(halt_reason::authentication_failed));
}

BOOST_AUTO_TEST_CASE(no_password_where_one_is_asked_for_halts_authentication_failed) {
  fixture f;
  f.hba_first("host all " + f.role + " 127.0.0.1/32 scram-sha-256");
  // libpq itself gives up (the server asked for a password, none was given): no SQLSTATE.
  event_log events;
  BOOST_TEST(halts_with(f, f.options_with("user=" + f.role + " passfile=/nonexistent"), events, std::nullopt) ==
             halt_reason::authentication_failed);
  BOOST_TEST(events.disconnected(halt_reason::authentication_failed));
}

BOOST_AUTO_TEST_CASE(an_unknown_role_halts_role_rejected) {
  fixture f;
  event_log events;
  BOOST_TEST(halts_with(f, f.options_with("user=" + f.role + "_nobody"), events, "28000") ==
             halt_reason::role_rejected);
  BOOST_TEST(events.disconnected(halt_reason::role_rejected));
}

BOOST_AUTO_TEST_CASE(a_pg_hba_reject_line_halts_host_rejected) {
  fixture f;
  f.hba_first("host all " + f.role + " 127.0.0.1/32 reject");
  event_log events;
  BOOST_TEST(halts_with(f, f.options_with("user=" + f.role + " password=" + std::string{password}), events, "28000") ==
             halt_reason::host_rejected);
  BOOST_TEST(events.disconnected(halt_reason::host_rejected));
}

BOOST_AUTO_TEST_CASE(an_unknown_database_halts_database_missing) {
  fixture f;
  auto o = f.options;
  o.conninfo = f.pg.dsn(f.db + "_nowhere");
  event_log events;
  BOOST_TEST(halts_with(f, o, events, "3D000") == halt_reason::database_missing);
  BOOST_TEST(events.disconnected(halt_reason::database_missing));
}

// A server that is down is not a refusal: every attempt is retried and reported, until it is up.
BOOST_AUTO_TEST_CASE(a_server_that_is_down_is_retried_until_it_is_up) {
  fixture f;
  memory_sink sink;
  event_log events;
  f.pg.stop();
  running r{sink, f.pgoutput, f.options, &events.dispatcher};
  const bool retried = f.wait_until([&] { return events.contains("attempt=3"); });
  f.pg.start();
  BOOST_TEST_REQUIRE(retried, "failed attempts are reported with their count");
  BOOST_TEST(events.contains("error_class=connection_failed"));
  BOOST_TEST(!r.ended.load(), "it must not give up on a server that is down");
  BOOST_TEST(f.first_row_delivered(sink));
  BOOST_TEST(!r.stop());
}

// stop() while the server was never reached: run() says so instead of returning as if all went well.
BOOST_AUTO_TEST_CASE(a_run_stopped_before_it_ever_connected_says_so) {
  fixture f;
  memory_sink sink;
  event_log events;
  f.pg.stop();
  std::error_code ec;
  {
    running r{sink, f.pgoutput, f.options, &events.dispatcher};
    BOOST_TEST(f.wait_until([&] { return events.contains("attempt=2"); }));
    ec = r.stop();
    BOOST_TEST(!r.pipeline.last_halt().has_value(), "a server that is down is no halt");
  }
  f.pg.start();
  BOOST_TEST(ec == replicant::errc::connection_failed);

  // The throwing run() says it too.
  f.pg.stop();
  event_log again;
  memory_pipeline p{sink, f.pgoutput, f.options, &again.dispatcher};
  std::thread stopper{[&] {
    f.wait_until([&] { return again.contains("attempt=2"); });
    p.stop();
  }};
  BOOST_CHECK_THROW(p.run(), std::system_error);
  stopper.join();
  f.pg.start();
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // connection_faults_tests
