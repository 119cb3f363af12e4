// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Exactly-once into Kafka, end to end, once per PostgreSQL major: replicant-kafka (examples/kafka)
// writes a busy database (support/writers/source_writer.hpp) into a three-broker cluster while the
// test kills the program with SIGKILL at random moments, takes every broker down for longer than
// the program's outage bound, and has the transaction coordinator fence the producer. Afterwards an
// independent reader (this file's own, and support/checks/change_check.hpp, sharing no code with
// the sink) reads the change topic and the checkpoint topic through librdkafka with
// isolation.level=read_committed and checks that every source change arrived, in commit order per
// table, and that every transaction has its checkpoint record.
//
// The cluster is librdkafka's mock cluster (tests/kafka_mock, hosted by replicant-kafka-mock):
// Debian packages no Kafka broker. The mock accepts the transactional protocol but does NOT filter
// aborted or open transactions from a read_committed reader, and does not fence a producer whose
// transactional.id a newer one took. So records of a transaction that a kill interrupted stay
// visible here, and the test cannot assert that a read_committed reader sees each change exactly
// once: it removes repeats by (commit LSN, index), COUNTS them and prints the count, and asserts
// that nothing is lost and that the order per table holds. What a real broker adds is stated in
// docs/scale_out.md; this sink has never run against one.
//
// Sizes (environment; defaults in brackets): REPLICANT_KAFKA_TRANSACTIONS [5000] the most writer
// transactions of the kill storm (it writes until the storm ends), REPLICANT_KAFKA_KILLS [20]
// SIGKILLs, REPLICANT_KAFKA_SEED [random] to replay.

#include <boost/test/unit_test.hpp>

#include "support/checks/change_check.hpp"
#include "support/checks/value_free_audit.hpp"
#include "support/common/required.hpp"
#include "support/common/temp_dir.hpp"
#include "support/common/time_scale.hpp"
#include "support/processes/sink_process.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/writers/background_writer.hpp"
#include "support/writers/source_writer.hpp"

#if defined(REPLICANT_HAVE_RDKAFKA)
#include <librdkafka/rdkafka.h>
#include <simdjson.h>
#endif

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_kafka_tests)

namespace {

#ifdef REPLICANT_KAFKA_BINARY
constexpr std::string_view sink_binary = REPLICANT_KAFKA_BINARY;
#else
constexpr std::string_view sink_binary;
#endif
#ifdef REPLICANT_KAFKA_MOCK_BINARY
constexpr std::string_view mock_binary = REPLICANT_KAFKA_MOCK_BINARY;
#else
constexpr std::string_view mock_binary;
#endif

// The parts this program needs besides PostgreSQL: librdkafka (the reader, the mock cluster's host)
// and the program under test. A missing one skips the program (exit 77), or fails it where every
// part is required (CI), as a missing PostgreSQL does.
struct parts_required {
  parts_required() {
    std::string missing;
#if !defined(REPLICANT_HAVE_RDKAFKA)
    missing = "librdkafka (librdkafka-dev) was not found when this test was built";
#else
    if (sink_binary.empty()) missing = "REPLICANT_KAFKA_BINARY is not defined: the build has no replicant-kafka";
    if (mock_binary.empty()) missing = "REPLICANT_KAFKA_MOCK_BINARY is not defined: the build has no mock cluster";
#endif
    if (missing.empty()) return;
    replicant::test::skip_program_or_fail(missing + " (tools/provision installs librdkafka-dev)");
  }
};

}  // namespace

// A missing Kafka part is decided before any test runs: the rest of the suite runs inside
// parts_required.
BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE(examples_kafka_tests, *boost::unit_test::fixture<parts_required>())

#if defined(REPLICANT_HAVE_RDKAFKA)

namespace {

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::test::background_writer;
using replicant::test::change_seen;
using replicant::test::live_server;
using replicant::test::poll_until;
using replicant::test::scaled;
using replicant::test::sink_process;
using replicant::test::source_writer;

// Written into some rows; must never show up in what the program prints.
constexpr std::string_view secret = "s3cr3t-kafka-7373";

constexpr int change_partitions = 3;

using replicant::test::env_number;

auto seed_from_environment() -> std::uint64_t {
  const auto s = env_number("REPLICANT_KAFKA_SEED", 0);
  return s != 0 ? s : std::random_device{}();
}

// "16/B374D848" as a number; 0 for anything else.
auto parse_lsn(std::string_view text) -> std::uint64_t {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return 0;
  try {
    return (std::stoull(std::string{text.substr(0, slash)}, nullptr, 16) << 32U) |
           std::stoull(std::string{text.substr(slash + 1)}, nullptr, 16);
  } catch (const std::exception&) {
    return 0;
  }
}

// --- the cluster: replicant-kafka-mock, driven through its stdin and stdout -------------------------

class kafka_mock {
 public:
  // Three mock brokers with @p topics ("name:partitions") made.
  explicit kafka_mock(const std::vector<std::string>& topics) {
    int in[2];
    int out[2];
    BOOST_TEST_REQUIRE(::pipe2(in, O_CLOEXEC) == 0);
    BOOST_TEST_REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    std::vector<std::string> args{std::string{mock_binary}};
    args.insert(args.end(), topics.begin(), topics.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(out[1], STDOUT_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = ::fdopen(out[0], "r");
    BOOST_TEST_REQUIRE(pid_ > 0);
    bootstrap_ = line();
    BOOST_TEST_REQUIRE(!bootstrap_.empty());
  }
  kafka_mock(const kafka_mock&) = delete;
  auto operator=(const kafka_mock&) -> kafka_mock& = delete;
  // Closing its stdin ends it.
  ~kafka_mock() {
    ::close(to_);
    if (from_ != nullptr) std::fclose(from_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

  [[nodiscard]] auto bootstrap() const -> const std::string& { return bootstrap_; }

  // One command (see tests/kafka_mock/main.cpp); @return whether it answered ok.
  auto command(const std::string& c) -> bool {
    const std::string text = c + "\n";
    if (::write(to_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) return false;
    return line() == "ok";
  }

 private:
  auto line() -> std::string {
    char buf[4096];
    if (std::fgets(buf, sizeof buf, from_) == nullptr) return {};
    std::string s{buf};
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }

  pid_t pid_ = 0;
  int to_ = -1;
  FILE* from_ = nullptr;
  std::string bootstrap_;
};

// --- the independent reader ---------------------------------------------------------------------------

// One record as the reader found it.
struct record {
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::string key;
  std::string value;
  std::uint64_t commit = 0;            // the replicant.lsn header
  std::optional<std::uint64_t> index;  // the replicant.index header
};

auto header(const rd_kafka_message_t* m, const char* name) -> std::optional<std::string> {
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(m, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR) return std::nullopt;
  const void* v = nullptr;
  std::size_t size = 0;
  if (rd_kafka_header_get_last(hdrs, name, &v, &size) != RD_KAFKA_RESP_ERR_NO_ERROR || v == nullptr) {
    return std::nullopt;
  }
  return std::string{static_cast<const char*>(v), size};
}

void quiet(const rd_kafka_t*, int, const char*, const char*) {}

// Every record of @p topic's partitions 0..@p partitions-1, each partition in offset order, read as
// a downstream consumer does: isolation.level=read_committed, from the beginning to the end.
auto read_topic(const std::string& bootstrap, const std::string& topic, int partitions) -> std::vector<record> {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "group.id", "replicant-test-reader", err, sizeof err);
  rd_kafka_conf_set(conf, "isolation.level", "read_committed", err, sizeof err);
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
  rd_kafka_conf_set(conf, "enable.partition.eof", "true", err, sizeof err);
  rd_kafka_conf_set_log_cb(conf, &quiet);
  rd_kafka_t* k = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  BOOST_TEST_REQUIRE(k != nullptr);
  rd_kafka_topic_partition_list_t* l = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p)
    rd_kafka_topic_partition_list_add(l, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  BOOST_TEST_REQUIRE(rd_kafka_assign(k, l) == RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(l);
  std::vector<record> out;
  std::set<std::int32_t> at_end;
  const auto deadline = std::chrono::steady_clock::now() + scaled(60s);
  while (static_cast<int>(at_end.size()) < partitions && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(k, 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      at_end.insert(m->partition);
    } else if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      record r;
      r.partition = m->partition;
      r.offset = m->offset;
      if (m->key != nullptr) r.key.assign(static_cast<const char*>(m->key), m->key_len);
      if (m->payload != nullptr) r.value.assign(static_cast<const char*>(m->payload), m->len);
      r.commit = parse_lsn(header(m, "replicant.lsn").value_or(""));
      if (auto i = header(m, "replicant.index")) r.index = std::stoull(*i);
      out.push_back(std::move(r));
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_destroy_flags(k, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  BOOST_TEST_REQUIRE(static_cast<int>(at_end.size()) == partitions, "the reader did not reach the end of " << topic);
  std::stable_sort(out.begin(), out.end(), [](const record& a, const record& b) {
    return a.partition != b.partition ? a.partition < b.partition : a.offset < b.offset;
  });
  return out;
}

// --- one case: a database, a slot, two topics, a cluster ------------------------------------------

struct kafka_fixture {
  kafka_fixture() {
    pg.create_database(database);
    pg.sql(replicant::test::cdc_schema_ddl("kafka_pub"), database);
  }
  ~kafka_fixture() {
    try {
      pg.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + slot +
             "' AND NOT active");
    } catch (...) {
    }
  }
  kafka_fixture(const kafka_fixture&) = delete;
  auto operator=(const kafka_fixture&) -> kafka_fixture& = delete;

  replicant::test::pg_cluster& pg = live_server();
  std::string database = pg.unique_name("kafka_db");
  std::string slot = pg.unique_name("kafka_slot");
  std::string topic = "changes-" + slot;
  std::string checkpoints = "checkpoints-" + slot;
  std::filesystem::path log = pg.directory() / (slot + ".log");
  kafka_mock cluster{{topic + ":" + std::to_string(change_partitions), checkpoints + ":1"}};

  // The program for this case, with @p extra options.
  [[nodiscard]] auto sink(const std::vector<std::string>& extra = {}) const -> sink_process {
    std::vector<std::string> args{"--dsn",
                                  pg.dsn(database),
                                  "--slot",
                                  slot,
                                  "--publication",
                                  "kafka_pub",
                                  "--brokers",
                                  cluster.bootstrap(),
                                  "--topic",
                                  topic,
                                  "--checkpoint-topic",
                                  checkpoints,
                                  "--go-forward-only",
                                  "--create-slot",
                                  "--request-timeout-ms",
                                  "5000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return sink_process{std::string{sink_binary}, "replicant-kafka", std::move(args), log};
  }

  auto slot_active() -> bool {
    return pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active") == "1";
  }

  auto confirmed_flush() -> std::uint64_t {
    return parse_lsn(
        pg.scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"));
  }

  // The highest commit LSN in the checkpoint topic, or 0.
  auto last_checkpoint() -> std::uint64_t {
    std::uint64_t last = 0;
    for (const auto& r : read_topic(cluster.bootstrap(), checkpoints, 1)) last = std::max(last, r.commit);
    return last;
  }

  // Commits one more transaction and waits until its checkpoint record is in the topic. @p stall
  // bounds the time without progress, not the whole wait.
  auto catch_up(source_writer& w, std::chrono::seconds stall) -> bool {
    const auto before = parse_lsn(pg.scalar("SELECT pg_current_wal_lsn()", database));
    if (!w.commit_next()) return false;
    auto progress = last_checkpoint();
    auto deadline = std::chrono::steady_clock::now() + scaled(stall);
    while (std::chrono::steady_clock::now() < deadline) {
      const auto now = last_checkpoint();
      if (now > before) return true;
      if (now > progress) {
        progress = now;
        deadline = std::chrono::steady_clock::now() + scaled(stall);
      }
      std::this_thread::sleep_for(200ms);
    }
    return last_checkpoint() > before;
  }

  // Reads both topics and checks them against the source. Repeats (records of a transaction whose
  // Kafka transaction a kill or a fault interrupted, which the mock does not hide) are removed by
  // (commit LSN, index) and counted; @return that count.
  auto check(const source_writer& w, std::string_view scenario, int kills) -> std::uint64_t {
    const auto changes_read = read_topic(cluster.bootstrap(), topic, change_partitions);
    const auto checkpoints_read = read_topic(cluster.bootstrap(), checkpoints, 1);
    simdjson::dom::parser parser;
    // Per table, in partition order, the first sighting of each (commit, index).
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    std::map<std::uint64_t, std::uint64_t> per_transaction;  // commit -> changes
    std::vector<change_seen> parsed;
    parsed.reserve(changes_read.size());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> order;  // (commit, index) of parsed
    std::uint64_t repeats = 0;
    std::uint64_t unreadable = 0;
    std::uint64_t wrong_keys = 0;
    for (const auto& r : changes_read) {
      if (r.commit == 0 || !r.index) {
        ++unreadable;
        continue;
      }
      if (!seen.emplace(r.commit, *r.index).second) {
        ++repeats;
        continue;
      }
      ++per_transaction[r.commit];
      auto c = replicant::test::parse_change(r.value, topic, parser);
      if (!c) {
        ++unreadable;
        continue;
      }
      if (r.key != c->schema + "." + c->table) ++wrong_keys;
      parsed.push_back(std::move(*c));
      order.emplace_back(r.commit, *r.index);
    }
    // Commit order per table: a table's records share a partition; within it the first sightings
    // must go by (commit, index).
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> per_table;
    for (std::size_t i = 0; i < parsed.size(); ++i) per_table[parsed[i].table].push_back(order[i]);
    std::uint64_t out_of_order = 0;
    for (const auto& [table, seq] : per_table) {
      if (!std::is_sorted(seq.begin(), seq.end())) ++out_of_order;
    }
    // The reader applies the transactions in commit order.
    std::vector<std::size_t> by_commit(parsed.size());
    for (std::size_t i = 0; i < by_commit.size(); ++i) by_commit[i] = i;
    std::stable_sort(by_commit.begin(), by_commit.end(),
                     [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
    std::vector<const change_seen*> applied;
    for (const auto i : by_commit) applied.push_back(&parsed[i]);
    // Every transaction has a checkpoint record that counts its changes.
    std::map<std::uint64_t, std::uint64_t> checkpointed;  // commit -> changes it says
    std::uint64_t checkpoint_repeats = 0;
    for (const auto& r : checkpoints_read) {
      if (r.key != slot) continue;
      simdjson::dom::element doc;
      std::int64_t n = -1;
      if (parser.parse(simdjson::padded_string{r.value}).get(doc) == simdjson::SUCCESS) {
        if (doc["changes"].get(n) != simdjson::SUCCESS) n = -1;
      }
      if (!checkpointed.emplace(r.commit, static_cast<std::uint64_t>(n)).second) ++checkpoint_repeats;
    }
    std::uint64_t without_checkpoint = 0;
    std::uint64_t miscounted = 0;
    for (const auto& [commit, n] : per_transaction) {
      const auto it = checkpointed.find(commit);
      if (it == checkpointed.end()) {
        ++without_checkpoint;
      } else if (it->second != n) {
        ++miscounted;
      }
    }
    std::cout << "kafka: pg" << pg.major() << " " << scenario << ": transactions=" << w.committed()
              << " kills=" << kills << " change records=" << changes_read.size()
              << " transactions in the topic=" << per_transaction.size() << " repeated records=" << repeats
              << " repeated checkpoint records=" << checkpoint_repeats
              << " (the mock cluster does not hide aborted transactions)" << std::endl;
    BOOST_TEST(unreadable == 0U);
    BOOST_TEST(wrong_keys == 0U);
    BOOST_TEST(out_of_order == 0U);
    BOOST_TEST(without_checkpoint == 0U);
    BOOST_TEST(miscounted == 0U);
    replicant::test::check_against_source(applied, pg, database, w.committed());
    return repeats;
  }
};

// Starts @p m and waits until its slot streams.
void start_streaming(kafka_fixture& f, sink_process& m) {
  m.start();
  BOOST_TEST_REQUIRE(poll_until([&] { return f.slot_active(); }, scaled(60s)));
}

void write_transactions(source_writer& w, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) BOOST_TEST_REQUIRE(w.commit_next());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kafka)

// A clean run: every source change once, in commit order per table, each transaction with its
// checkpoint record; then a restart resumes from the checkpoint topic and writes nothing twice.
BOOST_AUTO_TEST_CASE(a_clean_run_writes_every_change_once) {
  kafka_fixture f;
  auto m = f.sink();
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  write_transactions(w, 40);
  BOOST_TEST(f.catch_up(w, 60s));
  BOOST_TEST(m.stop() == 0);
  start_streaming(f, m);  // resumes from the checkpoint topic
  write_transactions(w, 20);
  BOOST_TEST(f.catch_up(w, 60s));
  BOOST_TEST(m.stop() == 0);
  // Nothing was interrupted: no repeats, even on the mock.
  BOOST_TEST(f.check(w, "a clean run", 0) == 0U);
  BOOST_TEST(m.output().find(secret) == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

// The sink's kill storm and the broker's faults do not depend on the PostgreSQL major.
BOOST_AUTO_TEST_SUITE(kafka_broker, *utf::precondition(replicant::test::broker_cases_here{"REPLICANT_KAFKA_ALL_CASES"}))

// SIGKILL at random moments (20, within 50 s at most) while a writer commits: nothing is lost,
// every transaction has its checkpoint record. Repeats are counted, not asserted away (see the top).
// Each run is killed only once it has committed something, or after 15 s without: a restart
// (PostgreSQL freeing the slot, a new transactional producer, the checkpoint read) takes a while,
// and kills that always came before it would test nothing.
BOOST_AUTO_TEST_CASE(random_kills_lose_nothing) {
  const auto seed = seed_from_environment();
  kafka_fixture f;
  std::cout << "kafka: pg" << f.pg.major() << " kill storm, seed " << seed << std::endl;
  auto m = f.sink();
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed, std::string{secret}};
  const auto cap = env_number("REPLICANT_KAFKA_TRANSACTIONS", 5000);
  const int wanted_kills = static_cast<int>(env_number("REPLICANT_KAFKA_KILLS", 20));
  // Going on until the storm ends (at most `cap` transactions), paced so that the program is busy
  // most of the time: then a kill usually interrupts a Kafka transaction.
  std::atomic<bool> storm_over{false};
  background_writer writer{cap, [&w, &storm_over](std::uint64_t) {
                             if (storm_over.load()) return true;
                             std::this_thread::sleep_for(30ms);
                             return w.commit_next();
                           }};
  std::mt19937_64 rng{seed ^ 0x9e3779b97f4a7c15ULL};
  int kills = 0;
  int unexpected_exits = 0;
  std::uint64_t mid_stream = 0;
  std::uint64_t last_seen = 0;
  const auto storm_end = std::chrono::steady_clock::now() + 50s;
  while (kills < wanted_kills && std::chrono::steady_clock::now() < storm_end) {
    if (poll_until(
            [&] {
              const auto now = f.last_checkpoint();
              if (now <= last_seen) return false;
              last_seen = now;
              return true;
            },
            scaled(15s))) {
      ++mid_stream;  // this run committed something before its kill
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{std::uniform_int_distribution<int>{0, 500}(rng)} *
                                replicant::test::time_scale());
    if (!m.running()) ++unexpected_exits;
    m.kill();
    ++kills;
    m.start();
  }
  storm_over = true;
  BOOST_TEST_REQUIRE(writer.join());
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.stop() == 0);
  BOOST_TEST(unexpected_exits == 0);
  BOOST_TEST(kills >= wanted_kills / 2, "only " << kills << " kills within the storm's minute");
  BOOST_TEST(mid_stream >= static_cast<std::uint64_t>(kills) / 2,
             "only " << mid_stream << " of " << kills << " runs committed anything before their kill");
  std::cout << "kafka: pg" << f.pg.major() << " kill storm: " << mid_stream << " of " << kills
            << " runs committed before their kill" << std::endl;
  static_cast<void>(f.check(w, "random SIGKILLs", kills));
  BOOST_TEST(m.output().find(secret) == std::string::npos);
}

// Every broker down for longer than --max-outage-s: the program halts with exit status 1 and
// fixed text, and acknowledges nothing past the last transaction it committed (the slot's
// confirmed_flush_lsn stays below the first transaction of the outage). With the brokers back, a
// new run writes what the outage held up, and nothing is lost.
BOOST_AUTO_TEST_CASE(every_broker_down_longer_than_the_bound_halts) {
  kafka_fixture f;
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  {
    // A first run with the default bounds, so that a slow start cannot count as an outage.
    auto first = f.sink();
    start_streaming(f, first);
    write_transactions(w, 10);
    BOOST_TEST_REQUIRE(f.catch_up(w, 60s), "what the program printed:\n" << first.output());
    BOOST_TEST_REQUIRE(first.stop() == 0);
  }
  auto m = f.sink({"--max-outage-s", "4", "--request-timeout-ms", "1500"});
  start_streaming(f, m);
  write_transactions(w, 5);
  BOOST_TEST_REQUIRE(f.catch_up(w, 60s), "what the program printed:\n" << m.output());
  // Every transaction from here on commits after this position.
  const auto before_outage = parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()", f.database));
  const auto committed_before = f.last_checkpoint();
  BOOST_TEST_REQUIRE(f.cluster.command("down all"));
  write_transactions(w, 10);
  BOOST_TEST(m.wait_exit(90s) == 1);
  BOOST_TEST(m.output().find("stayed unavailable for longer than --max-outage-s") != std::string::npos,
             "what the program printed:\n"
                 << m.output());
  BOOST_TEST(f.confirmed_flush() <= before_outage, "the slot was acknowledged past the outage");
  BOOST_TEST_REQUIRE(f.cluster.command("up all"));
  // Nothing of the outage's transactions was committed.
  BOOST_TEST(f.last_checkpoint() == committed_before);
  auto again = f.sink();
  start_streaming(f, again);
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(again.stop() == 0);
  static_cast<void>(f.check(w, "every broker down, then up", 0));
  BOOST_TEST(m.output().find(secret) == std::string::npos);
}

// The transaction coordinator answers a commit with INVALID_PRODUCER_EPOCH, as a broker does when
// a newer producer took the slot's transactional.id (the mock does not fence by itself, so the
// answer is injected): librdkafka makes that fatal, and the program exits 1 naming the fencing,
// with nothing of the failed transaction acknowledged. A new run then loses nothing.
BOOST_AUTO_TEST_CASE(a_fenced_producer_halts) {
  kafka_fixture f;
  auto m = f.sink();
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  write_transactions(w, 10);
  BOOST_TEST_REQUIRE(f.catch_up(w, 60s));
  const auto before_fault = parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()", f.database));
  BOOST_TEST_REQUIRE(f.cluster.command("fail 26 47 1"));  // EndTxn: INVALID_PRODUCER_EPOCH
  write_transactions(w, 5);
  BOOST_TEST(m.wait_exit(60s) == 1);
  BOOST_TEST(m.output().find("the producer was fenced") != std::string::npos, "what the program printed:\n"
                                                                                  << m.output());
  BOOST_TEST(f.confirmed_flush() <= before_fault, "the slot was acknowledged past the failed commit");
  auto again = f.sink();
  start_streaming(f, again);
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(again.stop() == 0);
  static_cast<void>(f.check(w, "a fenced producer, then a new run", 0));
  BOOST_TEST(m.output().find(secret) == std::string::npos);
}

// librdkafka properties pass through (-X and --properties-file) to the producer and the checkpoint
// reader, and no value of theirs is ever printed. The mock cluster has no SASL or SSL listener, so
// the proof that they reach librdkafka is a protocol it cannot speak: with SASL asked for, the same
// program that streamed before finds no broker it can use, and gives up after --max-outage-s. Two
// passwords are planted (one in the file, one on the command line) with librdkafka's debug logging
// on, and every output of every run is searched for them; the suite-wide audit searches again.
BOOST_AUTO_TEST_CASE(librdkafka_properties_pass_through_and_are_never_printed) {
  kafka_fixture f;
  const std::string file_password = "s3cr3t-sasl-file-2929";
  const std::string command_line_password = "s3cr3t-sasl-cli-3838";
  const auto properties = f.pg.directory() / (f.slot + ".properties");
  {
    std::ofstream out{properties};
    out << "# what a SASL cluster asks for\n\n  sasl.username = replicant\nsasl.password=" << file_password
        << "\r\nclient.rack=r1\n";
  }
  const std::vector<std::string> secrets{
      "--properties-file", properties.string(), "-X", "debug=all", "-X", "sasl.password=" + command_line_password};
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  auto m = f.sink(secrets);
  start_streaming(f, m);
  write_transactions(w, 10);
  BOOST_TEST_REQUIRE(f.catch_up(w, 60s), "what the program printed:\n" << m.output());
  BOOST_TEST(m.stop() == 0);
  auto sasl = secrets;
  sasl.insert(sasl.end(), {"-X", "security.protocol=SASL_PLAINTEXT", "--property", "sasl.mechanism=PLAIN",
                           "--max-outage-s", "3", "--request-timeout-ms", "1500"});
  auto refused = f.sink(sasl);
  refused.start();
  BOOST_TEST(refused.wait_exit(60s) == 1);
  BOOST_TEST(refused.output().find("stayed unavailable for longer than --max-outage-s") != std::string::npos);
  // A property librdkafka does not take is refused before anything connects, by where it was given.
  auto unknown = f.sink({"-X", "sasl.pasword=" + command_line_password});
  unknown.start();
  BOOST_TEST(unknown.wait_exit(30s) == 2);
  BOOST_TEST(unknown.output().find("-X number 1 is not a property librdkafka takes") != std::string::npos);
  for (const auto* p : {&m, &refused, &unknown}) {
    const auto out = p->output();
    BOOST_TEST(out.find(file_password) == std::string::npos);
    BOOST_TEST(out.find(command_line_password) == std::string::npos);
    BOOST_TEST(out.find("replicant-kafka: ") != std::string::npos);  // it did say something
  }
  static_cast<void>(f.check(w, "librdkafka properties", 0));
}

BOOST_AUTO_TEST_SUITE_END()

#else  // no librdkafka: parts_required() ended the program before any test could run

BOOST_AUTO_TEST_CASE(unreachable) { BOOST_TEST(false); }

#endif

BOOST_AUTO_TEST_SUITE_END()  // examples_kafka_tests
