// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// TLS against a real server, once per PostgreSQL major. The harness gives this program's server
// throwaway certificates (live_tls_server_fixture): an authority of its own signed the server's
// certificate for localhost and 127.0.0.1. Over `sslmode=verify-full` the pipeline streams every
// transaction exactly once, across a reconnect, and pg_stat_ssl shows that its replication
// connection, its probe connection and a checkpoint store's connection all used TLS. What TLS
// refuses for good halts at once, value-free: a certificate another authority signed, or one made
// out to another host (`tls_verification_failed`), a server that offers no TLS
// (`tls_unavailable`), and a server that accepts nothing but TLS asked by a client that will not
// use it (`host_rejected`). A halt names no host, file or certificate.
#include <replicant/pipeline.hpp>

#include <replicant/checkpoint/postgres_store.hpp>

#include <boost/test/unit_test.hpp>

#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(tls_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::event_log;
using replicant::test::memory_sink;
using replicant::test::scoped_setting;
using replicant::test::wait_until;

using replicant::test::live_tls_server_fixture;

// The rest of the suite runs inside live_tls_server_fixture: the program's server serves TLS.
BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE(tls_tests, *boost::unit_test::fixture<live_tls_server_fixture>())

namespace {

// Every row's label: a value the audit proves never reaches a halt, an event or a log.
constexpr std::string_view secret = "s3cr3t-TLS-ROW-5150";

// A host name the server's certificate does not carry; libpq connects to 127.0.0.1 all the same
// (hostaddr), so that only the name check can fail.
constexpr std::string_view elsewhere = "replicant-elsewhere.invalid";

using memory_pipeline = replicant::pgoutput_pipeline<memory_sink>;
using running = replicant::test::running<memory_pipeline>;

// A published database streamed over verify-full TLS, its connections named by an
// application_name of their own so that pg_stat_activity tells them apart from the harness's.
struct fixture : replicant::test::published_database {
  std::string application = pg.unique_name("tls_app");

  fixture() { options.conninfo = pg.tls_dsn(db) + " application_name=" + application; }

  // Whether TLS is in use on every backend named @p app, there is at least one, and one of them
  // is of @p backend_type ('walsender', 'client backend').
  [[nodiscard]] auto all_tls_with(const std::string& app, std::string_view backend_type) -> bool {
    const auto rows = pg.sql(
        "SELECT count(*) FILTER (WHERE NOT s.ssl), count(*) FILTER (WHERE a.backend_type = '" +
        std::string{backend_type} +
        "' AND s.ssl) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.application_name = '" + app + "'");
    return rows.size() == 1U && rows[0][0] == "0" && rows[0][1] != "0";
  }

  // Commits @p count transactions of one row each, ids from @p first on.
  auto commit_each(int first, int count) -> void {
    sql("DO $$ BEGIN FOR i IN " + std::to_string(first) + ".." + std::to_string(first + count - 1) +
        " LOOP INSERT INTO items VALUES (i, '" + std::string{secret} + "', i); COMMIT; END LOOP; END $$");
  }

  // The process id of the pipeline's walsender, or empty when there is none.
  [[nodiscard]] auto walsender_pid() -> std::string {
    const auto rows =
        pg.sql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walsender' AND application_name = '" +
               application + "'");
    return rows.size() == 1U && rows[0][0] ? *rows[0][0] : std::string{};
  }

  // Ends the pipeline's walsender; it reconnects (over TLS again) and resumes at its checkpoint.
  auto terminate_walsender(const std::string& pid) -> void { pg.sql("SELECT pg_terminate_backend(" + pid + ")"); }
};

// Every id from 1 to @p n, each once and in commit order: what exactly-once delivery leaves in a
// sink that skips what it already has.
auto exactly_once(const std::vector<replicant::test::seen>& rows, int n) -> bool {
  if (rows.size() != static_cast<std::size_t>(n)) return false;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].op != "insert" || rows[i].id != std::to_string(i + 1)) return false;
    if (i > 0 && rows[i].commit <= rows[i - 1].commit) return false;
  }
  return true;
}

// Runs a pipeline with @p o and its telemetry going to @p events until it halts by itself (within
// 30 s), checks its halt (@p sqlstate, the refusal as its cause, no retry, no slot made, and neither
// the halt nor an event naming the database, a host or a certificate file), and returns its reason
// (which the case checks, with its event: tests/halts_provoked.txt records the case).
auto halts_with(fixture& f, const replicant::pipeline_options& o, event_log& events,
                std::optional<std::string> sqlstate) -> halt_reason {
  const auto& files = f.pg.tls().value();
  const auto reason = replicant::test::refused_halt<memory_pipeline>(
      f, o, events, sqlstate,
      {f.db, std::string{elsewhere}, files.root_certificate.string(), files.other_root_certificate.string()});
  BOOST_TEST(!events.contains("attempt="), "a refusal is not retried");
  return reason;
}

// pg_hba.conf replaced for a scope, and the original put back (and reloaded) afterwards, also when
// the test fails halfway.
class scoped_hba {
 public:
  scoped_hba(replicant::test::pg_cluster& pg, const std::string& content)
      : pg_{pg}, file_{pg.directory() / "data" / "pg_hba.conf"} {
    std::ifstream in{file_};
    original_.assign(std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{});
    write(content);
  }
  ~scoped_hba() {
    try {
      write(original_);
    } catch (...) {
    }
  }
  scoped_hba(const scoped_hba&) = delete;
  auto operator=(const scoped_hba&) -> scoped_hba& = delete;

 private:
  auto write(const std::string& content) -> void {
    {
      std::ofstream out{file_, std::ios::trunc};
      out << content;
    }
    pg_.reload();
  }
  replicant::test::pg_cluster& pg_;
  std::filesystem::path file_;
  std::string original_;
};

// A sink for a library-owned checkpoint: it keeps the ids it was given; the store keeps the position.
struct id_sink {
  std::mutex mutex;
  std::vector<std::string> ids;

  auto handle_transaction(const replicant::transaction& t) -> result<void> {
    const std::lock_guard lock{mutex};
    for (const auto& c : t.changes()) {
      const auto id = c.record().value("id");
      ids.push_back(id && id->holds<std::int64_t>() ? std::to_string(id->get<std::int64_t>()) : "?");
    }
    return {};
  }
  auto count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return ids.size();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(tls, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(streams_every_transaction_exactly_once_over_verified_tls) {
  fixture f;
  // A heartbeat makes the pipeline open its probe connection, which must use TLS as well.
  f.options.heartbeat_interval = 100ms;
  memory_sink sink;
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
  BOOST_TEST(wait_until([&] { return f.all_tls_with(f.application, "walsender"); }), "the replication connection");
  BOOST_TEST(wait_until([&] { return f.all_tls_with(f.application, "client backend"); }), "the probe connection");

  constexpr int half = 150;
  f.commit_each(1, half);
  BOOST_TEST_REQUIRE(wait_until([&] { return sink.snapshot().size() >= half / 3; }));
  const auto first = f.walsender_pid();
  BOOST_TEST_REQUIRE(!first.empty());
  f.terminate_walsender(first);
  f.commit_each(half + 1, half);
  BOOST_TEST_REQUIRE(wait_until([&] { return sink.snapshot().size() >= 2 * half; }));
  BOOST_TEST(exactly_once(sink.snapshot(), 2 * half));
  const auto second = f.walsender_pid();
  BOOST_TEST((!second.empty() && second != first), "the stream reconnected");
  BOOST_TEST(f.all_tls_with(f.application, "walsender"), "the reconnected stream");
  // The slot is acknowledged up to the last commit: everything delivered was made durable.
  const lsn last = sink.snapshot().back().commit;
  BOOST_TEST(wait_until([&] { return f.confirmed_flush() >= last; }));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_checkpoint_store_connects_over_verified_tls_too) {
  fixture f;
  const std::string store_db = f.pg.unique_name("store");
  const std::string store_application = f.pg.unique_name("tls_store");
  f.pg.create_database(store_db);
  using policy = replicant::lib_owned_checkpoint<replicant::postgres_checkpoint_store>;
  using lib_pipeline = replicant::pgoutput_pipeline<id_sink, policy>;
  id_sink sink;
  replicant::test::running<lib_pipeline> r{
      sink, f.pgoutput,
      policy{.store = replicant::postgres_checkpoint_store{{.conninfo = f.pg.tls_dsn(store_db) +
                                                                        " application_name=" + store_application}},
             .batch = std::nullopt,
             .max_retries = 5,
             .retry_backoff = 100ms},
      f.options};
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
  f.commit_each(1, 20);
  BOOST_TEST_REQUIRE(wait_until([&] { return sink.count() >= 20U; }));
  BOOST_TEST(f.all_tls_with(f.application, "walsender"));
  BOOST_TEST(f.all_tls_with(store_application, "client backend"), "the store's connection");
  BOOST_TEST(f.pg.scalar("SELECT count(*) FROM replicant_checkpoints", store_db) == "1");
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_certificate_another_authority_signed_halts_tls_verification_failed) {
  fixture f;
  auto o = f.options;
  o.conninfo =
      f.pg.dsn(f.db) + " sslmode=verify-full sslrootcert='" + f.pg.tls().value().other_root_certificate.string() + "'";
  event_log full;
  BOOST_TEST(halts_with(f, o, full, std::nullopt) == halt_reason::tls_verification_failed);
  BOOST_TEST(full.disconnected(halt_reason::tls_verification_failed));
  // verify-ca checks the signature as well.
  o.conninfo += " sslmode=verify-ca";
  event_log ca;
  BOOST_TEST(halts_with(f, o, ca, std::nullopt) == halt_reason::tls_verification_failed);
  BOOST_TEST(ca.disconnected(halt_reason::tls_verification_failed));
}

BOOST_AUTO_TEST_CASE(a_certificate_for_another_host_halts_tls_verification_failed) {
  fixture f;
  auto o = f.options;
  o.conninfo += " host=" + std::string{elsewhere} + " hostaddr=127.0.0.1";
  event_log events;
  BOOST_TEST(halts_with(f, o, events, std::nullopt) == halt_reason::tls_verification_failed);
  BOOST_TEST(events.disconnected(halt_reason::tls_verification_failed));
}

// The host name is checked by verify-full only: under verify-ca the same connection streams,
// which shows that the halt above is the name check and nothing else.
BOOST_AUTO_TEST_CASE(verify_ca_accepts_the_right_authority_under_another_host_name) {
  fixture f;
  f.options.conninfo += " host=" + std::string{elsewhere} + " hostaddr=127.0.0.1 sslmode=verify-ca";
  memory_sink sink;
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST(f.first_row_delivered(sink));
  BOOST_TEST(f.all_tls_with(f.application, "walsender"));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_server_without_tls_halts_tls_unavailable) {
  fixture f;
  // `ssl` is reloadable: new connections find a server that answers the TLS request with no.
  scoped_setting off{f.pg, "ssl", "off"};
  event_log events;
  BOOST_TEST(halts_with(f, f.options, events, std::nullopt) == halt_reason::tls_unavailable);
  BOOST_TEST(events.disconnected(halt_reason::tls_unavailable));
}

// A server that accepts TLS connections only (hostssl lines and nothing else) refuses a client
// that says sslmode=disable through pg_hba.conf: a refusal like any other pg_hba.conf refusal, not
// an endless retry. The same server streams to the verifying client.
BOOST_AUTO_TEST_CASE(a_server_that_requires_tls_refuses_a_plain_client_with_host_rejected) {
  fixture f;
  const scoped_hba only_tls{f.pg, "local all all trust\nhostssl all all 127.0.0.1/32 trust\n"};
  auto o = f.options;
  o.conninfo = f.pg.dsn(f.db) + " sslmode=disable";
  event_log events;
  BOOST_TEST(halts_with(f, o, events, "28000") == halt_reason::host_rejected);
  BOOST_TEST(events.disconnected(halt_reason::host_rejected));

  memory_sink sink;
  running r{sink, f.pgoutput, f.options};
  BOOST_TEST(f.first_row_delivered(sink));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // tls_tests
