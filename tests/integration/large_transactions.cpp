// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Streaming of in-progress transactions and two-phase decoding against a real server, once per
// PostgreSQL major. The server of this program streams every transaction it can (a 64 kB
// logical_decoding_work_mem, and debug_logical_replication_streaming = immediate on 16+) and allows
// prepared transactions.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include "../examples/custom_policies/mmap_spill.hpp"

#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(large_transactions_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::live_server;
using replicant::test::memory_sink;
using replicant::test::running;
using replicant::test::wait_until;

namespace {

constexpr std::string_view secret = "s3cr3t-SPILL-6161";

// The live server, configured once for this program.
struct streaming_server {
  streaming_server() {
    auto& pg = live_server();
    pg.set("max_prepared_transactions", "10");
    pg.set("logical_decoding_work_mem", "64kB");
    if (pg.major() >= 16) pg.set("debug_logical_replication_streaming", "immediate");
    pg.restart();
  }
};

// A sink that also sees each PREPARE.
struct two_phase_sink : memory_sink {
  std::vector<std::string> prepared;
  auto handle_prepare(const replicant::prepared_event& e) -> result<void> {
    const std::lock_guard lock{mutex};
    prepared.emplace_back(e.gid);
    return {};
  }
};

using plain_pipeline = replicant::pgoutput_pipeline<memory_sink>;
using two_phase_pipeline = replicant::pgoutput_pipeline<two_phase_sink>;

// The ids delivered, in delivery order.
auto ids(memory_sink& sink) -> std::vector<int> {
  std::vector<int> out;
  for (const auto& r : sink.snapshot()) out.push_back(std::stoi(r.id));
  return out;
}

auto range(int first, int last) -> std::vector<int> {
  std::vector<int> out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

auto insert_range(int first, int last) -> std::string {
  return "INSERT INTO items SELECT g, repeat('x', 200), 1 FROM generate_series(" + std::to_string(first) + ", " +
         std::to_string(last) + ") g";
}

// Transactions the server streamed on this slot so far (pg_stat_replication_slots).
auto streamed(replicant::test::published_database& f) -> long {
  return std::stol(f.pg.scalar(
      "SELECT coalesce(sum(stream_txns), 0) FROM pg_stat_replication_slots WHERE slot_name = '" + f.slot + "'"));
}

}  // namespace

// The rest of the suite runs inside streaming_server, made before its first test and ended after its last.
BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE(large_transactions_tests, *boost::unit_test::fixture<streaming_server>())

BOOST_AUTO_TEST_SUITE(streaming, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(delivers_exactly_the_committed_changes_of_streamed_transactions) {
  replicant::test::published_database f;
  f.pgoutput.streaming = true;
  memory_sink sink;
  replicant::test::event_log events;
  running<plain_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));

  // A subtransaction rolled back in the middle, another one kept.
  f.sql("BEGIN; " + insert_range(1, 500) + "; SAVEPOINT a; " + insert_range(501, 1000) + "; ROLLBACK TO a; " +
        "SAVEPOINT b; " + insert_range(1001, 1500) + "; RELEASE b; COMMIT");
  // A streamed transaction that aborts as a whole delivers nothing.
  f.sql("BEGIN; " + insert_range(2001, 3000) + "; ROLLBACK");
  f.sql("INSERT INTO items VALUES (5000, 'small', 1)");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(1001));
  std::this_thread::sleep_for(300ms);
  auto expected = range(1, 500);
  const auto kept = range(1001, 1500);
  expected.insert(expected.end(), kept.begin(), kept.end());
  expected.push_back(5000);
  BOOST_TEST(ids(sink) == expected, boost::test_tools::per_element());
  BOOST_TEST(sink.commits.size() == 2U);
  BOOST_TEST(streamed(f) >= 1);
  BOOST_TEST(events.contains("replicant.stream.committed"));
  // Each abort says why and what it dropped (the rolled-back subtransaction, the whole transaction).
  const auto aborts = events.count("replicant.stream.aborted");
  BOOST_TEST(aborts >= 1U);
  BOOST_TEST(events.count("replicant.stream.aborted reason=stream_abort byte_size=") == aborts);
  BOOST_TEST(events.count("replicant.stream.aborted reason=stream_abort byte_size=0 ") == 0U);
  BOOST_TEST_REQUIRE(wait_until([&] { return f.confirmed_flush() > sink.commits.back(); }));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(interleaved_streamed_transactions_commit_in_commit_order) {
  replicant::test::published_database f;
  f.pgoutput.streaming = true;
  memory_sink sink;
  running<plain_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));

  replicant::test::pg_connection a{f.pg.dsn(f.db)};
  replicant::test::pg_connection b{f.pg.dsn(f.db)};
  a.exec("BEGIN");
  b.exec("BEGIN");
  a.exec(insert_range(1, 400));
  b.exec(insert_range(1001, 1400));
  a.exec(insert_range(401, 800));
  b.exec("SAVEPOINT s");
  b.exec(insert_range(1401, 1800));
  b.exec("ROLLBACK TO s");
  b.exec("COMMIT");  // b commits first
  a.exec("COMMIT");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(1200));
  auto expected = range(1001, 1400);
  const auto later = range(1, 800);
  expected.insert(expected.end(), later.begin(), later.end());
  BOOST_TEST(ids(sink) == expected, boost::test_tools::per_element());
  BOOST_TEST(std::is_sorted(sink.commits.begin(), sink.commits.end()));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(too_many_transactions_in_progress_halts) {
  replicant::test::published_database f;
  f.pgoutput.streaming = true;
  f.options.max_concurrent_txns = 1;
  memory_sink sink;
  replicant::test::event_log events;
  running<plain_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  replicant::test::pg_connection a{f.pg.dsn(f.db)};
  replicant::test::pg_connection b{f.pg.dsn(f.db)};
  a.exec("BEGIN");
  b.exec("BEGIN");
  a.exec(insert_range(1, 400));
  b.exec(insert_range(1001, 1400));
  a.exec(insert_range(401, 800));  // makes sure the first is streamed again while the second is open
  BOOST_TEST(r.halted() == halt_reason::transaction_too_large);
  BOOST_TEST(events.disconnected(halt_reason::transaction_too_large));
  a.exec("ROLLBACK");
  b.exec("ROLLBACK");
  BOOST_TEST(sink.snapshot().empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(two_phase, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(delivers_a_prepared_transaction_at_commit_prepared_and_never_after_rollback) {
  replicant::test::published_database f;
  f.pgoutput.two_phase = true;
  two_phase_sink sink;
  running<two_phase_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));

  f.sql("BEGIN; INSERT INTO items VALUES (1, 'p', 1); PREPARE TRANSACTION 'g1'");
  f.sql("BEGIN; INSERT INTO items VALUES (2, 'r', 1); PREPARE TRANSACTION 'g2'");
  BOOST_TEST_REQUIRE(wait_until([&] {
    const std::lock_guard lock{sink.mutex};
    return sink.prepared.size() == 2U;
  }));
  f.sql("INSERT INTO items VALUES (3, 'plain', 1)");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
  // The slot waits before the first PREPARE, although a later transaction was stored.
  BOOST_TEST_REQUIRE(f.wait_for_status_update());  // the slot's position is the pipeline's answer now
  const auto prepare_held = f.confirmed_flush();
  BOOST_TEST(prepare_held < sink.commits.back());

  f.sql("ROLLBACK PREPARED 'g2'");
  f.sql("COMMIT PREPARED 'g1'");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(2));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST((ids(sink) == std::vector<int>{3, 1}));
  BOOST_TEST((sink.prepared == std::vector<std::string>{"g1", "g2"}));
  BOOST_TEST_REQUIRE(wait_until([&] { return f.confirmed_flush() > sink.commits.back(); }));
  BOOST_TEST(f.pg.scalar("SELECT two_phase FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'") == "t");
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_transaction_prepared_before_a_restart_is_delivered_after_it) {
  replicant::test::published_database f;
  f.pgoutput.two_phase = true;
  two_phase_sink sink;
  {
    running<two_phase_pipeline> r{sink, f.pgoutput, f.options};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    f.sql("BEGIN; INSERT INTO items VALUES (1, 'p', 1); PREPARE TRANSACTION 'g3'");
    f.sql("INSERT INTO items VALUES (2, 'plain', 1)");
    BOOST_TEST_REQUIRE(sink.wait_for_rows(1));
    BOOST_TEST(!r.stop());
  }
  f.sql("COMMIT PREPARED 'g3'");
  running<two_phase_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(sink.wait_for_rows(2));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST((ids(sink) == std::vector<int>{2, 1}));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_streamed_prepared_transaction_is_delivered_once) {
  replicant::test::published_database f;
  f.pgoutput.two_phase = true;
  f.pgoutput.streaming = true;
  two_phase_sink sink;
  running<two_phase_pipeline> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  f.sql("BEGIN; " + insert_range(1, 1000) + "; PREPARE TRANSACTION 'g4'");
  BOOST_TEST_REQUIRE(wait_until([&] {
    const std::lock_guard lock{sink.mutex};
    return !sink.prepared.empty();
  }));
  BOOST_TEST(sink.snapshot().empty());
  f.sql("COMMIT PREPARED 'g4'");
  BOOST_TEST_REQUIRE(sink.wait_for_rows(1000));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(ids(sink) == range(1, 1000), boost::test_tools::per_element());
  BOOST_TEST(sink.commits.size() == 1U);
  BOOST_TEST(!r.stop());
}

// 15 and 16 have no failover slots (failover_unsupported). 17 would create the slot, but its slot
// sync leaves two_phase_at behind, so the pipeline refuses (two_phase_failover_conflict). Either way
// no slot is left behind. 18 syncs it, and streams.
BOOST_AUTO_TEST_CASE(two_phase_with_failover_halts_below_18_leaving_no_slot_and_streams_on_18) {
  replicant::test::published_database f;
  f.pgoutput.two_phase = true;
  f.options.failover = true;
  memory_sink sink;
  replicant::test::event_log events;
  running<plain_pipeline> r{sink, f.pgoutput, f.options, &events.dispatcher};
  if (f.pg.major() < 17) {
    BOOST_TEST(r.halted() == halt_reason::failover_unsupported);
    BOOST_TEST(events.disconnected(halt_reason::failover_unsupported));
  } else if (f.pg.major() == 17) {
    BOOST_TEST(r.halted() == halt_reason::two_phase_failover_conflict);
    BOOST_TEST(events.disconnected(halt_reason::two_phase_failover_conflict));
  } else {
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    BOOST_TEST(!r.stop());
  }
  if (f.pg.major() <= 17) BOOST_TEST(!f.slot_exists());
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// Counts rows and checks their ids without keeping them: memory stays the pipeline's.
struct counting_sink {
  std::mutex mutex;
  std::optional<lsn> stored;
  std::uint64_t rows = 0;
  std::uint64_t id_sum = 0;
  std::uint64_t transactions = 0;
  auto checkpoint() -> result<std::optional<lsn>> {
    const std::lock_guard lock{mutex};
    return stored;
  }
  auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
    std::uint64_t n = 0;
    std::uint64_t sum = 0;
    for (const auto& c : t.changes()) {
      ++n;
      sum += static_cast<std::uint64_t>(c.record().value("id")->get<std::int64_t>());
    }
    const std::lock_guard lock{mutex};
    rows += n;
    id_sum += sum;
    ++transactions;
    stored = t.commit_lsn();
    return t.commit_lsn();
  }
  auto count() -> std::uint64_t {
    const std::lock_guard lock{mutex};
    return rows;
  }
};

using spill_pipeline =
    replicant::pgoutput_pipeline<counting_sink, replicant::sink_owned_checkpoint, replicant::disk_spill>;

// Under AddressSanitizer freed memory sits in a quarantine (hundreds of MiB by default), so the
// process's peak RSS says nothing about what the pipeline holds: the bound is checked elsewhere.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool rss_is_meaningful = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool rss_is_meaningful = false;
#else
constexpr bool rss_is_meaningful = true;
#endif
#else
constexpr bool rss_is_meaningful = true;
#endif

auto peak_rss_bytes() -> std::uint64_t {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<std::uint64_t>(u.ru_maxrss) * 1024U;
}

// Rows of about 250 bytes: REPLICANT_SPILL_TEST_MIB (default 48) MiB of them in one transaction.
auto spill_rows() -> int {
  const char* mib = std::getenv("REPLICANT_SPILL_TEST_MIB");
  const long n = mib != nullptr ? std::atol(mib) : 48;
  return static_cast<int>(std::max(1L, n) * 1024L * 1024L / 250L);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(disk_spill, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(a_transaction_larger_than_the_budget_is_delivered_with_bounded_memory) {
  const int rows = spill_rows();
  for (const bool streaming : {false, true}) {
    BOOST_TEST_CONTEXT("streaming " << streaming) {
      replicant::test::published_database f;
      f.pgoutput.streaming = streaming;
      f.options.max_inflight_bytes = 4U << 20U;
      replicant::test::temp_dir dir{"replicant-spill-live"};
      counting_sink sink;
      replicant::test::event_log events;
      const auto before = peak_rss_bytes();
      {
        // Room on disk for the whole transaction, whatever its size (the default is 16 budgets).
        const replicant::disk_spill spill{
            .dir = dir.path(),
            .max_spill_bytes = std::uint64_t{2} * 250U * static_cast<std::uint64_t>(rows) + (64U << 20U)};
        running<spill_pipeline> r{sink,  f.pgoutput, replicant::sink_owned_checkpoint{},
                                  spill, f.options,  &events.dispatcher};
        BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
        f.sql(insert_range(1, rows));
        BOOST_TEST_REQUIRE(wait_until([&] { return sink.count() >= static_cast<std::uint64_t>(rows); },
                                      std::chrono::seconds(120 + rows / 2000)));
        BOOST_TEST(!r.stop());
      }
      const auto n = static_cast<std::uint64_t>(rows);
      BOOST_TEST(sink.rows == n);
      BOOST_TEST(sink.id_sum == n * (n + 1) / 2);
      BOOST_TEST(sink.transactions == 1U);
      const auto grew = peak_rss_bytes() - before;
      BOOST_TEST_MESSAGE("disk_spill: " << rows << " rows, streaming " << streaming << ", peak RSS grew "
                                        << grew / (1024 * 1024) << " MiB under a 4 MiB budget");
      // Bounded by the budget (frames queued plus what is held), not by the transaction's size.
      if (rss_is_meaningful) BOOST_TEST(grew < 64U << 20U);
      BOOST_TEST(std::filesystem::is_empty(dir.path()));
      BOOST_TEST(events.contains("replicant.stream.spilled"));
    }
  }
}

// A spill policy of the user's own (a memory-mapped part, written against the public concept only)
// carries a transaction several budgets large through a live pipeline like disk_spill does.
BOOST_AUTO_TEST_CASE(a_users_spill_policy_delivers_a_transaction_larger_than_the_budget) {
  replicant::test::published_database f;
  f.options.max_inflight_bytes = 1U << 20U;
  replicant::test::temp_dir dir{"replicant-mmap-spill-live"};
  counting_sink sink;
  replicant::test::event_log events;
  using mmap_pipeline =
      replicant::pgoutput_pipeline<counting_sink, replicant::sink_owned_checkpoint, custom_policies::mmap_spill>;
  {
    running<mmap_pipeline> r{sink,
                             f.pgoutput,
                             replicant::sink_owned_checkpoint{},
                             custom_policies::mmap_spill{.dir = dir.path(), .max_bytes = 64U << 20U},
                             f.options,
                             &events.dispatcher};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    f.sql(insert_range(1, 40000));  // about 10 MB
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.count() >= 40000U; }, 120s));
    BOOST_TEST(!r.stop());
  }
  BOOST_TEST(sink.rows == 40000U);
  BOOST_TEST(sink.id_sum == std::uint64_t{40000} * 40001U / 2U);
  BOOST_TEST(sink.transactions == 1U);
  BOOST_TEST(events.contains("replicant.stream.spilled"));
  BOOST_TEST(std::filesystem::is_empty(dir.path()));
}

BOOST_AUTO_TEST_CASE(the_disk_bound_halts_spill_exhausted_and_leaves_no_file) {
  replicant::test::published_database f;
  f.options.max_inflight_bytes = 1U << 20U;
  replicant::test::temp_dir dir{"replicant-spill-live"};
  counting_sink sink;
  replicant::test::event_log events;
  running<spill_pipeline> r{sink,
                            f.pgoutput,
                            replicant::sink_owned_checkpoint{},
                            replicant::disk_spill{.dir = dir.path(), .max_spill_bytes = 2U << 20U},
                            f.options,
                            &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  f.sql(insert_range(1, 40000));  // about 10 MB
  BOOST_TEST(r.halted() == halt_reason::spill_exhausted);
  BOOST_TEST(events.disconnected(halt_reason::spill_exhausted));
  BOOST_TEST(events.contains("replicant.stream.spill_exhausted"));
  BOOST_TEST(sink.count() == 0U);
  BOOST_TEST(std::filesystem::is_empty(dir.path()));
}

// How a spill storage fault is reported besides the halt: as the sink's failure (as the reference
// does), with the reason and a file operation's error class.
constexpr std::string_view spill_failure_event = " reason=spill_io_failed error_class=io_failed";

// Storage faults: a spill directory that cannot be made or is not private (refused by the policy's
// prepare() at connect, before any frame is applied), and one where writing stops (a full disk,
// brought about with RLIMIT_FSIZE: writes past the limit fail with EFBIG). Each halts
// spill_io_failed without a byte of the rows in what it says, acknowledges nothing, and a restart
// with working storage delivers the transaction. Returns the reason of the halt, whose telemetry
// went to @p events (the cases check both).
auto spill_fault_halts_and_a_restart_delivers(const std::filesystem::path& spill_dir, bool limit_file_size,
                                              replicant::test::event_log& events) -> halt_reason {
  const std::string rows = "INSERT INTO items SELECT g, '" + std::string{secret} +
                           "-' || repeat('x', 200), 1 "
                           "FROM generate_series(1, 40000) g";  // about 10 MB
  replicant::test::published_database f;
  f.options.max_inflight_bytes = 1U << 20U;
  lsn before;
  halt_reason reason{};
  {
    counting_sink sink;
    rlimit saved{};
    ::getrlimit(RLIMIT_FSIZE, &saved);
    if (limit_file_size) {
      std::signal(SIGXFSZ, SIG_IGN);  // the failing write returns EFBIG instead of ending the process
      rlimit small = saved;
      small.rlim_cur = 1U << 20U;
      ::setrlimit(RLIMIT_FSIZE, &small);
    }
    running<spill_pipeline> r{
        sink,      f.pgoutput,        replicant::sink_owned_checkpoint{}, replicant::disk_spill{.dir = spill_dir},
        f.options, &events.dispatcher};
    if (limit_file_size) {  // the session starts, and fails at the first write that does not fit
      BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
      before = f.wal_position();
      f.sql(rows);
    }
    reason = r.halted();
    ::setrlimit(RLIMIT_FSIZE, &saved);
    const auto& h = r.pipeline.last_halt();
    BOOST_TEST_REQUIRE(h.has_value());
    BOOST_TEST(replicant::describe(*h).find(secret) == std::string::npos);
    BOOST_TEST(!events.contains(secret));
    BOOST_TEST(sink.count() == 0U);
  }
  if (!limit_file_size) {  // refused at connect: the transaction is committed while nothing runs
    before = f.wal_position();
    f.sql(rows);
  }
  // The slot may have moved over WAL written before the transaction (a keepalive's position while
  // the pipeline held nothing), never into it.
  BOOST_TEST(f.confirmed_flush() <= before, "nothing of the transaction was acknowledged");
  // Working storage again: the same transaction, whole.
  replicant::test::temp_dir good{"replicant-spill-live"};
  counting_sink sink;
  running<spill_pipeline> r{sink, f.pgoutput, replicant::sink_owned_checkpoint{},
                            replicant::disk_spill{.dir = good.path()}, f.options};
  BOOST_TEST(wait_until([&] { return sink.count() >= 40000U; }, 120s));
  BOOST_TEST(!r.stop());
  BOOST_TEST(sink.transactions == 1U);
  return reason;
}

BOOST_AUTO_TEST_CASE(a_spill_directory_that_cannot_be_made_halts_and_loses_nothing) {
  // Not even root may make a directory in /proc.
  replicant::test::event_log events;
  BOOST_TEST(spill_fault_halts_and_a_restart_delivers("/proc/replicant-spill-test", false, events) ==
             halt_reason::spill_io_failed);
  BOOST_TEST(events.disconnected(halt_reason::spill_io_failed));
  BOOST_TEST(events.count(spill_failure_event) == 1U);
}

BOOST_AUTO_TEST_CASE(a_spill_directory_others_can_write_into_halts_and_loses_nothing) {
  replicant::test::temp_dir dir{"replicant-spill-live"};
  BOOST_TEST_REQUIRE(::chmod(dir.path().c_str(), 0777) == 0);
  replicant::test::event_log events;
  BOOST_TEST(spill_fault_halts_and_a_restart_delivers(dir.path(), false, events) == halt_reason::spill_io_failed);
  BOOST_TEST(events.disconnected(halt_reason::spill_io_failed));
  BOOST_TEST(events.count(spill_failure_event) == 1U);
  BOOST_TEST(std::filesystem::is_empty(dir.path()), "nothing was written into it");
}

BOOST_AUTO_TEST_CASE(a_full_spill_disk_halts_and_loses_nothing) {
  replicant::test::temp_dir dir{"replicant-spill-live"};
  replicant::test::event_log events;
  BOOST_TEST(spill_fault_halts_and_a_restart_delivers(dir.path(), true, events) == halt_reason::spill_io_failed);
  BOOST_TEST(events.disconnected(halt_reason::spill_io_failed));
  BOOST_TEST(events.count(spill_failure_event) == 1U);
  BOOST_TEST(std::filesystem::is_empty(dir.path()), "no spill file outlives the halt");
}

// A spill policy whose parts keep their bytes in memory and stop being readable past the first
// read (as a disk that fails between spilling and delivery): a sink sees the first changes of the
// transaction, then the iteration ends with errc::io_failed.
class unreadable_part final : public replicant::spill_part {
 public:
  auto append(std::span<const std::byte> bytes) -> result<void> override {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return {};
  }
  auto flush() -> result<void> override { return {}; }
  auto read(std::uint64_t offset, std::span<std::byte> into) const -> result<std::size_t> override {
    if (offset > 0) return replicant::fail(replicant::errc::io_failed);
    const auto n = std::min(into.size(), bytes_.size());
    std::memcpy(into.data(), bytes_.data(), n);
    return n;
  }
  auto truncate(std::uint64_t size) -> result<void> override {
    bytes_.resize(static_cast<std::size_t>(size));
    return {};
  }
  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return bytes_.size(); }

 private:
  std::vector<std::byte> bytes_;
};

struct unreadable_spill {
  [[nodiscard]] auto limits(const replicant::spill_context& ctx) const -> std::optional<replicant::spill_limits> {
    return replicant::spill_limits{ctx.budget / 4, std::uint64_t{64} * ctx.budget};
  }
  auto prepare(const replicant::spill_context& /*ctx*/) -> result<void> { return {}; }
  auto open(const replicant::spill_context& /*ctx*/) -> result<std::unique_ptr<replicant::spill_part>> {
    return std::unique_ptr<replicant::spill_part>{std::make_unique<unreadable_part>()};
  }
};

// A sink returning result<lsn> that reads every change, notes whether anything was thrown at it and
// what read_error() said, then returns that error, or (careless) success as if all were well.
struct read_checking_sink {
  bool careless = false;
  std::optional<lsn> stored;
  int calls = 0;
  std::uint64_t rows = 0;
  std::error_code read_error;
  bool exception_seen = false;

  auto checkpoint() -> result<std::optional<lsn>> { return stored; }
  auto handle_transaction(const replicant::transaction& t) -> result<lsn> {
    ++calls;
    try {
      for ([[maybe_unused]] const auto& c : t.changes()) ++rows;
    } catch (...) {
      exception_seen = true;
    }
    read_error = t.read_error();
    if (read_error && !careless) return replicant::unexpected(read_error);
    stored = t.commit_lsn();
    return t.commit_lsn();
  }
};

// The same under sink_owned_batches: handle_batch reads every transaction of its batch.
struct read_checking_batch_sink {
  bool careless = false;
  std::optional<lsn> stored;
  int calls = 0;
  std::uint64_t rows = 0;
  std::error_code read_error;
  bool exception_seen = false;

  auto checkpoint() -> result<std::optional<lsn>> { return stored; }
  auto handle_batch(std::span<const replicant::transaction> batch) -> result<lsn> {
    ++calls;
    for (const auto& t : batch) {
      try {
        for ([[maybe_unused]] const auto& c : t.changes()) ++rows;
      } catch (...) {
        exception_seen = true;
      }
      if (t.read_error()) read_error = t.read_error();
    }
    if (read_error && !careless) return replicant::unexpected(read_error);
    stored = batch.back().commit_lsn();
    return batch.back().commit_lsn();
  }
};

// Runs @p Sink under checkpoint policy @p policy with parts that cannot be read back: a large
// transaction, then a small one. The sink returns the read error, or (careless) success.
template <class Sink, class Policy>
auto unreadable_spill_halts(Policy policy, bool careless) -> void {
  replicant::test::published_database f;
  f.options.max_inflight_bytes = 1U << 20U;
  replicant::test::event_log events;
  Sink sink;
  sink.careless = careless;
  using unreadable_pipeline = replicant::pgoutput_pipeline<Sink, Policy, unreadable_spill>;
  running<unreadable_pipeline> r{sink,      f.pgoutput,        std::move(policy), unreadable_spill{},
                                 f.options, &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  const lsn before = f.confirmed_flush();
  f.sql("INSERT INTO items SELECT g, '" + std::string{secret} +
        "-' || repeat('x', 200), 1 FROM generate_series(1, 40000) g");  // about 10 MB
  f.sql("INSERT INTO items VALUES (90001, 'after', 1)");
  BOOST_TEST_REQUIRE(r.ends_within(60s), "the pipeline halted by itself");
  BOOST_TEST(r.halted() == halt_reason::spill_io_failed);
  BOOST_TEST(sink.calls == 1, "nothing after the unreadable transaction was handed over");
  BOOST_TEST(!sink.exception_seen);
  BOOST_TEST(sink.read_error == replicant::errc::io_failed);
  BOOST_TEST(sink.rows > 0U, "the changes of the first read arrived");
  BOOST_TEST(sink.rows < 40000U, "the iteration ended at the failed read");
  const auto& h = r.pipeline.last_halt();
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST_REQUIRE(h->at.has_value());
  BOOST_TEST(f.confirmed_flush() >= before);
  BOOST_TEST(f.confirmed_flush() < *h->at, "nothing of the unreadable transaction, nor after it, was acknowledged: "
                                               << replicant::to_string(before) << " "
                                               << replicant::to_string(f.confirmed_flush()) << " "
                                               << replicant::to_string(*h->at));
  BOOST_TEST(replicant::describe(*h).find(secret) == std::string::npos);
  BOOST_TEST(!events.contains(secret));
}

// A spilled transaction that cannot be read back reaches a result-returning sink as an error it can
// return, never as an exception; whether the sink returns it or success, the pipeline halts
// spill_io_failed, value-free, and acknowledges nothing from that transaction on (nor hands over
// anything after it), per transaction and per batch.
BOOST_AUTO_TEST_CASE(a_spilled_transaction_that_cannot_be_read_back_halts_without_throwing_and_acknowledges_nothing) {
  for (const bool careless : {false, true}) {
    BOOST_TEST_CONTEXT("the sink returns " << (careless ? "success" : "the error")) {
      unreadable_spill_halts<read_checking_sink>(replicant::sink_owned_checkpoint{}, careless);
      unreadable_spill_halts<read_checking_batch_sink>(
          replicant::sink_owned_batches{.max_transactions = 10, .max_delay = 200ms}, careless);
    }
  }
}

BOOST_AUTO_TEST_CASE(without_spill_the_same_transaction_halts) {
  replicant::test::published_database f;
  f.options.max_inflight_bytes = 1U << 20U;
  counting_sink sink;
  using plain = replicant::pgoutput_pipeline<counting_sink>;
  running<plain> r{sink, f.pgoutput, f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  f.sql(insert_range(1, 40000));
  BOOST_TEST(r.halted() == halt_reason::transaction_too_large);
  BOOST_TEST(sink.count() == 0U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // large_transactions_tests
