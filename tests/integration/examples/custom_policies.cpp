// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The checkpoint and spill families are open: policies written outside the library against the
// public concepts only (examples/custom_policies: wal_bytes_checkpoint, mmap_spill) work like the
// library's own, against a live server, once per PostgreSQL major.
//
// - replicant-custom-policies, run as a program: every committed row arrives; a transaction larger
//   than the memory budget is spilled through the custom spill policy and arrives whole and in
//   order; the checkpoint file moves only by the WAL-bytes rule, the timer and the stop; a SIGKILL
//   and a restart lose nothing and repeat exactly what followed the checkpoint.
// - The checkpoint policy in a pipeline of this process, with a store that records every write:
//   each write the rule made covers at least `every_bytes` of WAL; a store that fails halts
//   for its own reason (`policy_halted`, `wal_bytes_store_failed`), value-free, and acknowledges nothing.
//
// The binary is the build's own: examples/custom_policies/CMakeLists.txt passes its path as
// REPLICANT_CUSTOM_POLICIES_BINARY.
#include "../../../examples/custom_policies/wal_bytes_checkpoint.hpp"

#include <boost/test/unit_test.hpp>

#include "../../../examples/custom_policies/mmap_spill.hpp"
#include "support/checks/written_output.hpp"
#include "support/common/temp_dir.hpp"
#include "support/processes/child_process.hpp"
#include "support/processes/file_sink.hpp"
#include "support/processes/process.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/pipeline.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_custom_policies_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::halt_reason;
using replicant::lsn;
using replicant::result;
using replicant::test::apply;
using replicant::test::child_process;
using replicant::test::live_server;
using replicant::test::one_to;
using replicant::test::parsed_output;
using replicant::test::read_file;
using replicant::test::temp_dir;
using replicant::test::wait_until;
using replicant::test::written_line;

namespace {

#ifdef REPLICANT_CUSTOM_POLICIES_BINARY
constexpr std::string_view program = REPLICANT_CUSTOM_POLICIES_BINARY;
#else
constexpr std::string_view program;
#endif

const replicant::test::binary_known binary_known{program, "REPLICANT_CUSTOM_POLICIES_BINARY",
                                                 "replicant-custom-policies"};

constexpr std::string_view secret = "s3cr3t-custom-4242";

// One tab-separated line of replicant-custom-policies' output (`<commit LSN> insert public.items
// <id>`, or `<commit LSN> commit <changes> <spilled bytes>`), or nothing for another shape.
auto parse_line(const std::string& line) -> std::optional<written_line> {
  std::vector<std::string> f;
  std::istringstream in{line};
  for (std::string part; std::getline(in, part, '\t');) f.push_back(part);
  if (f.size() != 4) return std::nullopt;
  const auto at = replicant::parse_lsn(f[0]);
  if (!at) return std::nullopt;
  written_line out{*at};
  if (f[1] == "commit") {
    out.what = written_line::kind::commit;
    out.changes = std::stoul(f[2]);
    out.spilled = std::stoull(f[3]);
  } else if (f[1] == "insert" && f[2] == "public.items") {
    out.what = written_line::kind::insert;
    out.id = std::stoll(f[3]);
  }
  return out;
}

auto parse_output(const std::filesystem::path& path) -> parsed_output {
  return replicant::test::parse_output(path, parse_line);
}

// About 300 bytes of WAL per row: 20000 rows make a transaction of 5+ MiB.
auto insert_rows(std::int64_t first, std::int64_t last) -> std::string {
  return "INSERT INTO items SELECT g, '" + std::string{secret} + "-' || repeat('x', 250) FROM generate_series(" +
         std::to_string(first) + ", " + std::to_string(last) + ") g";
}

// A database with a published table, a slot name, and the program's files, with its spill
// directory.
struct scenario : replicant::test::file_sink_scenario {
  std::filesystem::path spill = dir.path() / "spill";

  scenario() : file_sink_scenario{program, "custom", "changes.txt"} {
    std::filesystem::create_directory(spill);
    std::filesystem::permissions(spill, std::filesystem::perms::owner_all);  // mmap_spill wants it private
    own_args = {"--spill-dir", spill.string()};
  }

  auto wait_for_transactions(std::size_t n) -> bool {
    return wait_until([&] { return parse_output(output).transactions.size() >= n; }, 120s);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(replicant_custom_policies, *utf::label("integration") * utf::precondition(binary_known))

BOOST_AUTO_TEST_CASE(spills_through_the_custom_policy_checkpoints_by_wal_bytes_and_resumes_without_loss) {
  scenario s;
  // The rule: every 4 MiB of WAL. The timer is out of reach in the first two runs, so only the rule
  // and the stop write the checkpoint. A 1 MiB budget: a transaction over 256 KiB spills.
  const std::vector<std::string> by_bytes{"--checkpoint-every-kib", "4096", "--checkpoint-delay-ms", "600000",
                                          "--max-inflight-mib",     "1"};
  constexpr std::int64_t big_rows = 22000;
  lsn big_commit;
  {
    auto p = s.start("run1", by_bytes);
    for (int id = 1; id <= 5; ++id) s.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 'small')");
    BOOST_TEST_REQUIRE(s.wait_for_transactions(5));
    std::this_thread::sleep_for(1s);
    BOOST_TEST(!s.stored_checkpoint().has_value(), "a few hundred bytes of WAL: no checkpoint yet");

    // Larger than the budget: spilled to memory-mapped files by the custom spill policy.
    s.sql(insert_rows(6, 5 + big_rows));
    BOOST_TEST_REQUIRE(s.wait_for_transactions(6));
    const auto out = parse_output(s.output);
    const auto& big = out.transactions.back();
    big_commit = big.commit;
    BOOST_TEST(big.ids.size() == static_cast<std::size_t>(big_rows));
    BOOST_TEST(big.spilled > 4U * 1024U * 1024U, "the transaction went through mmap_spill: " << big.spilled);
    for (const auto& t : out.transactions) {
      if (t.commit != big_commit) BOOST_TEST(t.spilled == 0U);
    }
    // More than 4 MiB of WAL since the first transaction: the rule wrote the checkpoint at once.
    BOOST_TEST_REQUIRE(wait_until([&] { return s.stored_checkpoint() == big_commit; }, 10s));

    // Three more small ones: too few bytes, so the checkpoint stays where it is...
    for (std::int64_t id = 6 + big_rows; id <= 8 + big_rows; ++id) {
      s.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 'small')");
    }
    BOOST_TEST_REQUIRE(s.wait_for_transactions(9));
    std::this_thread::sleep_for(1s);
    BOOST_TEST((s.stored_checkpoint() == big_commit));
    // ... and a crash repeats them.
    p->kill();
  }
  const std::int64_t last_id = 10 + big_rows;
  {
    auto p = s.start("run2", by_bytes);
    for (std::int64_t id = 9 + big_rows; id <= last_id; ++id) {
      s.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 'small')");
    }
    BOOST_TEST_REQUIRE(
        wait_until([&] { return apply(parse_output(s.output)).ids.size() >= one_to(last_id).size(); }, 60s));
    std::this_thread::sleep_for(500ms);
    BOOST_TEST((s.stored_checkpoint() == big_commit), "still fewer than 4 MiB since the checkpoint");
    p->signal(SIGTERM);
    BOOST_TEST(p->wait() == 0, s.err("run2"));
    BOOST_TEST_MESSAGE("run2 said:\n" << s.err("run2"));
    BOOST_TEST(
        s.err("run2").find("streaming after checkpoint " + replicant::to_string(big_commit)) != std::string::npos,
        s.err("run2"));
    // The three the crash cut off, then the two new ones.
    BOOST_TEST(s.err("run2").find("stopped; 5 transactions written (0 spilled)") != std::string::npos, s.err("run2"));
  }
  auto out = parse_output(s.output);
  BOOST_TEST(out.malformed == 0U);
  BOOST_TEST(out.transactions.size() == 14U);
  BOOST_TEST(apply(out).repeats == 3U, "exactly the transactions after the checkpoint came again");
  BOOST_TEST(apply(out).ids == one_to(last_id), "every row, in order, none missing");
  // The stop wrote the checkpoint: the last transaction.
  BOOST_TEST((s.stored_checkpoint() == out.transactions.back().commit));

  // The timer: a quiet stream is acknowledged after --checkpoint-delay-ms, while the program runs.
  {
    auto p = s.start("run3", {"--checkpoint-every-kib", "4096", "--checkpoint-delay-ms", "300"});
    for (std::int64_t id = last_id + 1; id <= last_id + 2; ++id) {
      s.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 'small')");
    }
    BOOST_TEST_REQUIRE(s.wait_for_transactions(16));
    const auto last = parse_output(s.output).transactions.back().commit;
    BOOST_TEST(wait_until([&] { return s.stored_checkpoint() == last; }, 5s));
    BOOST_TEST(p->running());
    p->signal(SIGTERM);
    BOOST_TEST(p->wait() == 0, s.err("run3"));
    BOOST_TEST(s.err("run3").find("checkpoint written at " + replicant::to_string(last)) != std::string::npos,
               s.err("run3"));
  }
  out = parse_output(s.output);
  BOOST_TEST(apply(out).ids == one_to(last_id + 2));
  BOOST_TEST(apply(out).repeats == 3U);
  BOOST_TEST(std::filesystem::is_empty(s.spill), "no spill file outlives its transaction");
  for (const auto* name : {"run1", "run2", "run3"}) BOOST_TEST(s.err(name).find(secret) == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

// --- the checkpoint policy in a pipeline of this process ----------------------------------------

namespace {

// A store in memory that records every write, and fails them all once told to.
struct recording_store {
  struct state {
    std::mutex mutex;
    std::optional<lsn> at;
    std::vector<lsn> writes;
    bool failing = false;
  };
  std::shared_ptr<state> s = std::make_shared<state>();

  auto read(const replicant::slot_name&) -> result<std::optional<lsn>> {
    const std::lock_guard lock{s->mutex};
    return s->at;
  }
  auto write(const replicant::slot_name&, lsn to) -> result<void> {
    const std::lock_guard lock{s->mutex};
    if (s->failing) return replicant::fail(replicant::errc::io_failed);
    s->at = to;
    s->writes.push_back(to);
    return {};
  }
  auto writes() -> std::vector<lsn> {
    const std::lock_guard lock{s->mutex};
    return s->writes;
  }
};

// A sink that keeps the ids it received, in order; the policy keeps the checkpoint.
struct id_sink {
  std::mutex mutex;
  std::vector<std::int64_t> ids;
  std::vector<lsn> commits;

  auto handle_transaction(const replicant::transaction& t) -> result<void> {
    std::vector<std::int64_t> got;
    for (const auto& c : t.changes()) got.push_back(c.record().value("id")->get<std::int64_t>());
    const std::lock_guard lock{mutex};
    ids.insert(ids.end(), got.begin(), got.end());
    commits.push_back(t.commit_lsn());
    return {};
  }
  auto count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return ids.size();
  }
  auto received() -> std::pair<std::vector<std::int64_t>, std::vector<lsn>> {
    const std::lock_guard lock{mutex};
    return {ids, commits};
  }
};

using policy = custom_policies::wal_bytes_checkpoint<recording_store>;
using in_process_pipeline = replicant::pgoutput_pipeline<id_sink, policy, custom_policies::mmap_spill>;

static_assert(replicant::checkpoint_policy_for<policy, id_sink>);
static_assert(replicant::sink_for<replicant::pgoutput_decoder, policy, id_sink>);

}  // namespace

BOOST_AUTO_TEST_SUITE(wal_bytes_checkpoint, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(every_write_the_rule_makes_covers_every_bytes_of_wal) {
  replicant::test::published_database f;
  f.options.max_inflight_bytes = 1U << 20U;
  temp_dir spill{"replicant-custom-policies-spill"};
  recording_store store;
  id_sink sink;
  constexpr std::uint64_t every = 256U << 10U;
  std::vector<lsn> base;
  {
    replicant::test::running<in_process_pipeline> r{
        sink, f.pgoutput, policy{.store = store, .every_bytes = every, .max_delay = std::chrono::minutes(10)},
        custom_policies::mmap_spill{.dir = spill.path(), .max_bytes = 0}, f.options};
    BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
    // Transactions of 1, 100 and 1000 rows (about 300 B, 30 kB and 300 kB of WAL), mixed.
    int id = 0;
    for (int round = 0; round < 6; ++round) {
      for (const int rows : {1, 100, 1, 1000, 1, 1}) {
        f.sql("INSERT INTO items SELECT g, repeat('x', 250), 1 FROM generate_series(" + std::to_string(id + 1) + ", " +
              std::to_string(id + rows) + ") g");
        id += rows;
      }
    }
    BOOST_TEST_REQUIRE(wait_until([&] { return sink.count() >= static_cast<std::size_t>(id); }, 60s));
    std::this_thread::sleep_for(300ms);
    const auto [ids, commits] = sink.received();
    BOOST_TEST(ids == one_to(id), boost::test_tools::per_element());
    base = store.writes();
    BOOST_TEST_MESSAGE(base.size() << " checkpoint writes for " << commits.size() << " transactions");
    BOOST_TEST_REQUIRE(base.size() >= 3U, "about 2 MB of WAL, a write per 256 KiB");
    // Each write after the first is at least `every` bytes of WAL past the one before, and lands
    // on a delivered commit; nothing is acknowledged past the last write.
    for (std::size_t i = 1; i < base.size(); ++i) {
      BOOST_TEST(replicant::distance(base[i - 1], base[i]) >= static_cast<std::int64_t>(every));
    }
    for (const lsn at : base) BOOST_TEST((std::find(commits.begin(), commits.end(), at) != commits.end()));
    // Nothing is acknowledged past the last write (the slot moves to its commit's end, which
    // comes before the next transaction's commit).
    if (base.back() != commits.back()) BOOST_TEST(f.confirmed_flush() < commits.back());
    BOOST_TEST(!r.stop());
  }
  // The stop wrote the rest.
  const auto after_stop = store.writes();
  BOOST_TEST(after_stop.size() == base.size() + (base.back() == sink.commits.back() ? 0U : 1U));
  BOOST_TEST((after_stop.back() == sink.commits.back()));
}

BOOST_AUTO_TEST_CASE(a_failing_store_halts_for_the_policy_s_own_reason_and_acknowledges_nothing) {
  replicant::test::published_database f;
  temp_dir spill{"replicant-custom-policies-spill"};
  recording_store store;
  id_sink sink;
  replicant::test::event_log events;
  replicant::test::running<in_process_pipeline> r{
      sink,
      f.pgoutput,
      policy{.store = store, .every_bytes = 1, .max_delay = std::chrono::minutes(10)},
      custom_policies::mmap_spill{.dir = spill.path(), .max_bytes = 0},
      f.options,
      &events.dispatcher};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  f.sql("INSERT INTO items VALUES (1, 'a', 1)");
  f.sql("INSERT INTO items VALUES (2, 'b', 1)");  // 1 byte: the second transaction writes
  BOOST_TEST_REQUIRE(wait_until([&] { return store.writes().size() == 1U; }));
  const lsn acknowledged = store.writes().front();
  BOOST_TEST_REQUIRE(wait_until([&] { return f.confirmed_flush() >= acknowledged; }));
  {
    const std::lock_guard lock{store.s->mutex};
    store.s->failing = true;
  }
  f.sql("INSERT INTO items VALUES (3, '" + std::string{secret} + "', 1)");
  f.sql("INSERT INTO items VALUES (4, '" + std::string{secret} + "', 1)");
  BOOST_TEST(r.halted() == halt_reason::policy_halted);
  const auto& h = r.pipeline.last_halt();
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST((h->own == &custom_policies::wal_bytes_store_failed));
  BOOST_TEST(h->cause == replicant::errc::io_failed);
  BOOST_TEST(replicant::describe(*h).find("policy_halted: wal_bytes_store_failed") != std::string::npos);
  BOOST_TEST(replicant::describe(*h).find(secret) == std::string::npos);
  BOOST_TEST(events.contains("replicant.checkpoint_store.failed"));
  BOOST_TEST(events.contains("replicant.connection.disconnected reason=policy_halted"));
  BOOST_TEST(!events.contains(secret));
  BOOST_TEST_REQUIRE(sink.commits.size() >= 3U, "the sink had the transaction; the store did not");
  // The walsender gone, no status update can move the slot any more: its position is final.
  BOOST_TEST_REQUIRE(f.wait_until([&] { return !f.slot_active(); }));
  BOOST_TEST(f.confirmed_flush() < sink.commits[2], "nothing past the last checkpoint written is acknowledged");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_custom_policies_tests
