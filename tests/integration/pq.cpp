// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The libpq layer against a live server: pinned session settings, value-free failures, cancellable
// connects, and a replication stream from START_REPLICATION to a clean CopyDone.
#include <replicant/pq/replication_stream.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/server/pq_session.hpp"

#include <replicant/core/lsn.hpp>

#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(pq_tests)

namespace utf = boost::unit_test;
using replicant::errc;
using replicant::pq::connection;
using replicant::pq::session_kind;
using replicant::test::live_server;
using replicant::test::open_session;

namespace {

constexpr std::string_view secret = "s3cr3t-VALUE-4711";

auto show(connection& c, const std::string& setting) -> std::string {
  auto r = c.exec("SHOW " + setting);
  BOOST_TEST_REQUIRE(r.has_value());
  return std::string{r->get(0, 0)};
}

// A standby status update (PROTOCOL.md section 1.9.3), built by hand so this test depends only on pq/.
auto status_update(std::uint64_t flush) -> std::array<std::byte, 34> {
  std::array<std::byte, 34> out{};
  out[0] = std::byte{'r'};
  for (int field = 0; field < 3; ++field) {
    for (int i = 0; i < 8; ++i) {
      out[static_cast<std::size_t>(1 + field * 8 + i)] =
          static_cast<std::byte>(flush >> static_cast<unsigned>(56 - 8 * i));
    }
  }
  return out;
}

// A TCP listener that accepts nothing: a connect attempt to it hangs waiting for the server's answer.
struct silent_listener {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  silent_listener() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_TEST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    BOOST_TEST_REQUIRE(::listen(fd, 4) == 0);
    socklen_t len = sizeof addr;
    BOOST_TEST_REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port = ntohs(addr.sin_port);
  }
  ~silent_listener() { ::close(fd); }
  silent_listener(const silent_listener&) = delete;
  auto operator=(const silent_listener&) -> silent_listener& = delete;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(pq_connection, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(pins_the_settings_that_shape_value_text) {
  auto& pg = live_server();
  for (auto kind : {session_kind::normal, session_kind::replication}) {
    const auto dsn = kind == session_kind::normal ? pg.dsn() : pg.replication_dsn();
    // The caller's own options survive; ours are appended.
    auto c = open_session(dsn + " options='-c statement_timeout=4321'", kind);
    BOOST_TEST(show(c, "DateStyle") == "ISO, MDY");
    BOOST_TEST(show(c, "IntervalStyle") == "postgres");
    BOOST_TEST(show(c, "TimeZone") == "UTC");
    BOOST_TEST(show(c, "extra_float_digits") == "3");
    BOOST_TEST(show(c, "bytea_output") == "hex");
    BOOST_TEST(show(c, "client_encoding") == "UTF8");
    BOOST_TEST(show(c, "statement_timeout") == "4321ms");
    BOOST_TEST(c.server_version() / 10000 == pg.major());
  }
}

BOOST_AUTO_TEST_CASE(replication_connection_is_a_walsender) {
  auto c = open_session(live_server().replication_dsn(), session_kind::replication);
  auto r = c.exec("IDENTIFY_SYSTEM");
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->columns() == 4);
  BOOST_TEST(replicant::parse_lsn(r->get(0, 2)).has_value());
}

BOOST_AUTO_TEST_CASE(server_errors_keep_the_sqlstate_and_drop_the_text) {
  auto c = open_session(live_server().dsn(), session_kind::normal);
  const auto r = c.exec("SELECT '" + std::string{secret} + "'::int");
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error() == errc::server_error);
  BOOST_TEST(c.last_error().sqlstate == "22P02");  // invalid_text_representation
  BOOST_TEST(r.error().message().find(secret) == std::string::npos);
  // The connection stays usable after a failed command.
  BOOST_TEST(c.exec("SELECT 1").has_value());
  BOOST_TEST(c.last_error().sqlstate.empty());
}

BOOST_AUTO_TEST_CASE(unreachable_and_malformed_targets_fail_value_free) {
  const silent_listener closed;  // bound, then we connect to a port nobody serves
  const int dead_port = closed.port;
  ::close(closed.fd);
  const auto refused = connection::open(
      "host=127.0.0.1 port=" + std::to_string(dead_port) + " password=" + std::string{secret}, session_kind::normal);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error() == errc::connection_failed);
  BOOST_TEST(refused.error().message().find(secret) == std::string::npos);

  const auto malformed = connection::open("host=" + std::string{secret} + " = =", session_kind::normal);
  BOOST_TEST_REQUIRE(!malformed.has_value());
  BOOST_TEST(malformed.error() == errc::invalid_options);
}

BOOST_AUTO_TEST_CASE(a_hanging_connect_is_cancelled_or_times_out) {
  const silent_listener hang;
  const std::string dsn = "host=127.0.0.1 port=" + std::to_string(hang.port);

  const int wake = ::eventfd(0, EFD_CLOEXEC);
  const std::uint64_t one = 1;
  BOOST_TEST_REQUIRE(::write(wake, &one, sizeof one) == static_cast<ssize_t>(sizeof one));
  const auto cancelled = connection::open(dsn, session_kind::normal, {.cancel_fd = wake});
  ::close(wake);
  BOOST_TEST_REQUIRE(!cancelled.has_value());
  BOOST_TEST(cancelled.error() == errc::cancelled);

  const auto started = std::chrono::steady_clock::now();
  const auto timed_out = connection::open(dsn, session_kind::normal, {.timeout = std::chrono::milliseconds(300)});
  BOOST_TEST_REQUIRE(!timed_out.has_value());
  BOOST_TEST(timed_out.error() == errc::connection_failed);
  BOOST_TEST((std::chrono::steady_clock::now() - started < std::chrono::seconds(10)));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pq_replication_stream, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(streams_frames_acknowledges_and_finishes_cleanly) {
  auto& pg = live_server();
  const auto db = pg.unique_name("stream");
  pg.create_database(db);
  pg.sql("CREATE TABLE t (id int PRIMARY KEY, v text); CREATE PUBLICATION pub FOR TABLE t", db);

  auto c = open_session(pg.replication_dsn(db), session_kind::replication);
  const auto slot = pg.unique_name("slot");
  BOOST_TEST_REQUIRE(c.exec("CREATE_REPLICATION_SLOT " + slot + " LOGICAL pgoutput (SNAPSHOT 'nothing')").has_value());
  pg.sql("INSERT INTO t SELECT g, 'row' FROM generate_series(1, 500) g", db);

  auto s = replicant::pq::replication_stream::start(
      std::move(c), "START_REPLICATION SLOT " + slot + " LOGICAL 0/0 (proto_version '1', publication_names 'pub')");
  if (!s) BOOST_FAIL("start: " << s.error().message());

  // One transaction of 500 inserts: B, R, 500 x I, C, all as 'w' frames. (How many arrive per wakeup
  // depends on timing, so it is measured by the benchmarks, not asserted here.)
  std::vector<char> kinds;
  std::uint64_t commit_end = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::count(kinds.begin(), kinds.end(), 'C') == 0 && std::chrono::steady_clock::now() < deadline) {
    auto w = s->wait(-1, std::chrono::milliseconds(500));
    BOOST_TEST_REQUIRE(w.has_value());
    if (*w != replicant::pq::wait_outcome::readable) continue;
    auto got = s->receive(
        [&](replicant::pq::frame&& f) {
          const auto b = f.bytes();
          BOOST_TEST_REQUIRE(b.size() >= 18U);
          if (static_cast<char>(b[0]) != 'w') return;
          const char kind = static_cast<char>(b[25]);
          kinds.push_back(kind);
          if (kind == 'C') {
            for (int i = 0; i < 8; ++i)
              commit_end = (commit_end << 8U) | std::to_integer<std::uint64_t>(b[static_cast<std::size_t>(1 + i)]);
          }
        },
        64U * 1024U * 1024U);
    if (!got) BOOST_FAIL("receive: " << got.error().message());
  }
  BOOST_TEST(std::count(kinds.begin(), kinds.end(), 'I') == 500);
  BOOST_TEST(kinds.front() == 'B');
  BOOST_TEST(kinds.back() == 'C');

  // Acknowledge the commit and finish: the slot's confirmed_flush_lsn must land exactly there.
  BOOST_TEST_REQUIRE(s->send(status_update(commit_end)).has_value());
  BOOST_TEST_REQUIRE(s->finish().has_value());
  auto after = s->connection().exec("IDENTIFY_SYSTEM");
  BOOST_TEST(after.has_value(), "the connection takes commands again after CopyDone");
  const auto confirmed =
      pg.scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
  BOOST_TEST(replicant::parse_lsn(confirmed).value().value() == commit_end);
}

BOOST_AUTO_TEST_CASE(refused_start_reports_the_sqlstate) {
  auto& pg = live_server();
  auto c = open_session(pg.replication_dsn(), session_kind::replication);
  auto s = replicant::pq::replication_stream::start(std::move(c), "START_REPLICATION SLOT no_such_slot LOGICAL 0/0");
  BOOST_TEST_REQUIRE(!s.has_value());
  BOOST_TEST(s.error() == errc::server_error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // pq_tests
