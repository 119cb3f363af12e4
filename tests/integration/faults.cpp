// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Network and server faults under a live replication pipeline, once per PostgreSQL major.
//
// A writer commits numbered transactions into a published table: transaction k inserts the rows
// with ids [k * rows_per_transaction, (k + 1) * rows_per_transaction), each with qty = k and a
// label carrying a secret marker. A pipeline streams them, through a fault proxy
// (tests/support/faults/fault_proxy.hpp), into a sink that records every delivered transaction and
// skips, by commit LSN, what its checkpoint already covers: exactly-once in effect. Each case
// injects a fault while the writer runs and lets the pipeline recover (or halt; it is then started
// again, as an operator would, which shows whether the halt acknowledged anything it should not
// have). At the end of every case the proxy cuts the connection once more and the writer goes on
// for a while, so that the pipeline resumes from what the server kept for the slot: a position
// acknowledged too far shows as loss, and the slot's acknowledged position must not lie past the
// end of the server's WAL. Then the delivered transactions are checked against the source table:
//
//   lost          source transactions none of whose rows took effect
//   duplicated    source transactions that took effect more than once
//   partial       delivered transactions that are not exactly one source transaction's rows
//   out_of_order  delivered transactions whose number or commit LSN is below the previous one's
//   wrong         delivered rows whose values differ from the source's (or cannot be read)
//
// and no halt, error message or telemetry event may contain the secret marker. Each case prints
// one summary line, `fault=<case> transactions=.. lost=.. duplicated=.. partial=.. out_of_order=..`
// and more; `resent` counts transactions delivered again at or below the sink's checkpoint, which the sink
// skips as a real one would, and which must be none: the library skips them itself.
//
//   N1  hard cut        every connection reset, and refused for a moment; reconnects and resumes
//   N2  black hole      nothing forwarded, sockets kept open: the pipeline's receive timeout notices
//   N2p black hole      the same while the periodic publication check waits for its answer: the
//                       session must still be given up in time, and stop() must still end run()
//   N3  fragmentation   the server's bytes one per write, for the whole case, handshake included
//   N4  corruption      one bit flipped at a time in the framing, the replication header or the
//                       pgoutput message type: a value-free halt or a reconnect, never a wrong row
//   N4p corruption      one bit flipped at a time in a commit's LSNs or a keepalive's position:
//                       positions the pipeline stores and acknowledges, so a flip must never be
//                       acknowledged nor make a transaction disappear
//   S1  crash           immediate shutdown and restart (PostgreSQL <= 16 sends acknowledged
//                       transactions again: the sink's dedup skips them)
//   S2  clean restart   fast shutdown and restart
//   S3  terminate       pg_terminate_backend() of the walsender
//   S5  stall           silence longer than the server's wal_sender_timeout: the server drops the
//                       walsender, and the pipeline reconnects once the network is back
//   S6  publication     altered while streaming: a table removed from it (S6), a row filter set on
//       altered         the written table (S6f, one that every row passes): the publication check
//                       halts publication_changed, and the restart (which accepts the new
//                       definition) loses and repeats nothing of what is still published
//
// S4 (slot invalidation) and the rest of S6 are in tests/integration/pipeline.cpp
// (an_invalidated_slot_halts, a_dropped_publication_halts_on_reconnect,
// a_publication_dropped_while_streaming_halts_without_a_reconnect) and
// tests/integration/publication_changes.cpp (what pgoutput does with each kind of change, on each
// major, and what the check makes of it).
//
// A flipped bit inside a column value cannot be detected at all: pgoutput has no checksum, and
// TCP's own is what normally catches such damage (TLS adds a real integrity check). The proxy can
// still do it (corruption_target::insert_value, any_byte) to show the effect; see the environment
// variables of corruption_targets().
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/required.hpp"
#include "support/faults/fault_proxy.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/dedup_checkpoint.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(faults_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::corruption;
using replicant::test::corruption_target;
using replicant::test::event_log;
using replicant::test::fault_mode;
using replicant::test::fault_proxy;
using replicant::test::live_server;
using replicant::test::wait_until;
using replicant::test::walsender_timeouts;

namespace {

// Written into every label; must never appear in a halt, an error message or a telemetry event.
constexpr std::string_view secret = "F4ULT-s3cr3t-9052";

constexpr std::int64_t rows_per_transaction = 3;

// The server drops a walsender that has not heard from its client for this long (S5). Short, so
// that the stall case stays short; the pipeline's status updates (every second) keep a healthy
// session far from it.
constexpr std::string_view wal_sender_timeout = "4s";

// --- the sink -----------------------------------------------------------------------------------

struct delivered_row {
  std::int64_t id = -1;
  std::string label;
  std::int64_t qty = -1;
  bool readable = false;  // an insert whose three columns read as the table's types
};

struct delivered_transaction {
  lsn commit;
  std::vector<delivered_row> rows;
};

// Records every transaction that takes effect; skips those at or below its checkpoint, as a real
// sink storing its checkpoint with the data does, and counts them (there must be none).
struct recording_sink : replicant::test::dedup_checkpoint {
  std::mutex mutex;
  std::vector<delivered_transaction> applied;
  std::size_t rows = 0;
  std::uint64_t skipped = 0;  // sent again by the server, at or below the checkpoint

  auto checkpoint() -> result<std::optional<lsn>> {
    const std::lock_guard lock{mutex};
    return dedup_checkpoint::checkpoint();
  }

  auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
    delivered_transaction d{t.commit_lsn(), {}};
    for (const auto& c : t.changes()) {
      delivered_row r;
      const auto record = c.record();
      const auto id = record.value("id");
      const auto label = record.value("label");
      const auto qty = record.value("qty");
      if (c.op() == replicant::change_op::insert && id && label && qty && id->holds<std::int64_t>() &&
          label->holds<replicant::text>() && qty->holds<std::int64_t>()) {
        r.id = id->get<std::int64_t>();
        r.label = label->get<replicant::text>().str();
        r.qty = qty->get<std::int64_t>();
        r.readable = true;
      }
      d.rows.push_back(std::move(r));
    }
    const std::lock_guard lock{mutex};
    if (already_applied(t)) {
      ++skipped;
      return t.commit_lsn();
    }
    rows += d.rows.size();
    applied.push_back(std::move(d));
    store(t.commit_lsn());
    return t.commit_lsn();
  }

  auto row_count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return rows;
  }
};

using fault_pipeline = replicant::pgoutput_pipeline<recording_sink>;

// A pipeline on its own thread, which says when run() has returned.
struct pipeline_thread {
  fault_pipeline pipeline;
  std::error_code ec;
  std::atomic<bool> finished{false};
  std::thread thread;

  pipeline_thread(recording_sink& sink, const replicant::pgoutput_options& pgoutput,
                  const replicant::pipeline_options& options, event_log& events)
      : pipeline(sink, pgoutput, options, &events.dispatcher), thread([this] {
          pipeline.run(ec);
          finished.store(true);
        }) {}
  pipeline_thread(const pipeline_thread&) = delete;
  auto operator=(const pipeline_thread&) -> pipeline_thread& = delete;
  ~pipeline_thread() {
    pipeline.stop();
    if (thread.joinable()) thread.join();
  }
};

// --- the writer ---------------------------------------------------------------------------------

// Commits transaction after transaction, straight to the server (not through the proxy), riding
// out restarts: a transaction whose outcome it did not hear is tried again, and a unique violation
// then says it had committed.
class writer {
 public:
  writer(replicant::test::pg_cluster& pg, std::string db, std::chrono::milliseconds pause)
      : pg_(pg), db_(std::move(db)), pause_(pause) {}
  writer(const writer&) = delete;
  auto operator=(const writer&) -> writer& = delete;
  ~writer() { stop(); }

  auto start() -> void {
    running_.store(true);
    thread_ = std::thread{[this] { loop(); }};
  }
  auto stop() -> void {
    running_.store(false);
    if (thread_.joinable()) thread_.join();
  }
  /// Pauses (true) or resumes (false) the commits.
  auto hold(bool on) -> void { held_.store(on); }
  /// Transactions known to have committed.
  [[nodiscard]] auto committed() const -> std::int64_t { return next_.load(); }

 private:
  auto loop() -> void {
    std::optional<replicant::test::pg_connection> conn;
    while (running_.load()) {
      if (held_.load()) {
        std::this_thread::sleep_for(10ms);
        continue;
      }
      const std::int64_t k = next_.load();
      const std::int64_t first = k * rows_per_transaction;
      const std::string sql = "INSERT INTO items (id, label, qty) SELECT g, '" + std::string{secret} + "-' || g, " +
                              std::to_string(k) + " FROM generate_series(" + std::to_string(first) + ", " +
                              std::to_string(first + rows_per_transaction - 1) + ") g";
      try {
        if (!conn) conn.emplace(pg_.dsn(db_));
        conn->exec(sql);
        next_.store(k + 1);
      } catch (const replicant::test::pg_error& e) {
        if (e.sqlstate() == "23505") {
          next_.store(k + 1);  // it had committed; the answer was lost
        } else {
          conn.reset();
          std::this_thread::sleep_for(50ms);
        }
      }
      std::this_thread::sleep_for(pause_);
    }
  }

  replicant::test::pg_cluster& pg_;
  std::string db_;
  std::chrono::milliseconds pause_;
  std::atomic<bool> running_{false};
  std::atomic<bool> held_{false};
  std::atomic<std::int64_t> next_{0};
  std::thread thread_;
};

// --- the check against the source -----------------------------------------------------------------

struct tally {
  std::size_t transactions = 0;
  std::size_t lost = 0;
  std::size_t duplicated = 0;
  std::size_t partial = 0;
  std::size_t out_of_order = 0;
  std::size_t wrong = 0;
};

struct source_row {
  std::string label;
  std::int64_t qty = 0;
};

auto check_against(const std::map<std::int64_t, source_row>& source, const std::vector<delivered_transaction>& applied)
    -> tally {
  tally t;
  std::map<std::int64_t, std::set<std::int64_t>> ids_of;  // source transaction -> its ids
  for (const auto& [id, row] : source) ids_of[row.qty].insert(id);
  t.transactions = ids_of.size();

  std::map<std::int64_t, std::size_t> taken;  // source transaction -> times it took effect
  std::optional<std::int64_t> previous_k;
  std::optional<lsn> previous_commit;
  for (const auto& d : applied) {
    std::set<std::int64_t> ks;
    std::set<std::int64_t> ids;
    for (const auto& r : d.rows) {
      const auto s = source.find(r.id);
      if (!r.readable || s == source.end() || s->second.label != r.label || s->second.qty != r.qty) ++t.wrong;
      if (r.readable) {
        ks.insert(r.id / rows_per_transaction);
        ids.insert(r.id);
      }
    }
    if (ks.size() != 1) {
      ++t.partial;
      continue;
    }
    const std::int64_t k = *ks.begin();
    const auto expected = ids_of.find(k);
    if (expected == ids_of.end() || expected->second != ids || ids.size() != d.rows.size()) ++t.partial;
    if ((previous_k && k < *previous_k) || (previous_commit && d.commit <= *previous_commit)) ++t.out_of_order;
    previous_k = k;
    previous_commit = d.commit;
    ++taken[k];
  }
  for (const auto& [k, ids] : ids_of) {
    const auto n = taken.find(k);
    if (n == taken.end()) {
      ++t.lost;
    } else if (n->second > 1) {
      t.duplicated += n->second - 1;
    }
  }
  return t;
}

// --- one case -----------------------------------------------------------------------------------

auto configure_server_once() -> void {
  static bool done = false;
  if (done) return;
  auto& pg = live_server();
  pg.set("wal_sender_timeout", wal_sender_timeout);
  pg.reload();
  done = true;
}

// A database, a proxy in front of the server, a sink, a writer, and the pipeline between them.
class fault_case {
 public:
  explicit fault_case(std::string name, std::chrono::milliseconds writer_pause = 2ms)
      : name_(std::move(name)), writer_(db_.pg, db_.db, writer_pause) {
    configure_server_once();
    db_.options.conninfo = proxy_.route(db_.pg.dsn(db_.db));
    db_.options.connect_timeout = 2s;
    // A walsender cut off from us can hold the slot for a moment after we reconnect (SQLSTATE
    // 55006), which counts against this budget.
    db_.options.max_command_retries = 20;
  }
  fault_case(const fault_case&) = delete;
  auto operator=(const fault_case&) -> fault_case& = delete;

  auto options() -> replicant::pipeline_options& { return db_.options; }
  auto proxy() -> fault_proxy& { return proxy_; }
  auto db() -> replicant::test::published_database& { return db_; }
  auto events() -> event_log& { return events_; }

  /// Starts the pipeline (again), waits until it streams, then starts the writer (once).
  auto start() -> void {
    // A session of this pipeline, not only an active slot: after a halt, the walsender of the
    // halted pipeline may hold the slot a little longer, and a caller that counts sessions from
    // here on would take this pipeline's first session for a reaction to what it does next.
    const auto before = sessions();
    runner_ = std::make_unique<pipeline_thread>(sink_, db_.pgoutput, db_.options, events_);
    BOOST_TEST_REQUIRE(wait_for_session_after(before), name_ << ": the pipeline never streamed");
    if (!writing_) {
      writer_.start();
      writing_ = true;
    }
  }

  /// Sessions that started streaming so far.
  auto sessions() -> std::size_t { return events_.count("replicant.connection.connected"); }

  /// Sessions that ended so far.
  auto disconnects() -> std::size_t { return events_.count("replicant.connection.disconnected"); }

  /// Waits until the pipeline is streaming in a session after the first @p n.
  auto wait_for_session_after(std::size_t n, std::chrono::seconds timeout = 30s) -> bool {
    return wait_until([&] { return sessions() > n && db_.slot_active(); }, timeout);
  }

  /// Lets the writer commit for @p d.
  static auto let_run(std::chrono::milliseconds d) -> void { std::this_thread::sleep_for(d); }

  /// Pauses or resumes the writer.
  auto hold_writer(bool on) -> void { writer_.hold(on); }

  /// Whether run() has returned by itself (a halt).
  auto halted() -> bool { return runner_ && runner_->finished.load(); }

  /// Records the halt of a pipeline whose run() returned, checks it is value-free, and starts a
  /// new pipeline.
  auto restart_after_halt() -> void {
    BOOST_TEST_REQUIRE(halted());
    runner_->thread.join();
    const auto& h = runner_->pipeline.last_halt();
    BOOST_TEST_REQUIRE(h.has_value(), name_ << ": run() returned without a halt");
    halts_.push_back(*h);
    check_value_free(runner_->ec.message());
    check_value_free(replicant::describe(*h));
    runner_.reset();
    start();
  }

  [[nodiscard]] auto halts() const -> const std::vector<replicant::halt>& { return halts_; }

  /// Calls stop() and waits up to @p d for run() to return.
  auto stop_within(std::chrono::seconds d) -> bool {
    runner_->pipeline.stop();
    return wait_for_stop(d);
  }

  /// Waits up to @p d for a stopped pipeline's run() to return, then drops it.
  auto wait_for_stop(std::chrono::seconds d) -> bool {
    if (!wait_until([&] { return runner_->finished.load(); }, d)) return false;
    runner_->thread.join();
    last_stop_ = runner_->ec;
    runner_.reset();
    return true;
  }

  /// Whether a transaction that committed at or past @p position (an LSN as text) took effect.
  auto delivered_past(const std::string& position) -> bool {
    const auto at = replicant::parse_lsn(position).value();
    const std::lock_guard lock{sink_.mutex};
    return sink_.stored && *sink_.stored >= at;
  }

  /// Whether the slot's acknowledged position lies within the server's WAL.
  auto acknowledged_within_wal() -> bool {
    return db_.pg.scalar(
               "SELECT confirmed_flush_lsn <= pg_current_wal_lsn() FROM pg_replication_slots "
               "WHERE slot_name = '" +
               db_.slot + "'") == "t";
  }

  /// Counts one outcome, for the summary line.
  auto note(const std::string& outcome) -> void { ++outcomes_[outcome]; }

  /// Cuts the pipeline's connection once more and lets the writer go on, so that the pipeline
  /// resumes from what the server kept for the slot; then stops the writer, waits until every
  /// committed row arrived, stops the pipeline, checks, and prints the summary line.
  auto finish() -> tally {
    if (halted()) restart_after_halt();
    const auto before = sessions();
    proxy_.set_mode(fault_mode::cut);
    proxy_.set_mode(fault_mode::pass_through);
    BOOST_TEST(wait_for_session_after(before),
               name_ << ": no new session after the final cut ("
                     << (halted() ? "the pipeline halted" : "the pipeline runs")
                     << "); its last connection events:" << events_.last(12, "replicant.connection."));
    let_run(500ms);
    writer_.stop();
    std::map<std::int64_t, source_row> source;
    for (const auto& r : db_.sql("SELECT id, label, qty FROM items")) {
      source[std::stoll(*r.at(0))] = source_row{*r.at(1), std::stoll(*r.at(2))};
    }
    BOOST_TEST(source.size() == static_cast<std::size_t>(writer_.committed() * rows_per_transaction),
               name_ << ": the source does not hold what the writer committed");
    const bool complete = wait_until([&] { return sink_.row_count() >= source.size() || halted(); }, 30s);
    let_run(300ms);  // anything sent twice arrives now
    if (halted()) restart_after_halt();
    BOOST_TEST(complete, name_ << ": not every committed row arrived");
    BOOST_TEST(acknowledged_within_wal(), name_ << ": the slot was acknowledged past the end of the WAL");
    BOOST_TEST_REQUIRE(stop_within(30s), name_ << ": the pipeline did not stop");
    BOOST_TEST(!last_stop_, name_ << ": the final stop reported " << last_stop_.message());

    tally t;
    {
      const std::lock_guard lock{sink_.mutex};
      t = check_against(source, sink_.applied);
    }
    BOOST_TEST(t.lost == 0U);
    BOOST_TEST(t.duplicated == 0U);
    // The sink's dedup hides repeats from the tally: count them where they arrive. The library
    // skips what its checkpoint covers, so the sink must never have to.
    BOOST_TEST(sink_.skipped == 0U, name_ << ": the library delivered again what the checkpoint covered");
    BOOST_TEST(t.partial == 0U);
    BOOST_TEST(t.out_of_order == 0U);
    BOOST_TEST(t.wrong == 0U);
    BOOST_TEST(t.transactions > 100U, name_ << ": too few transactions to mean anything");
    BOOST_TEST(events_.count(secret) == 0U);
    std::cout << "fault=" << name_ << " transactions=" << t.transactions << " lost=" << t.lost
              << " duplicated=" << t.duplicated << " partial=" << t.partial << " out_of_order=" << t.out_of_order
              << " wrong=" << t.wrong << " resent=" << sink_.skipped << " sessions=" << sessions()
              << " halts=" << halts_.size();
    // Each halt by its reason, in order, so that a failed run says what stopped the pipeline.
    const char* separator = " (";
    for (const auto& h : halts_) {
      std::cout << separator << replicant::to_string(h.reason);
      separator = ",";
    }
    if (!halts_.empty()) std::cout << ')';
    for (const auto& [outcome, n] : outcomes_) std::cout << ' ' << outcome << '=' << n;
    std::cout << " pg=" << db_.pg.major() << std::endl;
    return t;
  }

 private:
  auto check_value_free(const std::string& text) -> void {
    BOOST_TEST(text.find(secret) == std::string::npos, name_ << ": a value reached an error text");
  }

  std::string name_;
  replicant::test::published_database db_;
  fault_proxy proxy_{db_.pg.port()};
  recording_sink sink_;
  event_log events_;
  writer writer_;
  bool writing_ = false;
  std::unique_ptr<pipeline_thread> runner_;
  std::error_code last_stop_;  // how the last stopped pipeline's run() ended
  std::vector<replicant::halt> halts_;
  std::map<std::string, int> outcomes_;
};

// --- corruption ---------------------------------------------------------------------------------

using replicant::test::env_number;

// The targets of a corruption case: @p fallback, or the comma-separated corruption_target names in
// REPLICANT_FAULTS_CORRUPT (which then apply to both N4 and N4p). REPLICANT_FAULTS_SEED gives the
// first seed (each flip takes the next, default 1), REPLICANT_FAULTS_ROUNDS the flips per target.
auto corruption_targets(std::vector<corruption_target> fallback) -> std::vector<corruption_target> {
  const char* list = std::getenv("REPLICANT_FAULTS_CORRUPT");
  if (list == nullptr || *list == '\0') return fallback;
  std::vector<corruption_target> out;
  const std::string_view text{list};
  for (std::size_t at = 0; at <= text.size();) {
    const auto comma = std::min(text.find(',', at), text.size());
    const auto name = text.substr(at, comma - at);
    bool known = false;
    for (const auto t :
         {corruption_target::any_byte, corruption_target::message_header, corruption_target::replication_header,
          corruption_target::pgoutput_tag, corruption_target::insert_value, corruption_target::commit_lsns,
          corruption_target::keepalive_position}) {
      if (name == to_string(t)) {
        out.push_back(t);
        known = true;
      }
    }
    if (!known) throw std::invalid_argument{"REPLICANT_FAULTS_CORRUPT: unknown corruption target"};
    at = comma + 1;
  }
  return out;
}

// Flips one bit at a time, @p rounds times per target, in the running case @p c, and waits for
// each flip's effect: a halt (then the pipeline is started again), a new session, or delivery past
// the flipped byte.
auto flip_bits(fault_case& c, const std::vector<corruption_target>& targets, std::uint64_t rounds) -> void {
  std::uint64_t seed = env_number("REPLICANT_FAULTS_SEED", 1);
  rounds = env_number("REPLICANT_FAULTS_ROUNDS", rounds);
  for (const auto target : targets) {
    for (std::uint64_t round = 0; round < rounds; ++round, ++seed) {
      const auto sessions = c.sessions();
      const auto halts = c.halts().size();
      // Keepalives come when the stream is quiet (the answer to the pipeline's ping among them).
      if (target == corruption_target::keepalive_position) c.hold_writer(true);
      // Past the handshake and the connect chain's answers: the damage lands in the stream.
      c.proxy().corrupt(corruption{.skip_bytes = 4096, .max_bytes = 1, .rate = 0.2, .target = target, .seed = seed});
      BOOST_TEST_REQUIRE(wait_until([&] { return c.proxy().corrupted() == 1U; }, 10s),
                         "no byte of the kind " << to_string(target) << " passed");
      c.hold_writer(false);
      // The flipped byte left the server before the WAL reached this position.
      const auto flipped_before = c.db().pg.scalar("SELECT pg_current_wal_lsn()");
      // A halt, a new session, or a transaction delivered past the flipped byte (the bit was in a
      // clock or a flag nobody reads, or the damage went unnoticed: the final check tells which).
      BOOST_TEST(
          wait_until([&] { return c.halted() || c.sessions() > sessions || c.delivered_past(flipped_before); }, 10s),
          "no reaction to a flip in " << to_string(target) << " (seed " << seed << ")");
      c.proxy().set_mode(fault_mode::pass_through);
      if (c.halted()) {
        c.restart_after_halt();
        const auto why = c.halts().back().reason;
        BOOST_TEST((why == halt_reason::decode_failure), "halted " << replicant::to_string(why) << " after a flip in "
                                                                   << to_string(target) << " (seed " << seed << ")");
      }
      c.note(std::string{to_string(target)} + ":" +
             (c.halts().size() > halts  ? "halt"
              : c.sessions() > sessions ? "reconnect"
                                        : "read_on"));
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(network_faults, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(n1_a_hard_cut_reconnects_and_resumes) {
  fault_case c{"N1"};
  c.start();
  fault_case::let_run(600ms);
  const auto before = c.sessions();
  c.proxy().set_mode(fault_mode::cut);
  fault_case::let_run(300ms);  // reconnect attempts meet a network that refuses them
  c.proxy().set_mode(fault_mode::pass_through);
  BOOST_TEST(c.wait_for_session_after(before));
  fault_case::let_run(600ms);
  c.finish();
  BOOST_TEST(c.halts().empty());
}

BOOST_AUTO_TEST_CASE(n2_a_black_hole_is_noticed_by_the_receive_timeout) {
  fault_case c{"N2"};
  c.options().receive_timeout = 1500ms;
  c.options().publication_check_interval = 0ms;  // the check's own connection is N2p's subject
  c.start();
  fault_case::let_run(600ms);
  const auto disconnects = c.disconnects();
  const auto before = c.sessions();
  c.proxy().set_mode(fault_mode::black_hole);
  const auto silent_since = std::chrono::steady_clock::now();
  // Nothing crosses the proxy, not even a close: only the pipeline's own clock can tell.
  const bool noticed = wait_until([&] { return c.disconnects() > disconnects; }, 10s);
  const auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - silent_since);
  BOOST_TEST(noticed, "the pipeline did not notice a silent connection");
  BOOST_TEST(took < 3500ms, "noticed after " << took.count() << " ms, with receive_timeout 1500 ms");
  fault_case::let_run(500ms);  // reconnect attempts go into the hole too
  c.proxy().set_mode(fault_mode::pass_through);
  BOOST_TEST(c.wait_for_session_after(before));
  fault_case::let_run(600ms);
  c.finish();
  BOOST_TEST(c.halts().empty());
}

BOOST_AUTO_TEST_CASE(n2p_a_black_hole_during_the_publication_check_is_noticed_and_stop_returns) {
  // The periodic publication check has a connection of its own, through the same network. When
  // the network goes silent while a check waits for its answer, the pipeline must still give up
  // the session within its receive timeout, and stop() must still end run().
  fault_case c{"N2p"};
  c.options().receive_timeout = 1500ms;
  c.options().publication_check_interval = 200ms;  // the default 10 s, compressed
  c.start();
  fault_case::let_run(600ms);
  const auto disconnects = c.disconnects();
  const auto before = c.sessions();
  c.proxy().set_mode(fault_mode::black_hole);
  BOOST_TEST(wait_until([&] { return c.disconnects() > disconnects; }, 5s),
             "the pipeline did not notice a silent connection within 5 s (receive_timeout 1500 ms)");
  const bool stopped = c.stop_within(5s);
  BOOST_TEST(stopped, "run() did not return within 5 s of stop() while the network was silent");
  c.proxy().set_mode(fault_mode::pass_through);
  if (!stopped) BOOST_TEST_REQUIRE(c.wait_for_stop(30s), "run() did not return after the network came back either");
  c.start();
  BOOST_TEST(c.wait_for_session_after(before));
  fault_case::let_run(600ms);
  c.finish();
  BOOST_TEST(c.halts().empty());
}

BOOST_AUTO_TEST_CASE(n3_fragmented_reads_deliver_everything) {
  fault_case c{"N3", 5ms};
  c.proxy().set_mode(fault_mode::fragment);  // from the startup handshake on
  c.start();
  // Enough of the stream went through in pieces (how soon depends on the machine, not the pipeline).
  BOOST_TEST(wait_until([&] { return c.proxy().relayed_to_client() > 50'000U; }, 60s));
  BOOST_TEST(c.sessions() == 1U);
  c.proxy().set_mode(fault_mode::pass_through);
  c.finish();
  BOOST_TEST(c.halts().empty());
}

BOOST_AUTO_TEST_CASE(n4_a_corrupted_frame_halts_or_reconnects_and_never_delivers_a_wrong_row) {
  fault_case c{"N4"};
  // A flipped length can announce a message far longer than what follows: libpq then waits for
  // the rest, and only the receive timeout ends the wait.
  c.options().receive_timeout = 1500ms;
  c.start();
  fault_case::let_run(500ms);
  flip_bits(c,
            corruption_targets({corruption_target::message_header, corruption_target::replication_header,
                                corruption_target::pgoutput_tag}),
            3);
  c.finish();
}

BOOST_AUTO_TEST_CASE(n4p_a_corrupted_commit_position_is_never_acknowledged_nor_loses_a_transaction) {
  fault_case c{"N4p"};
  c.options().receive_timeout = 1500ms;
  c.start();
  fault_case::let_run(500ms);
  flip_bits(c, corruption_targets({corruption_target::commit_lsns}), 2);
  c.finish();
}

// A keepalive whose position was damaged, even the same bit in keepalive after keepalive, never
// moves the slot: the idle advance also needs the server's own statistics, read on a connection of
// their own, to name the position. Here bit 32 of the position (4 GiB ahead of a young cluster's
// WAL) is flipped in every keepalive of a quiet stream, random flips follow as in N4p, and the final
// check finds the slot acknowledged within the WAL and nothing lost after a reconnect.
BOOST_AUTO_TEST_CASE(n4k_a_corrupted_keepalive_position_is_never_acknowledged) {
  fault_case c{"N4k"};
  c.options().receive_timeout = 1500ms;
  c.start();
  fault_case::let_run(500ms);
  c.hold_writer(true);
  c.proxy().corrupt(corruption{.skip_bytes = 4096,
                               .max_bytes = 6,
                               .rate = 1.0,
                               .target = corruption_target::keepalive_position,
                               .body_offset = 4,
                               .bit = 0});
  BOOST_TEST_REQUIRE(wait_until([&] { return c.proxy().corrupted() == 6U; }, 20s), "six keepalives passed");
  fault_case::let_run(1500ms);  // time for a status update to follow the last of them
  BOOST_TEST(c.acknowledged_within_wal(), "the slot was acknowledged past the end of the WAL");
  c.proxy().set_mode(fault_mode::pass_through);
  c.hold_writer(false);
  fault_case::let_run(300ms);
  flip_bits(c, corruption_targets({corruption_target::keepalive_position}), 2);
  c.finish();
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(server_faults, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(s1_an_immediate_crash_and_restart_loses_and_duplicates_nothing) {
  fault_case c{"S1"};
  c.start();
  fault_case::let_run(600ms);
  const auto before = c.sessions();
  c.db().pg.crash();
  c.db().pg.start();
  BOOST_TEST(c.wait_for_session_after(before, 60s));
  fault_case::let_run(600ms);
  c.finish();
  BOOST_TEST(c.halts().empty());
}

BOOST_AUTO_TEST_CASE(s2_a_clean_restart_loses_and_duplicates_nothing) {
  fault_case c{"S2"};
  c.start();
  fault_case::let_run(600ms);
  const auto before = c.sessions();
  c.db().pg.restart();
  BOOST_TEST(c.wait_for_session_after(before, 60s));
  fault_case::let_run(600ms);
  c.finish();
  BOOST_TEST(c.halts().empty());
}

BOOST_AUTO_TEST_CASE(s3_a_terminated_walsender_reconnects) {
  fault_case c{"S3"};
  c.start();
  fault_case::let_run(600ms);
  const auto before = c.sessions();
  BOOST_TEST(c.db().pg.scalar("SELECT count(pg_terminate_backend(active_pid)) FROM pg_replication_slots "
                              "WHERE slot_name = '" +
                              c.db().slot + "'") == "1");
  BOOST_TEST(c.wait_for_session_after(before));
  fault_case::let_run(600ms);
  c.finish();
  BOOST_TEST(c.halts().empty());
}

// Runs @p ddl under the writer and expects the publication check to halt publication_changed; the
// restart takes the new definition and the final check finds nothing lost or repeated.
auto publication_altered(const std::string& name, const std::string& ddl) -> void {
  fault_case c{name};
  c.db().sql("CREATE TABLE side (id int PRIMARY KEY); ALTER PUBLICATION pub ADD TABLE side");
  c.options().publication_check_interval = 200ms;
  c.start();
  fault_case::let_run(600ms);
  c.db().sql(ddl);
  BOOST_TEST_REQUIRE(wait_until([&] { return c.halted(); }, 10s), name << ": no halt after the change");
  c.restart_after_halt();
  BOOST_TEST_REQUIRE(c.halts().size() == 1U);
  BOOST_TEST((c.halts().back().reason == halt_reason::publication_changed));
  fault_case::let_run(600ms);
  c.finish();
  BOOST_TEST(c.halts().size() == 1U, name << ": the new definition halted again");
}

BOOST_AUTO_TEST_CASE(s6_a_table_removed_from_the_publication_halts_and_loses_nothing) {
  publication_altered("S6", "ALTER PUBLICATION pub DROP TABLE side");
}

BOOST_AUTO_TEST_CASE(s6f_a_row_filter_set_while_streaming_halts_and_loses_nothing) {
  publication_altered("S6f", "ALTER PUBLICATION pub SET TABLE items WHERE (id >= 0), side");
}

BOOST_AUTO_TEST_CASE(s5_a_stall_longer_than_wal_sender_timeout_reconnects) {
  fault_case c{"S5"};
  c.options().receive_timeout = 60s;  // the server must be the one to give up here
  c.start();
  fault_case::let_run(600ms);
  const auto timeouts = walsender_timeouts(c.db().pg);
  const auto before = c.sessions();
  c.proxy().set_mode(fault_mode::black_hole);
  BOOST_TEST(wait_until([&] { return walsender_timeouts(c.db().pg) > timeouts; }, 15s),
             "the server never timed the walsender out");
  c.proxy().set_mode(fault_mode::pass_through);
  BOOST_TEST(c.wait_for_session_after(before));
  fault_case::let_run(600ms);
  c.finish();
  BOOST_TEST(c.halts().empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // faults_tests
