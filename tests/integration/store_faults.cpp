// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Storage faults of a library-owned checkpoint, with the library's own stores, under a live
// pipeline, once per PostgreSQL major (docs/reliability.md, "Storage faults").
//
// A store that hangs: the checkpoint row locked by another session, the store's backend frozen
// (SIGSTOP), a FIFO where the file store writes its temporary file. Each call must end at the
// store's timeout and count against the retry budget (then the pipeline halts
// checkpoint_store_failed); stop() must end run() at once; the connection must keep answering the
// server meanwhile without acknowledging anything the store does not hold; and once the store is
// back a restart loses nothing and repeats only the one transaction whose checkpoint was not written
// (the at-least-once contract of lib_owned_checkpoint, which a sink dedups by commit LSN).
//
// A store that went back in time (restored from a backup) and one ahead of the slot (a slot whose
// last acknowledgement was lost, or restored): neither loses nor repeats anything. A checkpoint past
// the end of the server's WAL cannot come from that server: it halts checkpoint_ahead_of_server.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/faults/frozen_process.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/checkpoint/postgres_store.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(store_faults_tests)

namespace fs = std::filesystem;
namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::event_log;
using replicant::test::frozen_process;
using replicant::test::published_database;
using replicant::test::running;
using replicant::test::wait_until;
using replicant::test::walsender_timeouts;

namespace {

// The server drops a walsender that has not heard from its client for this long: shorter than
// the store outages below, which the connection must ride out by answering the server.
constexpr std::string_view wal_sender_timeout = "2s";

auto configure_server_once() -> void {
  static bool done = false;
  if (done) return;
  auto& pg = replicant::test::live_server();
  pg.set("wal_sender_timeout", wal_sender_timeout);
  pg.reload();
  done = true;
}

// A non-transactional sink: it records every delivery (a repeated one too) and cannot store an LSN.
struct recording_sink {
  std::mutex mutex;
  std::vector<std::pair<lsn, std::int64_t>> deliveries;  // commit LSN, id of the row

  auto handle_transaction(const replicant::transaction& t) -> result<void> {
    const std::lock_guard lock{mutex};
    for (const auto& c : t.changes()) {
      const auto id = c.record().value("id");
      deliveries.emplace_back(t.commit_lsn(), id && id->holds<std::int64_t>() ? id->get<std::int64_t>() : -1);
    }
    return {};
  }
  auto count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return deliveries.size();
  }
  auto wait_for(std::size_t n, std::chrono::seconds timeout = 30s) -> bool {
    return wait_until([&] { return count() >= n; }, timeout);
  }
  // The commit LSN of the (first) delivery of row @p id.
  auto commit_of(std::int64_t id) -> lsn {
    const std::lock_guard lock{mutex};
    for (const auto& [at, row] : deliveries) {
      if (row == id) return at;
    }
    return lsn{};
  }
  // How many times each row was delivered.
  auto times() -> std::map<std::int64_t, int> {
    const std::lock_guard lock{mutex};
    std::map<std::int64_t, int> out;
    for (const auto& [at, row] : deliveries) ++out[row];
    return out;
  }
  // Requires @p rows rows, each delivered exactly once.
  auto require_each_once(std::size_t rows) -> void {
    const auto delivered = times();
    BOOST_TEST(delivered.size() == rows);
    for (const auto& [id, n] : delivered) BOOST_TEST(n == 1, "row " << id);
  }
};
static_assert(replicant::lib_mode_sink<recording_sink>);

using pg_policy = replicant::lib_owned_checkpoint<replicant::postgres_checkpoint_store>;
using file_policy = replicant::lib_owned_checkpoint<replicant::file_checkpoint_store>;
using pg_pipeline = replicant::pgoutput_pipeline<recording_sink, pg_policy>;
using file_pipeline = replicant::pgoutput_pipeline<recording_sink, file_policy>;
using sink_owned_pipeline = replicant::pgoutput_pipeline<replicant::test::memory_sink>;

// A source database with its pipeline options, and a database of its own for the checkpoint
// store, whose sessions carry an application_name to be found by.
struct fixture {
  published_database f;
  std::string store_db = f.pg.unique_name("ckpt");
  std::string app = f.pg.unique_name("store_app");

  fixture() {
    configure_server_once();
    f.pg.create_database(store_db);
  }

  // A store on store_db whose commands give up after @p timeout.
  [[nodiscard]] auto store(std::chrono::milliseconds timeout) const -> replicant::postgres_checkpoint_store {
    return replicant::postgres_checkpoint_store{
        {.conninfo = f.pg.dsn(store_db) + " application_name=" + app, .command_timeout = timeout}};
  }
  [[nodiscard]] auto policy(std::chrono::milliseconds timeout, std::uint32_t retries,
                            std::chrono::milliseconds backoff) const -> pg_policy {
    return pg_policy{.store = store(timeout), .batch = std::nullopt, .max_retries = retries, .retry_backoff = backoff};
  }
  // The checkpoint the store holds for the pipeline's slot, read behind the store's back.
  [[nodiscard]] auto stored() -> std::optional<lsn> {
    const auto rows =
        f.pg.sql("SELECT commit_lsn FROM replicant_checkpoints WHERE slot_name = '" + f.slot + "'", store_db);
    if (rows.empty() || !rows[0][0]) return std::nullopt;
    return lsn{std::bit_cast<std::uint64_t>(std::stoll(*rows[0][0]))};
  }
  // Sessions of the store waiting for a lock.
  [[nodiscard]] auto store_waits_for_a_lock() -> bool {
    return f.pg.scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app +
                       "' AND wait_event_type = 'Lock'") != "0";
  }
  // Locks the slot's checkpoint row in another session, for as long as the returned one is open.
  [[nodiscard]] auto lock_checkpoint_row() -> replicant::test::pg_connection {
    auto holder = f.pg.connect(store_db);
    holder.exec("BEGIN");
    holder.exec("SELECT * FROM replicant_checkpoints WHERE slot_name = '" + f.slot + "' FOR UPDATE");
    return holder;
  }
  auto insert(int id) -> void {
    f.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 's3cr3t-" + std::to_string(id) + "', 1)");
  }
};

auto since(std::chrono::steady_clock::time_point t) -> std::chrono::milliseconds {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t);
}

// A FIFO where the file store writes its temporary file: its open(2) blocks until release().
class blocked_temp_file {
 public:
  explicit blocked_temp_file(fs::path temp) : temp_(std::move(temp)) {
    BOOST_TEST_REQUIRE(::mkfifo(temp_.c_str(), 0600) == 0);
  }
  blocked_temp_file(const blocked_temp_file&) = delete;
  auto operator=(const blocked_temp_file&) -> blocked_temp_file& = delete;
  ~blocked_temp_file() {
    release();
    static_cast<void>(wait_until([&] { return gone(); }, 10s));
    if (reader_ >= 0) ::close(reader_);
  }
  auto release() -> void {
    if (reader_ < 0 && !gone()) reader_ = ::open(temp_.c_str(), O_RDONLY | O_NONBLOCK);
  }
  [[nodiscard]] auto gone() const -> bool { return !fs::exists(fs::symlink_status(temp_)); }

  /// Whether a thread of this process is blocked opening a FIFO for writing, waiting for a reader
  /// (the kernel's wait_for_partner): the store's write has reached this one.
  [[nodiscard]] static auto writer_blocked() -> bool {
    std::error_code ec;
    for (const auto& task : fs::directory_iterator{"/proc/self/task", ec}) {
      std::ifstream in{task.path() / "wchan"};
      std::string wchan;
      if (std::getline(in, wchan) && wchan == "wait_for_partner") return true;
    }
    return false;
  }

 private:
  fs::path temp_;
  int reader_ = -1;
};

struct ignore_sigpipe {
  ignore_sigpipe() { std::signal(SIGPIPE, SIG_IGN); }  // a FIFO's reader may go first
};

}  // namespace

// The rest of the suite runs inside ignore_sigpipe, made before its first test and ended after its last.
BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE(store_faults_tests, *boost::unit_test::fixture<ignore_sigpipe>())

BOOST_AUTO_TEST_SUITE(a_store_that_hangs, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(a_locked_checkpoint_row_halts_after_the_budget_and_a_restart_loses_nothing) {
  fixture x;
  recording_sink sink;
  event_log events;
  {
    running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(300ms, 2, 100ms), x.f.options, &events.dispatcher};
    BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
    x.insert(1);
    BOOST_TEST_REQUIRE(sink.wait_for(1));
    BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(1); }));
    auto holder = x.lock_checkpoint_row();
    const auto started = std::chrono::steady_clock::now();
    x.insert(2);
    BOOST_TEST_REQUIRE(r.ends_within(30s), "no halt");
    BOOST_TEST(r.halted() == halt_reason::checkpoint_store_failed);
    BOOST_TEST(since(started) < 10s, "three attempts of about 300 ms each");
    const auto& h = r.pipeline.last_halt();
    BOOST_TEST_REQUIRE(h.has_value());
    BOOST_TEST(h->attempts.value_or(0) == 3U);
    BOOST_TEST(h->sqlstate.value_or("") == "55P03");  // lock_not_available: it says what hung
    BOOST_TEST(h->cause == replicant::errc::checkpoint_store_failed);
    BOOST_TEST(!replicant::describe(*h).empty());
    BOOST_TEST(x.f.confirmed_flush() < sink.commit_of(2), "nothing past the written checkpoint is acknowledged");
    BOOST_TEST((x.stored() == sink.commit_of(1)));
    holder.exec("ROLLBACK");
  }
  BOOST_TEST(events.count("replicant.checkpoint_store.retrying") == 2U);
  BOOST_TEST(events.contains("error_class=checkpoint_store_failed"));
  BOOST_TEST(events.count("replicant.checkpoint_store.failed") == 1U);

  // The store is back: a restart delivers the transaction whose checkpoint was not written again,
  // once, and goes on.
  running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(300ms, 2, 100ms), x.f.options};
  BOOST_TEST_REQUIRE(sink.wait_for(3));
  x.insert(3);
  BOOST_TEST_REQUIRE(sink.wait_for(4));
  BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(3); }));
  BOOST_TEST(!r.stop());
  const auto times = sink.times();
  BOOST_TEST(times.at(1) == 1);
  BOOST_TEST(times.at(2) == 2);  // the one repeat lib_owned_checkpoint allows: delivered, not checkpointed
  BOOST_TEST(times.at(3) == 1);
  BOOST_TEST(sink.count() == 4U);
}

BOOST_AUTO_TEST_CASE(stop_returns_at_once_while_the_store_waits_for_a_lock) {
  fixture x;
  recording_sink sink;
  {
    running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(30s, 5, 1s), x.f.options};
    BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
    x.insert(1);
    BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(1) && sink.count() == 1U; }));
    auto holder = x.lock_checkpoint_row();
    x.insert(2);
    BOOST_TEST_REQUIRE(wait_until([&] { return x.store_waits_for_a_lock(); }), "the checkpoint write never waited");
    const auto started = std::chrono::steady_clock::now();
    const auto stopped = r.stop();
    const auto took = since(started);
    BOOST_TEST(!stopped, "a stop is not a halt: " << stopped.message());
    BOOST_TEST(took < 3s, "stop() took " << took.count() << " ms with a store command_timeout of 30 s");
    BOOST_TEST(x.f.confirmed_flush() < sink.commit_of(2));
    // The statement given up on does not wait for the lock until its timeout: the server notices
    // its client has gone (client_connection_check_interval) and ends it.
    BOOST_TEST(wait_until([&] { return !x.store_waits_for_a_lock(); }, 10s), "the abandoned statement lingers");
    holder.exec("ROLLBACK");
  }
  running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(30s, 5, 1s), x.f.options};
  BOOST_TEST_REQUIRE(sink.wait_for(3));
  x.insert(3);
  BOOST_TEST_REQUIRE(sink.wait_for(4));
  BOOST_TEST(!r.stop());
  const auto times = sink.times();
  BOOST_TEST(times.at(1) == 1);
  BOOST_TEST(times.at(2) == 2);
  BOOST_TEST(times.at(3) == 1);
  BOOST_TEST((x.stored() == sink.commit_of(3)), "the stop wrote the last checkpoint");
}

BOOST_AUTO_TEST_CASE(the_connection_keeps_answering_the_server_while_the_store_hangs) {
  fixture x;
  recording_sink sink;
  event_log events;
  running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(1s, 8, 500ms), x.f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
  x.insert(1);
  BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(1) && sink.count() == 1U; }));
  const auto timeouts = walsender_timeouts(x.f.pg);
  const auto disconnects = events.count("replicant.connection.disconnected");
  {
    auto holder = x.lock_checkpoint_row();
    x.insert(2);
    BOOST_TEST_REQUIRE(sink.wait_for(2));
    // Three times the server's wal_sender_timeout: the walsender stays, and the slot is never
    // acknowledged past what the store holds.
    const auto until = std::chrono::steady_clock::now() + 6s;
    bool active = true;
    bool within = true;
    while (std::chrono::steady_clock::now() < until) {
      active = active && x.f.slot_active();
      within = within && x.f.confirmed_flush() < sink.commit_of(2);
      std::this_thread::sleep_for(200ms);
    }
    BOOST_TEST(active, "the slot went inactive while the store hung");
    BOOST_TEST(within, "the slot was acknowledged past the checkpoint the store holds");
    // Each attempt waits out its 1 s timeout and a backoff: on a slow build the third may still be coming.
    BOOST_TEST(wait_until([&] { return events.count("replicant.checkpoint_store.retrying") >= 3U; }));
    holder.exec("ROLLBACK");
  }
  // The next attempt gets through; the pipeline goes on without a halt.
  BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(2); }));
  BOOST_TEST(wait_until([&] { return x.f.confirmed_flush() > sink.commit_of(2); }));
  x.insert(3);
  BOOST_TEST_REQUIRE(sink.wait_for(3));
  BOOST_TEST(walsender_timeouts(x.f.pg) == timeouts, "the server timed the walsender out");
  BOOST_TEST(events.count("replicant.connection.disconnected") == disconnects);
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  BOOST_TEST(!r.stop());
  sink.require_each_once(3);
}

BOOST_AUTO_TEST_CASE(a_frozen_store_backend_is_given_up_on_and_a_retry_reconnects) {
  fixture x;
  recording_sink sink;
  event_log events;
  running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(300ms, 3, 100ms), x.f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
  x.insert(1);
  BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(1) && sink.count() == 1U; }));
  const auto pid =
      std::stoi(x.f.pg.scalar("SELECT pid FROM pg_stat_activity WHERE application_name = '" + x.app + "'"));
  {
    frozen_process frozen{pid};
    x.insert(2);
    // The first write meets the frozen backend and ends at the store's own deadline (300 ms and a
    // second); the retry connects anew.
    BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(2); }, 15s));
    BOOST_TEST(events.count("replicant.checkpoint_store.retrying") >= 1U);
    BOOST_TEST(events.contains("error_class=connection_failed"));
    frozen.thaw();
  }
  // The thawed backend may still run the upsert it never read (the same value), then it goes.
  BOOST_TEST(wait_until(
      [&] { return x.f.pg.scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = " + std::to_string(pid)) == "0"; },
      10s));
  x.insert(3);
  BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(3); }));
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  BOOST_TEST(!r.stop());
  sink.require_each_once(3);
}

BOOST_AUTO_TEST_CASE(a_file_store_that_blocks_halts_after_the_budget_and_a_restart_loses_nothing) {
  fixture x;
  replicant::test::temp_dir dir{"replicant-store-faults"};
  const auto file = dir.path() / "checkpoint";
  recording_sink sink;
  const auto policy = [&](std::chrono::milliseconds timeout) {
    return file_policy{.store = replicant::file_checkpoint_store{file, {.io_timeout = timeout}},
                       .batch = std::nullopt,
                       .max_retries = 2,
                       .retry_backoff = 100ms};
  };
  const auto stored = [&] {
    return replicant::file_checkpoint_store{file}.read(*replicant::slot_name::make(x.f.slot));
  };
  {
    std::optional<blocked_temp_file> fifo;
    {
      running<file_pipeline> r{sink, x.f.pgoutput, policy(300ms), x.f.options};
      BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
      x.insert(1);
      BOOST_TEST_REQUIRE(wait_until([&] {
        const auto at = stored();
        return at && *at == sink.commit_of(1) && sink.count() == 1U;
      }));
      fifo.emplace(dir.path() / "checkpoint.tmp");
      const auto started = std::chrono::steady_clock::now();
      x.insert(2);
      BOOST_TEST_REQUIRE(r.ends_within(30s), "no halt");
      BOOST_TEST(r.halted() == halt_reason::checkpoint_store_failed);
      BOOST_TEST(since(started) < 10s);
      const auto& h = r.pipeline.last_halt();
      BOOST_TEST_REQUIRE(h.has_value());
      BOOST_TEST(h->attempts.value_or(0) == 3U);
      BOOST_TEST(h->cause == replicant::errc::io_failed);
      BOOST_TEST(x.f.confirmed_flush() < sink.commit_of(2));
    }
    // The pipeline and its store are gone; the store's thread is still blocked. The file system
    // answers again: the blocked write fails on the FIFO and removes it.
    fifo->release();
    BOOST_TEST(wait_until([&] { return fifo->gone(); }, 10s));
  }
  const auto at = stored();
  BOOST_TEST_REQUIRE((at.has_value() && at->has_value()));
  BOOST_TEST((**at == sink.commit_of(1)), "the checkpoint file is the last one written");
  running<file_pipeline> r{sink, x.f.pgoutput, policy(300ms), x.f.options};
  BOOST_TEST_REQUIRE(sink.wait_for(3));
  x.insert(3);
  BOOST_TEST_REQUIRE(sink.wait_for(4));
  BOOST_TEST(!r.stop());
  const auto times = sink.times();
  BOOST_TEST(times.at(1) == 1);
  BOOST_TEST(times.at(2) == 2);
  BOOST_TEST(times.at(3) == 1);
}

BOOST_AUTO_TEST_CASE(stop_returns_at_once_while_a_file_store_blocks) {
  fixture x;
  replicant::test::temp_dir dir{"replicant-store-faults-stop"};
  const auto file = dir.path() / "checkpoint";
  recording_sink sink;
  const auto policy = [&] {
    return file_policy{.store = replicant::file_checkpoint_store{file, {.io_timeout = 30s}},
                       .batch = std::nullopt,
                       .max_retries = 5,
                       .retry_backoff = 1s};
  };
  std::optional<blocked_temp_file> fifo;
  {
    running<file_pipeline> r{sink, x.f.pgoutput, policy(), x.f.options};
    BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
    x.insert(1);
    BOOST_TEST_REQUIRE(wait_until([&] {
      const auto at = replicant::file_checkpoint_store{file}.read(*replicant::slot_name::make(x.f.slot));
      return at && *at == sink.commit_of(1);  // the first checkpoint's write is over
    }));
    fifo.emplace(dir.path() / "checkpoint.tmp");
    x.insert(2);
    BOOST_TEST_REQUIRE(sink.wait_for(2));
    BOOST_TEST_REQUIRE(wait_until([] { return blocked_temp_file::writer_blocked(); }), "the write never blocked");
    const auto started = std::chrono::steady_clock::now();
    const auto stopped = r.stop();
    BOOST_TEST(!stopped, stopped.message());
    BOOST_TEST(since(started) < 3s, "stop() took " << since(started).count() << " ms with an io_timeout of 30 s");
    BOOST_TEST(x.f.confirmed_flush() < sink.commit_of(2));
  }
  fifo.reset();  // releases the blocked write and waits until it is over
  running<file_pipeline> r{sink, x.f.pgoutput, policy(), x.f.options};
  BOOST_TEST_REQUIRE(sink.wait_for(3));
  x.insert(3);
  BOOST_TEST_REQUIRE(sink.wait_for(4));
  BOOST_TEST(!r.stop());
  const auto times = sink.times();
  BOOST_TEST(times.at(1) == 1);
  BOOST_TEST(times.at(2) == 2);
  BOOST_TEST(times.at(3) == 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(a_store_out_of_step_with_the_slot, *utf::label("integration"))

// A store restored from an older backup (or a file replaced by an old copy) says less than the
// slot: the server does not send again what it was told is flushed, so the transactions in
// between are not delivered again, which is right for a sink that has them. Nothing can tell this
// from the ordinary case below, so it does not halt.
BOOST_AUTO_TEST_CASE(a_store_restored_to_an_older_checkpoint_repeats_and_loses_nothing) {
  fixture x;
  recording_sink sink;
  {
    running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(2s, 2, 100ms), x.f.options};
    BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
    for (int id = 1; id <= 3; ++id) x.insert(id);
    BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(3) && sink.count() == 3U; }));
    BOOST_TEST(!r.stop());
  }
  const auto old = std::bit_cast<std::int64_t>(sink.commit_of(1).value());
  x.f.pg.sql(
      "UPDATE replicant_checkpoints SET commit_lsn = " + std::to_string(old) + " WHERE slot_name = '" + x.f.slot + "'",
      x.store_db);
  BOOST_TEST(x.f.confirmed_flush() > sink.commit_of(3));
  event_log events;
  running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(2s, 2, 100ms), x.f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
  BOOST_TEST(events.contains("replicant.checkpoint_store.read slot_name=" + x.f.slot +
                             " commit_lsn=" + replicant::to_string(sink.commit_of(1))));
  x.insert(4);
  BOOST_TEST_REQUIRE(sink.wait_for(4));
  BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(4); }));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(!r.stop());
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  sink.require_each_once(4);
}

// Why a store behind the slot cannot be called stale: a state-mirror sink's slot moves on over WAL
// that carries nothing for it (the idle advance), past the last checkpoint the store holds.
BOOST_AUTO_TEST_CASE(a_store_behind_the_slot_after_an_idle_advance_is_ordinary) {
  fixture x;
  x.f.sql("CREATE TABLE quiet (id int PRIMARY KEY)");  // not published
  recording_sink sink;
  {
    running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(2s, 2, 100ms), x.f.options};
    BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
    x.insert(1);
    BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == sink.commit_of(1); }));
    for (int i = 0; i < 5; ++i) x.f.sql("INSERT INTO quiet VALUES (" + std::to_string(i) + ")");
    const auto written = replicant::parse_lsn(x.f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
    BOOST_TEST_REQUIRE(wait_until([&] { return x.f.confirmed_flush() >= written; }, 30s),
                       "the idle advance did not move the slot");
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(*x.stored() < x.f.confirmed_flush());
  running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(2s, 2, 100ms), x.f.options};
  BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
  x.insert(2);
  BOOST_TEST_REQUIRE(sink.wait_for(2));
  BOOST_TEST(!r.stop());
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  sink.require_each_once(2);
}

// A store ahead of the slot: the slot's last acknowledgement was lost (a crash before the server
// saved it), or the slot is an older copy. What the store covers was delivered; it is skipped.
BOOST_AUTO_TEST_CASE(a_store_ahead_of_the_slot_skips_what_it_covers) {
  fixture x;
  const std::string older = x.f.pg.unique_name("older_slot");
  x.f.sql("SELECT pg_create_logical_replication_slot('" + older + "', 'pgoutput')");
  struct drop_slot {
    published_database& f;
    std::string name;
    ~drop_slot() {
      try {
        f.pg.sql("SELECT pg_drop_replication_slot('" + name + "')");
      } catch (...) {
      }
    }
  } cleanup{x.f, older};
  recording_sink first;
  {
    running<pg_pipeline> r{first, x.f.pgoutput, x.policy(2s, 2, 100ms), x.f.options};
    BOOST_TEST_REQUIRE(wait_until([&] { return x.f.slot_active(); }));
    for (int id = 1; id <= 3; ++id) x.insert(id);
    BOOST_TEST_REQUIRE(wait_until([&] { return x.stored() == first.commit_of(3); }));
    BOOST_TEST(!r.stop());
  }
  // The older slot, created before the three transactions, under the name the store knows, with
  // the checkpoint the pipeline wrote.
  auto store = x.store(2s);
  BOOST_TEST_REQUIRE(store.write(*replicant::slot_name::make(older), first.commit_of(3)).has_value());
  auto options = x.f.options;
  options.slot = older;
  const auto older_flush =
      replicant::parse_lsn(
          x.f.pg.scalar("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + older + "'"))
          .value();
  BOOST_TEST(older_flush < first.commit_of(1));
  recording_sink second;
  running<pg_pipeline> r{second, x.f.pgoutput, x.policy(2s, 2, 100ms), options};
  BOOST_TEST_REQUIRE(wait_until([&] {
    return x.f.pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + older + "' AND active") ==
           "1";
  }));
  x.insert(4);
  BOOST_TEST_REQUIRE(second.wait_for(1));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(!r.stop());
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  const auto times = second.times();
  BOOST_TEST(times.size() == 1U, "rows 1 to 3 are covered by the checkpoint and were skipped");
  BOOST_TEST(times.count(4) == 1U);
}

// A checkpoint past the end of the server's WAL cannot come from that server: the store is shared
// by mistake with a pipeline of another cluster, or the server was restored from a backup, or a
// standby was promoted before it had what the sink has. Streaming from it would skip, silently,
// every transaction committed below it.
BOOST_AUTO_TEST_CASE(a_checkpoint_past_the_end_of_the_wal_halts) {
  fixture x;
  const auto end = replicant::parse_lsn(x.f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
  const lsn elsewhere{end.value() + (std::uint64_t{1} << 32U)};
  {
    auto store = x.store(2s);
    BOOST_TEST_REQUIRE(store.write(*replicant::slot_name::make(x.f.slot), elsewhere).has_value());
  }
  recording_sink sink;
  event_log events;
  running<pg_pipeline> r{sink, x.f.pgoutput, x.policy(2s, 2, 100ms), x.f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(r.ends_within(30s), "no halt");
  BOOST_TEST(r.halted() == halt_reason::checkpoint_ahead_of_server);
  BOOST_TEST(events.disconnected(halt_reason::checkpoint_ahead_of_server));
  const auto& h = r.pipeline.last_halt();
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST((h->at == elsewhere));
  BOOST_TEST(events.contains("replicant.connection.slot_invalidated slot_name=" + x.f.slot +
                             " reason=checkpoint_ahead_of_server"));
  BOOST_TEST(!x.f.slot_exists(), "nothing was created for a checkpoint of another history");
  BOOST_TEST(replicant::describe(*h).find("checkpoint_ahead_of_server") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_sink_checkpoint_past_the_end_of_the_wal_halts_too) {
  published_database f;
  replicant::test::memory_sink sink;
  {
    running<sink_owned_pipeline> r{sink, f.pgoutput, f.options};
    BOOST_TEST_REQUIRE(wait_until([&] { return f.slot_active(); }));
    f.sql("INSERT INTO items VALUES (1, 'x', 1)");
    BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
    BOOST_TEST(!r.stop());
  }
  const auto flushed = f.confirmed_flush();
  const auto end = replicant::parse_lsn(f.pg.scalar("SELECT pg_current_wal_lsn()")).value();
  {
    const std::lock_guard lock{sink.mutex};
    sink.stored = lsn{end.value() + (std::uint64_t{1} << 40U)};  // a sink restored next to another cluster
  }
  running<sink_owned_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(r.ends_within(30s), "no halt");
  BOOST_TEST(r.halted() == halt_reason::checkpoint_ahead_of_server);
  BOOST_TEST((f.confirmed_flush() == flushed), "the slot was not touched");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // store_faults_tests
