// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Exactly-once into NATS JetStream, end to end, once per PostgreSQL major: replicant-jetstream
// (examples/jetstream) publishes a busy database into a stream replicated three times (R3) on a real
// three-node JetStream cluster that the test starts on loopback (support/server/nats_cluster.hpp),
// while the test kills the program with SIGKILL at random moments, kills NATS nodes (one, the
// stream's leader, all of them), crashes PostgreSQL, and makes the broker refuse (the stream
// missing, permission denied, the stream full, no quorum). Afterwards an independent reader (this
// file's own, sharing no code with the sink) reads the whole stream through an ordered consumer,
// honours the commit markers as docs/scale_out.md's reader rules say, and checks that every source
// change arrived exactly once and in commit order per table:
//
//   txlog     every writer transaction inserts its own id: the reader finds 1..N, each once, in order
//   counters  an update adds 1 to v: per key, the reader finds v = 1, 2, 3 ... up to the source's value
//   events    the inserts (txn, n): the reader finds the source's rows, each once, in (txn, n) order
//   scratch   a second connection's inserts, deletes, 300-row and rolled-back transactions: replayed,
//             the source's rows (support/writers/source_writer.hpp's scratch_writer)
//
// Before the reader's rules, the stream itself is counted: no message id twice, every marker after
// each of its transaction's changes once, no change without a marker; and the reader must then skip
// no repeat and drop no partial transaction. Suite exactly_once_count feeds that count hand-made
// streams holding a duplicate or an unmarked transaction, so it is shown to fail on them.
//
// The kill storm and the PostgreSQL crash run on every major. The broker's cases (suite
// jetstream_broker: nodes, the cluster, the faults) do not depend on PostgreSQL's version and spend
// their time waiting out leader elections, so they run on PostgreSQL 17 only, unless
// REPLICANT_JETSTREAM_ALL_CASES=1 (tools/soak) asks for them on every major.
//
// Sizes (environment; defaults in brackets, what CI runs; tools/soak runs 10,000 and 20):
// REPLICANT_JETSTREAM_TRANSACTIONS [600] writer transactions of the kill storm (the other cases a
// third each; the second connection a quarter of the writer's), REPLICANT_JETSTREAM_KILLS [6] SIGKILLs at least,
// REPLICANT_JETSTREAM_SEED [random] to replay.

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

#if defined(REPLICANT_HAVE_NATS)
#include "support/server/nats_cluster.hpp"

#include <simdjson.h>
#endif

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_jetstream_tests)

namespace {

#ifdef REPLICANT_JETSTREAM_BINARY
constexpr std::string_view sink_binary = REPLICANT_JETSTREAM_BINARY;
#else
constexpr std::string_view sink_binary;
#endif

// The parts this program needs besides PostgreSQL: nats.c (to build the reader), the program under
// test, and nats-server. A missing one skips the program (exit 77), or fails it where every part is
// required (CI), as a missing PostgreSQL does.
struct parts_required {
  parts_required() {
    std::string missing;
#if !defined(REPLICANT_HAVE_NATS)
    missing = "nats.c (libnats-dev) was not found when this test was built";
#else
    if (sink_binary.empty())
      missing = "REPLICANT_JETSTREAM_BINARY is not defined: the build has no replicant-jetstream";
    else if (!replicant::test::nats_server_binary())
      missing = "nats-server is not installed";
#endif
    if (missing.empty()) return;
    replicant::test::skip_program_or_fail(missing + " (tools/provision installs it)");
  }
};

}  // namespace

// A missing NATS part is decided before any test runs: the rest of the suite runs inside
// parts_required.
BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE(examples_jetstream_tests, *boost::unit_test::fixture<parts_required>())

#if defined(REPLICANT_HAVE_NATS)

namespace {

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::test::background_writer;
using replicant::test::change_seen;
using replicant::test::live_nats;
using replicant::test::live_server;
using replicant::test::nats_cluster;
using replicant::test::pg_connection;
using replicant::test::scaled;
using replicant::test::scratch_writer;
using replicant::test::sink_process;
using replicant::test::source_writer;
using replicant::test::wait_until;

// Written into some rows; must never show up in what the program prints.
constexpr std::string_view secret = "s3cr3t-jetstream-5151";

using replicant::test::env_number;

auto seed_from_environment() -> std::uint64_t {
  const auto s = env_number("REPLICANT_JETSTREAM_SEED", 0);
  return s != 0 ? s : std::random_device{}();
}

auto storm_transactions() -> std::uint64_t { return env_number("REPLICANT_JETSTREAM_TRANSACTIONS", 600); }
auto storm_kills() -> int { return static_cast<int>(env_number("REPLICANT_JETSTREAM_KILLS", 6)); }
// The broker cases: a third of the storm's transactions, at least 60.
auto case_transactions() -> std::uint64_t { return std::max<std::uint64_t>(storm_transactions() / 3, 60); }

// "16/B374D848" as a number; 0 for anything else.
auto parse_lsn(std::string_view text) -> std::uint64_t {
  const auto at = replicant::parse_lsn(text);
  return at ? at->value() : 0;
}

// --- the broker, through nats.c ------------------------------------------------------------------

// One message of the stream as the reader sees it.
struct stored_message {
  std::uint64_t sequence = 0;
  std::string subject;
  std::string id;  // Nats-Msg-Id
  std::string body;
};

// A connection to the test's cluster: streams made and read, leaders found.
class broker {
 public:
  explicit broker(const nats_cluster& cluster) {
    natsOptions* opts = nullptr;
    BOOST_TEST_REQUIRE(natsOptions_Create(&opts) == NATS_OK);
    BOOST_TEST_REQUIRE(cluster.configure(opts) == NATS_OK);
    natsOptions_SetMaxReconnect(opts, -1);
    natsOptions_SetReconnectWait(opts, 100);
    const natsStatus s = natsConnection_Connect(&nc_, opts);
    natsOptions_Destroy(opts);
    BOOST_TEST_REQUIRE(s == NATS_OK);
    BOOST_TEST_REQUIRE(natsConnection_JetStream(&js_, nc_, nullptr) == NATS_OK);
  }
  broker(const broker&) = delete;
  auto operator=(const broker&) -> broker& = delete;
  ~broker() {
    jsCtx_Destroy(js_);
    natsConnection_Destroy(nc_);
  }

  // A stream as replicant-jetstream needs it (limits retention, discard new), replicated three
  // times, on the subjects under @p prefix; @p max_bytes limits its size (-1: none). Retried while
  // the cluster settles.
  void create_stream(const std::string& name, const std::string& prefix, std::int64_t max_bytes = -1) {
    const std::string subjects = prefix + ".>";
    const char* list[] = {subjects.c_str()};
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = name.c_str();
    cfg.Subjects = list;
    cfg.SubjectsLen = 1;
    cfg.Retention = js_LimitsPolicy;
    cfg.Discard = js_DiscardNew;
    cfg.Storage = js_FileStorage;
    cfg.Replicas = 3;
    cfg.MaxBytes = max_bytes;
    cfg.Duplicates = std::chrono::nanoseconds{120s}.count();
    BOOST_TEST_REQUIRE(replicant::test::add_stream_when_settled(js_, cfg, scaled(60s)));
  }

  // Raises the byte limit of stream @p name.
  void set_max_bytes(const std::string& name, std::int64_t max_bytes) {
    jsStreamInfo* info = nullptr;
    BOOST_TEST_REQUIRE(js_GetStreamInfo(&info, js_, name.c_str(), nullptr, nullptr) == NATS_OK);
    info->Config->MaxBytes = max_bytes;
    jsStreamInfo* updated = nullptr;
    const natsStatus s = js_UpdateStream(&updated, js_, info->Config, nullptr, nullptr);
    jsStreamInfo_Destroy(updated);
    jsStreamInfo_Destroy(info);
    BOOST_TEST_REQUIRE(s == NATS_OK);
  }

  // The index of the node that leads stream @p name, when it has a leader.
  auto leader(const std::string& name) -> std::optional<int> {
    jsStreamInfo* info = nullptr;
    std::optional<int> out;
    if (js_GetStreamInfo(&info, js_, name.c_str(), nullptr, nullptr) == NATS_OK && info->Cluster != nullptr &&
        info->Cluster->Leader != nullptr) {
      for (int i = 0; i < nats_cluster::size; ++i) {
        if (nats_cluster::node_name(i) == info->Cluster->Leader) out = i;
      }
    }
    jsStreamInfo_Destroy(info);
    return out;
  }

  // Whether stream @p name is replicated three times, keeps messages by limits and discards new ones.
  auto replicated_discarding_new(const std::string& name) -> bool {
    jsStreamInfo* info = nullptr;
    bool ok = false;
    if (js_GetStreamInfo(&info, js_, name.c_str(), nullptr, nullptr) == NATS_OK) {
      ok = info->Config->Replicas == 3 && info->Config->Retention == js_LimitsPolicy &&
           info->Config->Discard == js_DiscardNew && info->Config->Storage == js_FileStorage;
    }
    jsStreamInfo_Destroy(info);
    return ok;
  }

  // The stream's last sequence, or nothing while it cannot say.
  auto last_sequence(const std::string& name) -> std::optional<std::uint64_t> {
    const auto state = replicant::test::stream_state_of(js_, name);
    return state ? std::optional{state->last_sequence} : std::nullopt;
  }

  // The commit LSN in the id of the last message on @p subject (the last marker), or 0.
  auto last_marker(const std::string& name, const std::string& subject) -> std::uint64_t {
    return replicant::test::last_marker_position(js_, name, subject);
  }

  // Debugging aid: prints the first @p n messages of stream @p name as stored (ids, never bodies).
  void dump(const std::string& name, std::uint64_t n) {
    for (std::uint64_t q = 1; q <= n; ++q) {
      natsMsg* m = nullptr;
      if (js_GetMsg(&m, js_, name.c_str(), q, nullptr, nullptr) != NATS_OK) continue;
      const char* id = nullptr;
      natsMsgHeader_Get(m, "Nats-Msg-Id", &id);
      std::cout << "jetstream: stored " << q << ": " << natsMsg_GetSubject(m) << " " << (id != nullptr ? id : "-")
                << std::endl;
      natsMsg_Destroy(m);
    }
  }

  // Every message of stream @p name, in stream order, through an ordered consumer (the way a
  // downstream reader consumes it), up to the last one its leader holds once the reading ends. A
  // consumer can stall while a cluster that was wholly down settles its leaders; the reader then
  // subscribes again from the next sequence, as a downstream reader would, until a deadline.
  auto read_all(const std::string& name, const std::string& prefix) -> std::vector<stored_message> {
    std::vector<stored_message> out;
    const auto deadline = std::chrono::steady_clock::now() + scaled(120s);
    for (;;) {
      std::optional<std::uint64_t> last;
      BOOST_TEST_REQUIRE(wait_until([&] { return (last = last_sequence(name)).has_value(); }, 60s));
      const std::uint64_t read = out.empty() ? 0 : out.back().sequence;
      if (read >= *last) break;  // the leader holds nothing this reading has not
      BOOST_TEST_REQUIRE((std::chrono::steady_clock::now() < deadline), "the reader did not reach sequence " << *last);
      if (read_from(name, prefix, read + 1, *last, out)) continue;
      // Not at once again: a subscription the cluster refuses fails at once, and would spin.
      std::cout << "jetstream: reader: stalled after " << (out.empty() ? 0 : out.back().sequence) << std::endl;
      std::this_thread::sleep_for(1s);
    }
    return out;
  }

  // Appends to @p out the messages of stream @p name from sequence @p from up to @p last, through
  // one ordered consumer. False when the subscription could not be made or went quiet first.
  auto read_from(const std::string& name, const std::string& prefix, std::uint64_t from, std::uint64_t last,
                 std::vector<stored_message>& out) -> bool {
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = name.c_str();
    so.Ordered = true;
    so.Config.DeliverPolicy = js_DeliverByStartSequence;
    so.Config.OptStartSeq = from;
    natsSubscription* sub = nullptr;
    const std::string filter = prefix + ".>";
    if (js_SubscribeSync(&sub, js_, filter.c_str(), nullptr, &so, nullptr) != NATS_OK) return false;
    while (out.empty() || out.back().sequence < last) {
      natsMsg* m = nullptr;
      if (natsSubscription_NextMsg(&m, sub, 10'000 * replicant::test::time_scale()) != NATS_OK) break;
      append(m, out);
      natsMsg_Destroy(m);
    }
    natsSubscription_Unsubscribe(sub);
    natsSubscription_Destroy(sub);
    return !out.empty() && out.back().sequence >= last;
  }

  // Appends message @p m, as stored, to @p out; says so when the stream's sequence skips.
  static void append(natsMsg* m, std::vector<stored_message>& out) {
    jsMsgMetaData* meta = nullptr;
    if (natsMsg_GetMetaData(&meta, m) != NATS_OK) return;
    if (!out.empty() && meta->Sequence.Stream != out.back().sequence + 1) {
      std::cout << "jetstream: reader: sequence " << meta->Sequence.Stream << " after " << out.back().sequence
                << std::endl;
    }
    stored_message s;
    s.sequence = meta->Sequence.Stream;
    s.subject = natsMsg_GetSubject(m);
    const char* id = nullptr;
    if (natsMsgHeader_Get(m, "Nats-Msg-Id", &id) == NATS_OK && id != nullptr) s.id = id;
    s.body.assign(natsMsg_GetData(m), static_cast<std::size_t>(natsMsg_GetDataLength(m)));
    out.push_back(std::move(s));
    jsMsgMetaData_Destroy(meta);
  }

 private:
  natsConnection* nc_ = nullptr;
  jsCtx* js_ = nullptr;
};

// --- the independent reader ---------------------------------------------------------------------------

// A transaction the reader counts: its marker arrived, after every change of it.
struct transaction_seen {
  std::uint64_t commit = 0;
  std::vector<change_seen> changes;
};

// What the reader made of the stream.
struct reading {
  std::vector<transaction_seen> transactions;
  std::uint64_t repeats_skipped = 0;    // messages of a transaction already counted or begun
  std::uint64_t partial_dropped = 0;    // transactions begun, never ended, followed by another
  std::uint64_t unfinished_at_end = 0;  // changes after the last marker (a run still going, or cut)
  std::uint64_t violations = 0;         // what the rules say can never happen: a gap, a marker early
  std::uint64_t cut_at_head = 0;        // messages before the first marker of a stream read from past 1
};

// The subject the sink must use for a table (docs/scale_out.md): every byte outside A-Z a-z 0-9 _ -
// as %XX. Written here again on purpose: the reader shares no code with the sink.
auto expected_token(std::string_view name) -> std::string {
  std::string out;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '_' || c == '-') {
      out.push_back(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      out += buf;
    }
  }
  return out;
}

// The reader rules of docs/scale_out.md, over the stream in order:
//   1. a change belongs to the transaction of its id's commit LSN, at its id's index;
//   2. a transaction counts once its marker arrives, with exactly the changes 0..n-1 before it;
//   3. anything at or before the last counted marker is a repeat, and is skipped; so is an index
//      already taken of the transaction begun;
//   4. changes of a transaction that are followed by another transaction's messages before their
//      marker were left by a crash: they are dropped (the transaction comes again, whole);
//   5. changes after the last marker are not counted yet;
//   6. a stream that no longer starts at sequence 1 (its oldest messages were removed) is read from
//      its first marker on: what comes before it may be a transaction cut at the head.
auto read_with_markers(const std::vector<stored_message>& stream, const std::string& marker_subject) -> reading {
  reading r;
  bool at_head = !stream.empty() && stream.front().sequence > 1;
  simdjson::dom::parser parser;
  std::uint64_t last = 0;
  bool any = false;
  struct open_transaction {
    std::uint64_t commit = 0;
    std::uint64_t next = 0;
    std::vector<change_seen> changes;
  };
  std::optional<open_transaction> open;
  for (const auto& m : stream) {
    const auto colon = m.id.rfind(':');
    if (colon == std::string::npos) {
      ++r.violations;
      continue;
    }
    const std::uint64_t commit = parse_lsn(std::string_view{m.id}.substr(0, colon));
    const std::uint64_t index = std::stoull(m.id.substr(colon + 1));
    if (at_head) {
      ++r.cut_at_head;
      if (m.subject == marker_subject) {
        at_head = false;
        last = commit;
        any = true;
      }
      continue;
    }
    if (any && commit <= last) {
      ++r.repeats_skipped;
      continue;
    }
    if (m.subject == marker_subject) {
      if (open && open->commit != commit) {
        ++r.partial_dropped;
        open.reset();
      }
      const std::uint64_t have = open ? open->next : 0;
      if (have != index) {
        ++r.violations;  // a marker ahead of a change of its own transaction
        std::cout << "jetstream: reader: a marker early at sequence " << m.sequence << " (id " << m.id << ", " << have
                  << " changes before it)" << std::endl;
      } else {
        r.transactions.push_back(
            transaction_seen{commit, open ? std::move(open->changes) : std::vector<change_seen>{}});
      }
      open.reset();
      last = commit;
      any = true;
      continue;
    }
    if (open && open->commit != commit) {
      ++r.partial_dropped;
      open.reset();
    }
    if (!open) open = open_transaction{commit, 0, {}};
    if (index < open->next) {
      ++r.repeats_skipped;
      continue;
    }
    if (index > open->next) {
      ++r.violations;  // a gap inside a transaction
      std::cout << "jetstream: reader: a gap at sequence " << m.sequence << " (id " << m.id << ", expected index "
                << open->next << ")" << std::endl;
      continue;
    }
    auto c = replicant::test::parse_change(m.body, m.subject, parser);
    if (!c) {
      ++r.violations;
      continue;
    }
    open->changes.push_back(std::move(*c));
    ++open->next;
  }
  if (open) r.unfinished_at_end = open->changes.size();
  return r;
}

// What the stream itself holds, before any reader rule: the design says it never holds a message
// twice (the sequence chain stores each message only right after its predecessor), and never a
// marker before every change of its transaction.
struct stream_counts {
  std::uint64_t markers = 0;
  std::uint64_t ids_twice = 0;       // a message id stored more than once
  std::uint64_t incomplete = 0;      // a marker not preceded by its transaction's changes 0..n-1, each once
  std::uint64_t without_marker = 0;  // changes of a transaction whose marker is not in the stream
};

auto count_stream(const std::vector<stored_message>& stream, const std::string& marker_subject) -> stream_counts {
  stream_counts c;
  std::set<std::string> ids;
  std::map<std::uint64_t, std::set<std::uint64_t>> changes;  // commit -> indexes stored before its marker
  std::set<std::uint64_t> marked;
  for (const auto& m : stream) {
    if (!ids.insert(m.id).second) ++c.ids_twice;
    const auto colon = m.id.rfind(':');
    if (colon == std::string::npos) continue;  // the reader counts it as a violation
    const std::uint64_t commit = parse_lsn(std::string_view{m.id}.substr(0, colon));
    const std::uint64_t index = std::stoull(m.id.substr(colon + 1));
    if (m.subject != marker_subject) {
      changes[commit].insert(index);
      continue;
    }
    ++c.markers;
    const auto& have = changes[commit];
    if (have.size() != index || (index > 0 && *have.rbegin() != index - 1)) ++c.incomplete;
    marked.insert(commit);
  }
  for (const auto& [commit, indexes] : changes) {
    if (!marked.contains(commit)) c.without_marker += indexes.size();
  }
  return c;
}

// The conditions of exactly-once that check() asserts on @p r (the reader's rules) and @p stored (the
// stream itself), each one broken named; none when the stream holds every transaction once. With
// @p head_removed, the broker may have cut a transaction at the stream's head: what that leaves
// incomplete and unmarked is not counted against it.
auto exactly_once_breaches(const reading& r, const stream_counts& stored, bool head_removed)
    -> std::vector<std::string> {
  std::vector<std::string> out;
  const auto require = [&out](bool holds, std::string_view what, std::uint64_t value) {
    if (!holds) out.push_back(std::string{what} + " (" + std::to_string(value) + ")");
  };
  require(r.violations == 0, "the reader met what its rules say cannot happen", r.violations);
  require(stored.ids_twice == 0, "a message id is stored twice", stored.ids_twice);
  require(r.repeats_skipped == 0, "the reader skipped repeats", r.repeats_skipped);
  require(r.unfinished_at_end == 0, "changes after the last marker", r.unfinished_at_end);
  if (head_removed) return out;
  require(stored.markers == r.transactions.size(), "markers stored that the reader did not count", stored.markers);
  require(stored.incomplete == 0, "a marker without each of its changes once before it", stored.incomplete);
  require(stored.without_marker == 0, "changes whose transaction has no marker", stored.without_marker);
  require(r.partial_dropped == 0, "the reader dropped partial transactions", r.partial_dropped);
  return out;
}

// --- one case: a database, a slot, a stream --------------------------------------------------------

struct jetstream_fixture {
  explicit jetstream_fixture(std::string_view prefix_root = "cdc", nats_cluster& cluster = live_nats())
      : nats(cluster), prefix(std::string{prefix_root} + "." + slot) {
    pg.create_database(database);
    pg.sql(replicant::test::cdc_schema_ddl("js_pub"), database);
  }
  ~jetstream_fixture() {
    try {
      pg.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + slot +
             "' AND NOT active");
    } catch (...) {
    }
  }
  jetstream_fixture(const jetstream_fixture&) = delete;
  auto operator=(const jetstream_fixture&) -> jetstream_fixture& = delete;

  replicant::test::pg_cluster& pg = live_server();
  nats_cluster& nats;
  std::string database = pg.unique_name("js_db");
  std::string slot = pg.unique_name("js_slot");
  std::string stream = "S_" + slot;
  std::string prefix;
  std::string markers = prefix + ".commit";
  std::filesystem::path log = pg.directory() / (slot + ".log");
  broker client{nats};
  // The commit position of the last marker catch_up() saw in the stream: the reading must hold it.
  std::uint64_t caught_up_marker = 0;

  // The program for this case, as user @p user, with @p extra options.
  [[nodiscard]] auto sink(const std::vector<std::string>& extra = {}, std::string_view user = "replicant") const
      -> sink_process {
    std::vector<std::string> args{"--dsn",
                                  pg.dsn(database),
                                  "--slot",
                                  slot,
                                  "--publication",
                                  "js_pub",
                                  "--nats",
                                  nats.urls(user),
                                  "--stream",
                                  stream,
                                  "--subject-prefix",
                                  prefix,
                                  "--go-forward-only",
                                  "--create-slot",
                                  "--ack-wait-ms",
                                  "2000",
                                  "--max-unconfirmed",
                                  "200"};
    args.insert(args.end(), extra.begin(), extra.end());
    return sink_process{std::string{sink_binary}, "replicant-jetstream", std::move(args), log};
  }

  // The program making this case's stream (--create-stream), with @p extra options.
  [[nodiscard]] auto stream_maker(const std::vector<std::string>& extra = {}) const -> sink_process {
    std::vector<std::string> args{"--create-stream",  "--nats", nats.urls(), "--stream", stream,
                                  "--subject-prefix", prefix};
    args.insert(args.end(), extra.begin(), extra.end());
    return sink_process{std::string{sink_binary}, "replicant-jetstream", std::move(args), log};
  }

  // The stream made by the program itself (--create-stream), as a user makes it: it must exit 0.
  void create_stream_with_program() {
    auto p = stream_maker();
    p.start();
    require_made(p);
  }

  // Waits for @p maker, a stream maker started already, which must exit 0; otherwise says how it
  // ended (-1: still running after a minute, then killed; above 128: a signal) and what it printed.
  static void require_made(sink_process& maker) {
    const int status = maker.wait_exit(60s);
    BOOST_TEST_REQUIRE(status == 0, "the stream maker ended with status " << status << "; what it printed:\n"
                                                                          << maker.output());
  }

  auto slot_active() -> bool {
    return pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND active") == "1";
  }

  // Commits one more transaction and waits until its marker is in the stream: then every earlier
  // transaction is there too. @p stall bounds the time without progress, not the whole wait.
  auto catch_up(source_writer& w, std::chrono::seconds stall) -> bool {
    const auto before = parse_lsn(pg.scalar("SELECT pg_current_wal_lsn()", database));
    if (!w.commit_next()) return false;
    auto progress = client.last_marker(stream, markers);
    auto deadline = std::chrono::steady_clock::now() + scaled(stall);
    while (std::chrono::steady_clock::now() < deadline) {
      const auto now = client.last_marker(stream, markers);
      if (now > before) {
        caught_up_marker = now;
        return true;
      }
      if (now > progress) {
        progress = now;
        deadline = std::chrono::steady_clock::now() + scaled(stall);
      }
      std::this_thread::sleep_for(50ms);
    }
    caught_up_marker = client.last_marker(stream, markers);
    return caught_up_marker > before;
  }

  // Whether @p all holds the marker catch_up() saw. When it does not, says whether the stream
  // itself still holds it: a broker that lost a message it had stored and served is not a reader
  // that stopped short.
  auto holds_caught_up_marker(const std::vector<stored_message>& all) -> bool {
    if (caught_up_marker == 0) return true;  // no catch_up() in this case
    const bool held = std::any_of(all.begin(), all.end(), [&](const stored_message& m) {
      return m.subject == markers && parse_lsn(std::string_view{m.id}.substr(0, m.id.rfind(':'))) >= caught_up_marker;
    });
    if (!held) {
      std::cout << "jetstream: the reading ends before the last marker catch_up saw; the stream's last marker is "
                << (client.last_marker(stream, markers) >= caught_up_marker ? "still it or later" : "older now")
                << std::endl;
    }
    return held;
  }

  // Reads the stream with the markers and checks it against the source: every writer transaction
  // (@p w) once and in order, every change once and in commit order per table, and the second
  // writer's rows (@p second, when the case ran one). The stream itself must hold every message
  // once, every marker after all of its changes, and nothing unfinished; so the reader skips no
  // repeat and drops no partial transaction, whatever the case killed.
  // With @p head_removed, the broker may have removed the oldest messages (nats-server before 2.10.5
  // does at a discard-new byte limit, docs/scale_out.md): the transactions counted must then be the
  // writer's last ones, from some id on, and nothing else may be missing.
  void check(const source_writer& w, std::string_view scenario, int kills, bool head_removed = false,
             const scratch_writer* second = nullptr) {
    const auto all = client.read_all(stream, prefix);
    BOOST_TEST(holds_caught_up_marker(all));
    const auto r = read_with_markers(all, markers);
    const auto stored = count_stream(all, markers);
    if (r.violations != 0) {
      client.dump(stream, 12);
      for (std::size_t i = 0; i < std::min<std::size_t>(all.size(), 12); ++i) {
        std::cout << "jetstream: read " << all[i].sequence << ": " << all[i].subject << " " << all[i].id << std::endl;
      }
    }
    std::vector<const change_seen*> changes;
    std::uint64_t wrong_subjects = 0;
    for (const auto& t : r.transactions) {
      for (const auto& c : t.changes) {
        changes.push_back(&c);
        if (c.subject != prefix + "." + expected_token(c.schema) + "." + expected_token(c.table)) ++wrong_subjects;
      }
    }
    const std::int64_t first =
        replicant::test::check_against_source(changes, pg, database, w.committed(), head_removed);
    std::cout << "jetstream: pg" << pg.major() << " " << scenario << ": transactions=" << w.committed()
              << " kills=" << kills << " stream transactions=" << r.transactions.size() << " changes=" << changes.size()
              << " repeats skipped=" << r.repeats_skipped << " partial dropped=" << r.partial_dropped
              << " violations=" << r.violations << " removed by the broker=" << r.cut_at_head << " messages, "
              << first - 1 << " transactions"
              << "; stored: markers=" << stored.markers << " ids twice=" << stored.ids_twice
              << " incomplete=" << stored.incomplete << " without a marker=" << stored.without_marker << std::endl;
    if (second != nullptr) {
      const auto [inserts, deletes] = replicant::test::check_scratch(changes, pg, database);
      std::cout << "jetstream: second connection: committed=" << second->committed() << " (" << second->large()
                << " of 300 rows) rolled back=" << second->rolled_back() << " inserts=" << inserts
                << " deletes=" << deletes << std::endl;
    }
    BOOST_TEST(wrong_subjects == 0U);
    for (const auto& breach : exactly_once_breaches(r, stored, head_removed)) BOOST_ERROR(scenario << ": " << breach);
  }
};

// Starts @p m and waits until its slot streams.
void start_streaming(jetstream_fixture& f, sink_process& m) {
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }, 60s));
}

// The stream leader of @p f, waiting for one to be elected.
auto leader_of(jetstream_fixture& f) -> int {
  std::optional<int> leader;
  BOOST_TEST_REQUIRE(wait_until([&] { return (leader = f.client.leader(f.stream)).has_value(); }, 60s));
  return *leader;
}

}  // namespace

// --- the count itself: a stream that is not exactly-once fails it ----------------------------------------
// A sink that published a transaction again without the broker's deduplication would leave it in the
// stream twice; the reader's rules skip the repeat, so the reader alone would still count every
// transaction once. These cases feed the count such streams, made by hand, and the very conditions
// check() asserts must name the breach; so a run whose stream held a duplicate cannot pass.
BOOST_AUTO_TEST_SUITE(exactly_once_count)

// A hand-made stream: each message a change of transaction `commit` at index `index` on the txlog
// table, or with `index` < 0 that transaction's marker after `-index - 1` changes.
auto hand_made_stream(const std::vector<std::pair<std::uint64_t, int>>& messages) -> std::vector<stored_message> {
  std::vector<stored_message> out;
  for (const auto& [commit, index] : messages) {
    char lsn[32];
    std::snprintf(lsn, sizeof lsn, "0/%llX", static_cast<unsigned long long>(commit));
    stored_message m;
    m.sequence = out.size() + 1;
    const bool marker = index < 0;
    m.subject = marker ? "cdc.t.commit" : "cdc.t.public.txlog";
    m.id = std::string{lsn} + ":" + std::to_string(marker ? -index - 1 : index);
    m.body = R"({"schema":"public","table":"txlog","op":"insert","record":{"id":)" + std::to_string(commit) + "}}";
    out.push_back(std::move(m));
  }
  return out;
}

// The breaches the count finds in @p stream.
auto breaches_in(const std::vector<stored_message>& stream) -> std::vector<std::string> {
  const auto breaches =
      exactly_once_breaches(read_with_markers(stream, "cdc.t.commit"), count_stream(stream, "cdc.t.commit"), false);
  for (const auto& b : breaches) BOOST_TEST_MESSAGE("breach: " << b);
  return breaches;
}

BOOST_AUTO_TEST_CASE(a_stream_holding_each_transaction_once_passes) {
  BOOST_TEST(breaches_in(hand_made_stream({{0x100, 0}, {0x100, 1}, {0x100, -3}, {0x200, 0}, {0x200, -2}})).empty());
}

BOOST_AUTO_TEST_CASE(a_transaction_published_twice_fails) {
  const auto stream = hand_made_stream(
      {{0x100, 0}, {0x100, 1}, {0x100, -3}, {0x100, 0}, {0x100, 1}, {0x100, -3}, {0x200, 0}, {0x200, -2}});
  // The reader's rules hide the repeat: it counts each transaction once ...
  BOOST_TEST(read_with_markers(stream, "cdc.t.commit").transactions.size() == 2U);
  // ... and the count does not.
  const auto breaches = breaches_in(stream);
  BOOST_TEST(!breaches.empty());
  BOOST_TEST(count_stream(stream, "cdc.t.commit").ids_twice == 3U);
}

BOOST_AUTO_TEST_CASE(a_change_published_twice_fails) {
  BOOST_TEST(!breaches_in(hand_made_stream({{0x100, 0}, {0x100, 0}, {0x100, 1}, {0x100, -3}})).empty());
}

BOOST_AUTO_TEST_CASE(a_transaction_left_without_its_marker_fails) {
  BOOST_TEST(!breaches_in(hand_made_stream({{0x100, 0}, {0x200, 0}, {0x200, -2}})).empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(jetstream)

// The program's last line says it published nothing: a run with nothing to do.
auto published_nothing(const std::string& output) -> bool {
  constexpr std::string_view idle = "replicant-jetstream: stopped; 0 transactions published,";
  const auto last = output.rfind("replicant-jetstream: stopped; ");
  return last != std::string::npos && output.compare(last, idle.size(), idle) == 0;
}

// SIGKILL at random moments while two connections commit as fast as they can (the second one's
// deletes, rollbacks and transactions of 300 rows among them): no loss, no duplicate, in the stream
// itself as for the reader. Then a restart with nothing to do publishes nothing.
BOOST_AUTO_TEST_CASE(random_kills_lose_and_repeat_nothing) {
  const auto seed = seed_from_environment();
  jetstream_fixture f;
  std::cout << "jetstream: pg" << f.pg.major() << " kill storm, seed " << seed << std::endl;
  f.create_stream_with_program();  // replicated three times, limits retention, discard new
  BOOST_TEST_REQUIRE(f.client.replicated_discarding_new(f.stream));
  auto m = f.sink();
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed, std::string{secret}};
  scratch_writer s{f.pg.dsn(f.database), seed + 1};
  background_writer writer{storm_transactions(), [&w](std::uint64_t) { return w.commit_next(); }};
  background_writer second{storm_transactions() / 4, [&s](std::uint64_t) { return s.step(); }};
  std::mt19937_64 rng{seed ^ 0x9e3779b97f4a7c15ULL};
  int kills = 0;
  int unexpected_exits = 0;
  std::uint64_t mid_stream = 0;
  std::uint64_t last_seen = 0;
  while (kills < storm_kills() || writer.writing() || second.writing()) {
    // Stretched where the build is slow, so that the program still gets to publish between kills.
    std::this_thread::sleep_for(std::chrono::milliseconds{std::uniform_int_distribution<int>{50, 500}(rng)} *
                                replicant::test::time_scale());
    if (!m.running()) ++unexpected_exits;
    if (const auto now = f.client.last_sequence(f.stream).value_or(0); now > last_seen) {
      ++mid_stream;  // the program had published something since the last kill
      last_seen = now;
    }
    m.kill();
    ++kills;
    m.start();
  }
  BOOST_TEST_REQUIRE(writer.join());
  BOOST_TEST_REQUIRE(second.join());
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.stop() == 0);
  BOOST_TEST(unexpected_exits == 0);
  BOOST_TEST(mid_stream >= 1U, "no kill came after the program had published anything");
  f.check(w, "random SIGKILLs", kills, false, &s);
  // Nothing new in the source: a restart reads its checkpoint, streams, and adds nothing.
  const auto end = f.client.last_sequence(f.stream);
  start_streaming(f, m);
  std::this_thread::sleep_for(1s);
  BOOST_TEST(m.stop() == 0);
  BOOST_TEST((f.client.last_sequence(f.stream) == end));
  BOOST_TEST(published_nothing(m.output()), "what the program printed:\n" << m.output());
  BOOST_TEST(m.output().find(secret) == std::string::npos);
}

// PostgreSQL stops at once (no checkpoint) under load and comes back through crash recovery.
BOOST_AUTO_TEST_CASE(a_postgres_crash_under_load) {
  jetstream_fixture f;
  f.client.create_stream(f.stream, f.prefix);
  auto m = f.sink();
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  scratch_writer s{f.pg.dsn(f.database), seed_from_environment()};
  background_writer writer{case_transactions(), [&w](std::uint64_t) { return w.commit_next(); }};
  background_writer second{case_transactions() / 4, [&s](std::uint64_t) { return s.step(); }};
  BOOST_TEST_REQUIRE(wait_until([&] { return w.committed() >= case_transactions() / 2; }, 60s));
  f.pg.crash();
  f.pg.start();
  BOOST_TEST_REQUIRE(writer.join());
  BOOST_TEST_REQUIRE(second.join());
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.running());
  BOOST_TEST(m.stop() == 0);
  f.check(w, "a PostgreSQL crash", 0, false, &s);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(jetstream_broker,
                      *utf::precondition(replicant::test::broker_cases_here{"REPLICANT_JETSTREAM_ALL_CASES"}))

// One NATS node killed and started again mid-stream, then the stream's leader killed: the program
// rides over both (a leader election at most halts it briefly, and it resumes from the stream). The
// program is SIGKILLed too while the election runs, and again while the old leader rejoins.
BOOST_AUTO_TEST_CASE(a_node_and_the_leader_killed_mid_stream) {
  jetstream_fixture f;
  f.client.create_stream(f.stream, f.prefix);
  auto m = f.sink();
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  scratch_writer s{f.pg.dsn(f.database), seed_from_environment()};
  background_writer writer{case_transactions(), [&w](std::uint64_t) { return w.commit_next(); }};
  background_writer second{case_transactions() / 4, [&s](std::uint64_t) { return s.step(); }};
  const auto third = case_transactions() / 3;
  BOOST_TEST_REQUIRE(wait_until([&] { return w.committed() >= third; }, 60s));
  const int follower = (leader_of(f) + 1) % nats_cluster::size;
  f.nats.kill(follower);
  std::this_thread::sleep_for(1s);
  f.nats.start(follower);
  BOOST_TEST_REQUIRE(wait_until([&] { return w.committed() >= 2 * third; }, 60s));
  const int leader = leader_of(f);
  f.nats.kill(leader);
  m.kill();  // while the stream has no leader: the restarted program meets the election
  m.start();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.client.leader(f.stream).value_or(leader) != leader; }, 60s));
  f.nats.start(leader);
  std::this_thread::sleep_for(300ms);
  m.kill();  // while the old leader catches up
  m.start();
  BOOST_TEST_REQUIRE(writer.join());
  BOOST_TEST_REQUIRE(second.join());
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.running());
  BOOST_TEST(m.stop() == 0);
  f.check(w, "a node and the leader killed, the program killed during both", 2, false, &s);
}

// Every node killed at once, under load, and started again 10 s later: the program rides over the
// outage (shorter than --max-outage-s) and loses and repeats nothing.
BOOST_AUTO_TEST_CASE(the_whole_cluster_down_for_10_s) {
  jetstream_fixture f;
  f.client.create_stream(f.stream, f.prefix);
  auto m = f.sink();
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  scratch_writer s{f.pg.dsn(f.database), seed_from_environment()};
  background_writer writer{case_transactions(), [&w](std::uint64_t) { return w.commit_next(); }};
  background_writer second{case_transactions() / 4, [&s](std::uint64_t) { return s.step(); }};
  BOOST_TEST_REQUIRE(wait_until([&] { return w.committed() >= case_transactions() / 2; }, 60s));
  for (int i = 0; i < nats_cluster::size; ++i) f.nats.kill(i);
  std::this_thread::sleep_for(10s);
  for (int i = 0; i < nats_cluster::size; ++i) f.nats.start(i);
  BOOST_TEST_REQUIRE(f.nats.wait_ready(scaled(60s)));
  BOOST_TEST_REQUIRE(writer.join());
  BOOST_TEST_REQUIRE(second.join());
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.running());
  BOOST_TEST(m.stop() == 0);
  f.check(w, "the whole cluster down for 10 s", 0, false, &s);
}

// --- broker faults: each halts value-free, acknowledging nothing past it -----------------------------
// Each case then removes the fault and runs the program again: the reader must find every
// transaction once. Had anything past the fault been acknowledged, PostgreSQL would not send it
// again, and the reader would miss it.

// Writes @p n transactions while @p m streams (or has stopped), then stops writing.
void write_transactions(source_writer& w, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) BOOST_TEST_REQUIRE(w.commit_next());
}

BOOST_AUTO_TEST_CASE(a_missing_stream_halts) {
  jetstream_fixture f;
  auto m = f.sink();
  m.start();
  BOOST_TEST(m.wait_exit(60s) == 1);
  BOOST_TEST(m.output().find("the stream does not exist") != std::string::npos);
  // Without a checkpoint in the new stream the program goes forward from the slot's acknowledged
  // position: what it streams from then on must all come.
  f.client.create_stream(f.stream, f.prefix);
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  write_transactions(w, 20);
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.stop() == 0);
  f.check(w, "the stream missing, then made", 0);
}

BOOST_AUTO_TEST_CASE(permission_denied_halts) {
  jetstream_fixture f{"restricted"};
  f.client.create_stream(f.stream, f.prefix);
  auto denied = f.sink({}, "restricted");
  start_streaming(f, denied);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  write_transactions(w, 20);
  BOOST_TEST(denied.wait_exit(60s) == 1);
  BOOST_TEST(denied.output().find("permission denied") != std::string::npos);
  auto allowed = f.sink();
  allowed.start();
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(allowed.stop() == 0);
  f.check(w, "permission denied, then granted", 0);
}

BOOST_AUTO_TEST_CASE(a_full_stream_halts) {
  jetstream_fixture f;
  f.client.create_stream(f.stream, f.prefix, 64 * 1024);
  auto m = f.sink();
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  // Each transaction publishes several hundred bytes: a few hundred fill 64 KiB.
  for (std::uint64_t i = 0; i < 2000 && m.running(); ++i) BOOST_TEST_REQUIRE(w.commit_next());
  BOOST_TEST(m.wait_exit(60s) == 1);
  BOOST_TEST(m.output().find("the stream is full") != std::string::npos);
  f.client.set_max_bytes(f.stream, -1);
  m.start();
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(m.stop() == 0);
  // nats-server before 2.10.5 (Debian 12 ships 2.9.10) counts a message's payload against a
  // discard-new byte limit but stores more, and removes the oldest messages to get back under it:
  // the reader then finds the stream cut at its head, and everything after the cut exactly once.
  f.check(w, "the stream full, then enlarged", 0, true);
}

BOOST_AUTO_TEST_CASE(no_quorum_for_longer_than_the_bound_halts) {
  jetstream_fixture f;
  f.client.create_stream(f.stream, f.prefix);
  auto m = f.sink({"--max-outage-s", "3"});
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  write_transactions(w, 20);
  const int leader = leader_of(f);
  const int other = (leader + 1) % nats_cluster::size;
  f.nats.kill(leader);
  f.nats.kill(other);
  write_transactions(w, 20);
  BOOST_TEST(m.wait_exit(120s) == 1);
  BOOST_TEST(m.output().find("stayed unavailable for longer than --max-outage-s") != std::string::npos);
  f.nats.start(leader);
  f.nats.start(other);
  static_cast<void>(leader_of(f));  // the stream has a leader again
  auto again = f.sink();
  again.start();
  BOOST_TEST(f.catch_up(w, 120s));
  BOOST_TEST(again.stop() == 0);
  f.check(w, "no quorum, then quorum again", 0);
}

// --create-stream against a cluster whose servers are all down, then started: it waits for them
// and makes the stream once they have a leader.
BOOST_AUTO_TEST_CASE(create_stream_waits_for_the_cluster) {
  jetstream_fixture f;
  for (int i = 0; i < nats_cluster::size; ++i) f.nats.stop(i);
  auto p = f.stream_maker({"--max-outage-s", "300"});
  p.start();
  // Its first failed attempt said it will try again, and it still runs: it waits, rather than
  // having given up. The servers are started whatever the outcome, for the cases after this one.
  const bool retried =
      wait_until([&] { return p.output().find("the cluster cannot create the stream yet") != std::string::npos; }, 30s);
  const bool waited = p.running();
  for (int i = 0; i < nats_cluster::size; ++i) f.nats.start(i);
  BOOST_TEST_REQUIRE(f.nats.wait_ready(scaled(60s)));
  BOOST_TEST(retried);
  BOOST_TEST(waited);
  BOOST_TEST(p.wait_exit(120s) == 0);
  // The case's own client reconnects by itself, a moment after the servers are back.
  BOOST_TEST(wait_until([&] { return f.client.replicated_discarding_new(f.stream); }, 30s));
}

// --create-stream where a stream of that name exists with other settings: no retry, exit 1 at once
// (well inside the outage bound) with JetStream's code for it.
BOOST_AUTO_TEST_CASE(create_stream_fails_at_once_on_a_conflicting_stream) {
  jetstream_fixture f;
  f.client.create_stream(f.stream, f.prefix + "_other");
  auto p = f.stream_maker({"--max-outage-s", "600"});
  p.start();
  BOOST_TEST(p.wait_exit(60s) == 1);
  BOOST_TEST(p.output().find("creating the stream failed: ") != std::string::npos);
  BOOST_TEST(p.output().find("JetStream error 10058") != std::string::npos);
}

// --- a secured cluster: TLS only, and NKeys or a token instead of passwords -------------------------

// @p a followed by @p b.
auto joined(std::vector<std::string> a, const std::vector<std::string>& b) -> std::vector<std::string> {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The first line of file @p path: a secret the program is given by its file's name.
auto file_secret(const std::filesystem::path& path) -> std::string {
  std::ifstream in{path};
  std::string line;
  std::getline(in, line);
  return line;
}

// The client URLs of @p c with the nats:// scheme, which does not ask for TLS (tls:// does).
auto plain_urls(const nats_cluster& c) -> std::string {
  std::string urls = c.urls();
  for (auto at = urls.find("tls://"); at != std::string::npos; at = urls.find("tls://", at)) {
    urls.replace(at, 6, "nats://");
  }
  return urls;
}

// A setting of the program that a secured cluster refuses, and the sentence the program must stop
// with at once.
struct refused_setting {
  std::string what;
  std::vector<std::string> options;
  std::string says;
};

// Runs the program of @p f with each of @p settings: each must end with exit status 1 well within
// the default --max-outage-s (60 s: a refusal that no retry mends is not waited out), saying its
// sentence, and never printing @p secrets.
void check_refusals(jetstream_fixture& f, const std::vector<refused_setting>& settings,
                    const std::vector<std::string>& secrets) {
  for (const auto& r : settings) {
    auto p = f.sink(r.options);
    // The case's runs share a log: this run's part is what it adds.
    const auto earlier = p.output().size();
    const auto began = std::chrono::steady_clock::now();
    p.start();
    const int status = p.wait_exit(20s);
    const auto said = p.output().substr(earlier);
    BOOST_TEST(status == 1, r.what << ": what the program printed:\n" << said);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - began;
    std::cout << "jetstream: " << r.what << ": stopped after " << took.count() << " s" << std::endl;
    BOOST_TEST(said.find(r.says) != std::string::npos, r.what << ": what the program printed:\n" << said);
    for (const auto& secret_text : secrets) BOOST_TEST(p.output().find(secret_text) == std::string::npos, r.what);
  }
}

// A cluster that serves TLS only, asks for a client certificate, and knows one NKey user: the
// program makes its stream and streams through it with --nats-ca, --nats-cert/--nats-key and
// --nats-nkey/--nats-nkey-seed, and stops at once, saying why and printing no seed, when the NKey is
// a stranger's, when it does not use TLS, when it trusts another authority, or when it presents no
// client certificate.
BOOST_AUTO_TEST_CASE(a_tls_cluster_with_nkey_users) {
  nats_cluster secure{*replicant::test::nats_server_binary(),
                      {.tls = true, .client_certificates = true, .auth = replicant::test::nats_auth::nkeys}};
  jetstream_fixture f{"cdc", secure};
  const auto& certs = *secure.tls();
  const std::vector<std::string> ca{"--nats-ca", certs.root_certificate.string()};
  const std::vector<std::string> client{"--nats-cert", certs.client_certificate.string(), "--nats-key",
                                        certs.client_key.string()};
  const std::vector<std::string> nkey{"--nats-nkey", secure.nkey().public_key, "--nats-nkey-seed",
                                      secure.nkey().seed_file.string()};
  auto maker = f.stream_maker(joined(joined(ca, client), nkey));
  maker.start();
  jetstream_fixture::require_made(maker);
  auto m = f.sink(joined(joined(ca, client), nkey));
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  write_transactions(w, 20);
  BOOST_TEST(f.catch_up(w, 60s), "what the program printed:\n" << m.output());
  BOOST_TEST(m.stop() == 0);
  f.check(w, "TLS and an NKey", 0);
  const std::vector<std::string> stranger{"--nats-nkey", secure.stranger().public_key, "--nats-nkey-seed",
                                          secure.stranger().seed_file.string()};
  const std::string tls_failed = "the TLS connection to the NATS servers failed";
  check_refusals(
      f,
      {{"a stranger's NKey", joined(joined(ca, client), stranger), "the NATS servers refused the credentials"},
       {"no TLS", joined({"--nats", plain_urls(secure)}, nkey), tls_failed},
       {"another authority trusted", joined(joined({"--nats-ca", certs.other_root_certificate.string()}, client), nkey),
        tls_failed},
       {"no client certificate", joined(ca, nkey), tls_failed}},
      {file_secret(secure.nkey().seed_file), file_secret(secure.stranger().seed_file)});
  BOOST_TEST(m.output().find(file_secret(secure.nkey().seed_file)) == std::string::npos);
}

// A cluster that serves TLS only (no client certificate asked for) and authenticates by token: the
// program streams with --nats-ca and --nats-token-file, and stops at once on a wrong token,
// printing neither.
BOOST_AUTO_TEST_CASE(a_tls_cluster_with_a_token) {
  nats_cluster secure{*replicant::test::nats_server_binary(),
                      {.tls = true, .client_certificates = false, .auth = replicant::test::nats_auth::token}};
  jetstream_fixture f{"cdc", secure};
  const std::vector<std::string> ca{"--nats-ca", secure.tls()->root_certificate.string()};
  auto maker = f.stream_maker(joined(ca, {"--nats-token-file", secure.token_file().string()}));
  maker.start();
  jetstream_fixture::require_made(maker);
  auto m = f.sink(joined(ca, {"--nats-token-file", secure.token_file().string()}));
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  write_transactions(w, 10);
  BOOST_TEST(f.catch_up(w, 60s), "what the program printed:\n" << m.output());
  BOOST_TEST(m.stop() == 0);
  f.check(w, "TLS and a token", 0);
  check_refusals(f,
                 {{"a wrong token", joined(ca, {"--nats-token-file", secure.wrong_token_file().string()}),
                   "the NATS servers refused the credentials"}},
                 {file_secret(secure.token_file()), file_secret(secure.wrong_token_file())});
  BOOST_TEST(m.output().find(file_secret(secure.token_file())) == std::string::npos);
}

// The secrets of credentials file @p c: what the program must never print.
auto secrets_of(const replicant::test::nats_credentials_file& c) -> std::vector<std::string> { return {c.jwt, c.seed}; }

// A cluster in operator mode (an operator's JWT trusted, the accounts' JWTs preloaded): the program
// makes its stream and streams into it with --nats-creds, a credentials file holding a user's JWT,
// which its account signed, and the user's seed. It stops at once, saying why and printing neither
// JWT nor seed, with a user of an account the servers do not know, or with the user's JWT and
// another user's seed.
BOOST_AUTO_TEST_CASE(an_operator_cluster_with_a_credentials_file) {
  nats_cluster secure{*replicant::test::nats_server_binary(), {.auth = replicant::test::nats_auth::operator_jwt}};
  jetstream_fixture f{"cdc", secure};
  const std::vector<std::string> creds{"--nats-creds", secure.credentials().path.string()};
  auto maker = f.stream_maker(creds);
  maker.start();
  jetstream_fixture::require_made(maker);
  BOOST_TEST_REQUIRE(f.client.replicated_discarding_new(f.stream));
  auto m = f.sink(creds);
  start_streaming(f, m);
  source_writer w{f.pg.dsn(f.database), seed_from_environment(), std::string{secret}};
  write_transactions(w, 10);
  BOOST_TEST(f.catch_up(w, 60s), "what the program printed:\n" << m.output());
  BOOST_TEST(m.stop() == 0);
  f.check(w, "operator mode and a credentials file", 0);
  auto secrets = joined(secrets_of(secure.credentials()), secrets_of(secure.stranger_credentials()));
  const std::string refused = "the NATS servers refused the credentials";
  check_refusals(f,
                 {{"a user of an account the servers do not know",
                   {"--nats-creds", secure.stranger_credentials().path.string()},
                   refused},
                  {"the user's JWT with another user's seed",
                   {"--nats-creds", secure.mismatched_credentials().path.string()},
                   refused}},
                 secrets);
  for (const auto& s : secrets) BOOST_TEST(m.output().find(s) == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

#else  // no nats.c: parts_required() ended the program before any test could run

BOOST_AUTO_TEST_CASE(unreachable) { BOOST_TEST(false); }

#endif

BOOST_AUTO_TEST_SUITE_END()  // examples_jetstream_tests
