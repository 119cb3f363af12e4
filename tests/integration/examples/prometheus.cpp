// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-prometheus (examples/prometheus) against a live server, once per PostgreSQL major,
// scraped with a plain socket client: the exposition parses line by line, the counters move with
// the rows written (exactly), the checkpoint gauge follows the WAL, a halt is counted by reason and
// still served, only GET of /metrics is answered with metrics, a silent client neither holds up a
// scrape nor stays connected past its deadline, and no row value is ever exposed.
//
// The binary is the build's own: examples/prometheus/CMakeLists.txt passes its path as
// REPLICANT_PROMETHEUS_BINARY.
#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/common/time_scale.hpp"
#include "support/processes/child_process.hpp"
#include "support/processes/process.hpp"
#include "support/server/pg_cluster.hpp"

#include <replicant/core/lsn.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_prometheus_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::test::child_process;
using replicant::test::live_server;
using replicant::test::read_file;
using replicant::test::temp_dir;
using replicant::test::wait_until;

namespace {

#ifdef REPLICANT_PROMETHEUS_BINARY
constexpr std::string_view exporter_binary = REPLICANT_PROMETHEUS_BINARY;
#else
constexpr std::string_view exporter_binary;
#endif

const replicant::test::binary_known binary_known{exporter_binary, "REPLICANT_PROMETHEUS_BINARY",
                                                 "replicant-prometheus"};

constexpr std::string_view secret = "s3cr3t-prom-4471";

// A connected TCP socket to @p address:@p port, or -1.
auto connect_to(std::uint16_t port, const char* address = "127.0.0.1") -> int {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  ::inet_pton(AF_INET, address, &addr.sin_addr);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

struct http_reply {
  int status = 0;
  std::string head;
  std::string body;
};

// Sends @p request as it is and reads the whole reply (the server closes the connection).
auto http_exchange(std::uint16_t port, const std::string& request, std::chrono::milliseconds timeout = 10s)
    -> http_reply {
  http_reply reply;
  const int fd = connect_to(port);
  BOOST_TEST_REQUIRE(fd >= 0, "connecting to the exporter");
  BOOST_TEST_REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  std::string all;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char chunk[65536];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    all.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  const auto blank = all.find("\r\n\r\n");
  if (blank == std::string::npos) return reply;
  reply.head = all.substr(0, blank);
  reply.body = all.substr(blank + 4);
  std::smatch m;
  if (std::regex_search(reply.head, m, std::regex{"^HTTP/1\\.[01] ([0-9]{3}) "})) reply.status = std::stoi(m[1].str());
  return reply;
}

auto get(std::uint16_t port, const std::string& path = "/metrics") -> http_reply {
  return http_exchange(port, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n");
}

// The samples of an exposition, `name{labels}` -> value, after checking every line's shape: `# HELP
// name text`, `# TYPE name type` (once per name, before its samples), or `name{labels} value`. A
// value may be NaN or an infinity, as the format allows (a quantile of a summary with no
// observation yet, such as the exposer's own request latencies before the first scrape ends).
struct exposition {
  std::map<std::string, double> samples;
  std::vector<std::string> bad_lines;

  // The value of @p series; NaN (equal to nothing) when there is no such series.
  [[nodiscard]] auto value(const std::string& series) const -> double {
    const auto it = samples.find(series);
    return it == samples.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
  }
};

auto parse_exposition(const std::string& body) -> exposition {
  static const std::regex help{R"(^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$)"};
  static const std::regex type{R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|summary|histogram|untyped)$)"};
  static const std::regex sample{
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})? (-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|[+-]Inf|NaN|Nan)$)"};
  exposition out;
  std::set<std::string> typed;
  std::istringstream in{body};
  if (body.empty() || body.back() != '\n') out.bad_lines.emplace_back("(no final line feed)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, help)) continue;
    if (std::regex_match(line, m, type)) {
      if (!typed.insert(m[1].str()).second) out.bad_lines.push_back("TYPE twice: " + line);
      continue;
    }
    if (!std::regex_match(line, m, sample)) {
      out.bad_lines.push_back(line);
      continue;
    }
    // A sample belongs to the family TYPE'd before it (a summary's _sum and _count to the summary).
    std::string family = m[1].str();
    for (const std::string_view suffix : {"_sum", "_count"}) {
      if (!typed.contains(family) && family.ends_with(suffix)) family.resize(family.size() - suffix.size());
    }
    if (!typed.contains(family)) out.bad_lines.push_back("sample before its TYPE: " + line);
    if (!out.samples.emplace(m[1].str() + m[2].str(), std::stod(m[3].str())).second) {
      out.bad_lines.push_back("series twice: " + line);
    }
  }
  return out;
}

// A scrape of /metrics that must succeed and parse.
auto scrape(std::uint16_t port) -> exposition {
  const auto r = get(port);
  BOOST_TEST_REQUIRE(r.status == 200, r.head);
  BOOST_TEST(r.head.find("Content-Type: text/plain") != std::string::npos, r.head);
  BOOST_TEST(r.head.find("Content-Length: " + std::to_string(r.body.size())) != std::string::npos, r.head);
  BOOST_TEST(r.body.find(secret) == std::string::npos);
  auto e = parse_exposition(r.body);
  BOOST_TEST(e.bad_lines.empty(), "malformed lines: " << (e.bad_lines.empty() ? std::string{} : e.bad_lines.front()));
  return e;
}

// A database with a published table, and the exporter for it.
struct scenario {
  std::string db = live_server().unique_name("prom");
  std::string slot = live_server().unique_name("prom_slot");
  temp_dir dir{"replicant-prometheus-test"};
  std::optional<child_process> exporter;
  std::uint16_t port = 0;

  scenario() {
    live_server().create_database(db);
    live_server().sql("CREATE TABLE items (id int PRIMARY KEY, label text); CREATE PUBLICATION pub FOR TABLE items",
                      db);
  }

  auto sql(const std::string& s) -> void { live_server().sql(s, db); }

  [[nodiscard]] auto err() const -> std::string { return read_file(dir.path() / "err"); }

  // Starts the exporter on a free port and reads the port from its first line.
  auto start(const std::string& publication = "pub") -> void {
    exporter.emplace(exporter_binary,
                     std::vector<std::string>{"--dsn", live_server().dsn(db), "--slot", slot, "--publication",
                                              publication, "--create-slot", "--port", "0", "--status-interval", "1"},
                     dir.path() / "out", dir.path() / "err");
    const std::regex serving{"serving http://127\\.0\\.0\\.1:([0-9]+)/metrics"};
    std::smatch m;
    BOOST_TEST_REQUIRE(wait_until(
        [&] {
          const auto e = err();
          if (!std::regex_search(e, m, serving)) return false;
          port = static_cast<std::uint16_t>(std::stoi(m[1].str()));
          return true;
        },
        60s));
  }

  auto slot_active() -> bool {
    return live_server().scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active",
                                db) == "1";
  }
};

auto events(const std::string& event) -> std::string { return "replicant_events_total{event=\"" + event + "\"}"; }

}  // namespace

BOOST_AUTO_TEST_SUITE(prometheus, *utf::label("integration") * utf::precondition(binary_known))

BOOST_AUTO_TEST_CASE(counters_follow_the_rows_written_and_the_format_parses) {
  scenario s;
  s.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return s.slot_active(); }, 60s));
  BOOST_TEST_REQUIRE(wait_until([&] { return scrape(s.port).value(events("connection.slot_active")) == 1.0; }, 60s));
  const auto before = scrape(s.port);
  BOOST_TEST(before.value("replicant_up") == 1.0);
  BOOST_TEST(before.value("replicant_connected") == 1.0);
  BOOST_TEST(before.value(events("sink.committed")) == 0.0);
  // Every catalogued event and every halt reason is a series from the start.
  BOOST_TEST(before.value(events("snapshot.completed")) == 0.0);
  BOOST_TEST(before.value("replicant_halts_total{reason=\"sink_failed\"}") == 0.0);
  const auto wal_before = replicant::parse_lsn(live_server().scalar("SELECT pg_current_wal_lsn()", s.db)).value();

  s.sql("INSERT INTO items VALUES (1, '" + std::string{secret} + "')");
  s.sql(
      "BEGIN; INSERT INTO items VALUES (2, 'b'); INSERT INTO items VALUES (3, 'c'); INSERT INTO items VALUES (4, "
      "'d'); COMMIT");
  s.sql("UPDATE items SET label = 'bb' WHERE id = 2");
  s.sql("DELETE FROM items WHERE id = 3");
  s.sql("BEGIN; INSERT INTO items VALUES (5, 'e'); UPDATE items SET label = 'ee' WHERE id = 5; COMMIT");
  // The duration is observed after the event is counted: waiting for it waits for both.
  const std::string committed_durations = "replicant_event_duration_seconds_count{event=\"sink.committed\"}";
  BOOST_TEST_REQUIRE(wait_until([&] { return scrape(s.port).value(committed_durations) >= 5.0; }, 60s));
  std::this_thread::sleep_for(500ms);  // nothing more should come

  const auto after = scrape(s.port);
  BOOST_TEST(after.value(events("sink.committed")) == 5.0);
  BOOST_TEST(after.value(events("transaction.assembled")) == 5.0);
  BOOST_TEST(after.value("replicant_transactions_total") == 5.0);
  BOOST_TEST(after.value("replicant_transaction_changes_total") == 8.0);
  BOOST_TEST(after.value("replicant_transaction_bytes_total") > 0.0);
  BOOST_TEST(after.value("replicant_sink_changes_total{op=\"insert\"}") == 5.0);
  BOOST_TEST(after.value("replicant_sink_changes_total{op=\"update\"}") == 2.0);
  BOOST_TEST(after.value("replicant_sink_changes_total{op=\"delete\"}") == 1.0);
  BOOST_TEST(after.value(committed_durations) == 5.0);
  BOOST_TEST(after.value("replicant_event_duration_seconds_sum{event=\"sink.committed\"}") > 0.0);
  BOOST_TEST(after.value(events("sink.failed")) == 0.0);
  // The acknowledged position moved past where the WAL was before the writes, as a plain number.
  BOOST_TEST(after.value("replicant_checkpoint_lsn") > static_cast<double>(wal_before.value()));
  BOOST_TEST(after.value(events("checkpoint.advanced")) >= 1.0);
  for (const auto& [series, v] : after.samples) {
    if (series.find("_total") != std::string::npos) BOOST_TEST(v >= before.value(series), series << " never decreases");
  }

  // Metrics only for GET of /metrics (prometheus-cpp's handler); any other path, and any other
  // method, falls through to civetweb, which has no files to serve. A malformed request and a head
  // larger than civetweb's 16 KiB buffer are refused as bad requests.
  BOOST_TEST(get(s.port, "/other").status == 404);
  BOOST_TEST(get(s.port, "/").status == 404);
  BOOST_TEST(get(s.port, "/metrics?name[]=x").status == 200);
  BOOST_TEST(http_exchange(s.port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").status == 404);
  BOOST_TEST(http_exchange(s.port, "HEAD /metrics HTTP/1.0\r\n\r\n").status == 404);
  BOOST_TEST(http_exchange(s.port, "nonsense\r\n\r\n").status == 400);
  BOOST_TEST(http_exchange(s.port, "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\n\r\n").status == 400);
  // Loopback only, on the one address: 127.0.0.2 is loopback as well, and a server listening on
  // every address would accept there.
  BOOST_TEST(connect_to(s.port, "127.0.0.2") < 0);

  s.exporter->signal(SIGTERM);
  BOOST_TEST(s.exporter->wait() == 0);
  BOOST_TEST(s.err().find("replicant-prometheus: stopped; acknowledged up to ") != std::string::npos, s.err());
  BOOST_TEST(s.err().find(secret) == std::string::npos);
  BOOST_TEST(s.err().find(s.slot) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_halt_is_counted_by_reason_and_still_served) {
  scenario s;
  s.start("no_such_pub_q4");
  // Both: replicant_up is 0 before the pipeline starts too, and the halt is counted just before it
  // falls.
  const std::string counter = "replicant_halts_total{reason=\"publication_missing\"}";
  BOOST_TEST_REQUIRE(wait_until(
      [&] {
        const auto now = scrape(s.port);
        return now.value(counter) >= 1.0 && now.value("replicant_up") == 0.0;
      },
      60s));
  const auto e = scrape(s.port);
  BOOST_TEST(e.value(counter) == 1.0);
  double halts = 0;
  for (const auto& [series, v] : e.samples) {
    if (series.starts_with("replicant_halts_total")) halts += v;
  }
  BOOST_TEST(halts == 1.0, "one halt, of one reason");
  BOOST_TEST(e.value("replicant_connected") == 0.0);
  BOOST_TEST(s.exporter->running(), "it keeps serving after the halt");
  s.exporter->signal(SIGTERM);
  BOOST_TEST(s.exporter->wait() == 1);
  const auto err = s.err();
  BOOST_TEST(err.find("replicant halted: publication_missing") != std::string::npos, err);
  BOOST_TEST(err.find("still serving the metrics") != std::string::npos, err);
  BOOST_TEST(err.find("q4") == std::string::npos, "the publication's name is not repeated");
}

BOOST_AUTO_TEST_CASE(a_silent_client_neither_holds_up_a_scrape_nor_stays_connected) {
  scenario s;
  s.start();
  const auto connected = std::chrono::steady_clock::now();
  const int silent = connect_to(s.port);
  BOOST_TEST_REQUIRE(silent >= 0);
  // Two workers answer: a client that sends nothing occupies one, and a scrape is answered before
  // the silent client's deadline (5 s) has passed.
  const auto r = http_exchange(s.port, "GET /metrics HTTP/1.0\r\n\r\n", 20s);
  BOOST_TEST(r.status == 200);
  BOOST_TEST((std::chrono::steady_clock::now() - connected < 4s));
  // At the deadline the silent client is closed, with nothing sent.
  pollfd p{silent, POLLIN, 0};
  BOOST_TEST(::poll(&p, 1, 15'000) == 1, "closed within 15 s");
  char byte = 0;
  BOOST_TEST(::recv(silent, &byte, 1, 0) == 0, "closed without a reply");
  const auto closed_after = std::chrono::steady_clock::now() - connected;
  BOOST_TEST((closed_after >= 4s && closed_after < 15s));
  ::close(silent);
  s.exporter->signal(SIGTERM);
  BOOST_TEST(s.exporter->wait() == 0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_prometheus_tests
