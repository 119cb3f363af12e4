// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Nothing but a delivered transaction moves the acknowledged position past a transaction that a
// checkpoint policy still holds (DESIGN §3, rule 6), once per PostgreSQL major: a non-transactional
// logical message, a heartbeat (which is one) and an empty transaction arrive while a deferred sink
// has not confirmed what it was handed; the slot stays below it, and a kill then loses nothing.
// The simulator found the message case first (docs/reliability.md, "The simulator"); this is its
// live counterpart.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/processes/child_mode.hpp"
#include "support/processes/child_process.hpp"
#include "support/server/pg_cluster.hpp"
#include "support/sinks/live_pipeline.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(held_positions_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::lsn;
using replicant::result;
using replicant::test::wait_until;

namespace {

// A deferred sink with messages: it keeps every confirmation (or confirms at once when asked to)
// and counts the messages it is handed, heartbeats among them.
struct holding_sink {
  std::mutex mutex;
  std::vector<lsn> handed;
  std::vector<replicant::confirmation> pending;
  std::size_t messages = 0;
  bool confirm_at_once = false;
  std::ostream* trace = nullptr;  // the child's stdout: what the parent waits for

  auto checkpoint() -> result<std::optional<lsn>> { return std::optional<lsn>{}; }
  auto handle_transaction(const replicant::transaction& t, replicant::confirmation c) -> result<void> {
    const std::lock_guard lock{mutex};
    handed.push_back(t.commit_lsn());
    if (trace != nullptr) *trace << "handed " << replicant::to_string(t.commit_lsn()) << std::endl;
    if (confirm_at_once) {
      c.confirm();
    } else {
      pending.push_back(std::move(c));
    }
    return {};
  }
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> result<void> {
    const std::lock_guard lock{mutex};
    ++messages;
    if (trace != nullptr) *trace << "message" << std::endl;
    return {};
  }
  auto handle_prepare(const replicant::prepared_event&) -> result<void> { return {}; }
  auto message_count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return messages;
  }
  auto handed_count() -> std::size_t {
    const std::lock_guard lock{mutex};
    return handed.size();
  }
};

using holding_pipeline = replicant::pgoutput_pipeline<holding_sink, replicant::deferred_checkpoint>;

auto with_messages(replicant::test::published_database& f) -> replicant::pipeline_options {
  f.pgoutput.messages = true;
  auto o = f.options;
  o.heartbeat_interval = 100ms;
  o.status_interval = 200ms;
  return o;
}

// The child: a deferred pipeline with heartbeats that never confirms, until SIGKILL.
// argv: --held-positions-child <dsn> <slot>
auto run_child(int argc, char** argv) -> int {
  if (argc != 4) return 2;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test program
  if (::getppid() == 1) return 4;
  replicant::pipeline_options o;
  o.conninfo = argv[2];
  o.slot = argv[3];
  o.start = replicant::start::go_forward{};
  o.heartbeat_interval = 100ms;
  o.status_interval = 200ms;
  holding_sink sink;
  sink.trace = &std::cout;
  holding_pipeline p{sink, replicant::pgoutput_options{.publications = {"pub"}, .messages = true},
                     replicant::deferred_checkpoint{.confirm_timeout = 1h}, o};
  std::error_code ec;
  p.run(ec);
  return ec ? 1 : 0;
}

const replicant::test::child_mode held_child{"--held-positions-child", &run_child};

auto lines_of(const std::filesystem::path& file) -> std::vector<std::string> {
  std::ifstream in{file};
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(held_positions, *utf::label("integration"))

BOOST_AUTO_TEST_CASE(a_message_never_moves_the_slot_past_an_unconfirmed_transaction) {
  replicant::test::published_database f;
  const auto o = with_messages(f);
  holding_sink sink;
  replicant::test::running<holding_pipeline> r{sink, f.pgoutput, replicant::deferred_checkpoint{}, o};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  f.sql("INSERT INTO items VALUES (1, 'held', 1)");
  BOOST_TEST_REQUIRE(wait_until([&] { return sink.handed_count() == 1U; }));
  const lsn held = sink.handed.at(0);
  // A message of the test's own, heartbeats, and an empty transaction (nothing published in it).
  f.sql("SELECT pg_logical_emit_message(false, 'test', 'after')");
  f.sql("CREATE TABLE unpublished (id int); INSERT INTO unpublished VALUES (1)");
  const auto seen = sink.message_count();
  BOOST_TEST_REQUIRE(wait_until([&] { return sink.message_count() >= seen + 3; }));
  BOOST_TEST_REQUIRE(f.wait_for_status_update());
  BOOST_TEST(f.confirmed_flush() < held, "the slot stays below the unconfirmed transaction");
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  {
    const std::lock_guard lock{sink.mutex};
    sink.pending.at(0).confirm();
  }
  BOOST_TEST(wait_until([&] { return f.confirmed_flush() > held; }));
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_CASE(a_kill_while_heartbeats_flow_loses_nothing) {
  replicant::test::published_database f;
  const replicant::test::temp_dir dir{"held-positions"};
  const auto out = dir.path() / "out";
  const std::vector<std::string> args = {"--held-positions-child", f.options.conninfo, f.slot};
  replicant::test::child_process child{std::filesystem::read_symlink("/proc/self/exe").string(), args, out,
                                       dir.path() / "err"};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  f.sql("INSERT INTO items VALUES (1, 'held', 1)");
  std::optional<lsn> held;
  BOOST_TEST_REQUIRE(wait_until([&] {
    for (const auto& line : lines_of(out)) {
      if (line.starts_with("handed ")) held = replicant::parse_lsn(line.substr(7)).value();
    }
    return held.has_value();
  }));
  // Heartbeats reach the sink after the hand-off, and the child reports its position meanwhile.
  const auto messages_after_handoff = [&] {
    std::size_t n = 0;
    bool after = false;
    for (const auto& line : lines_of(out)) {
      after = after || line.starts_with("handed ");
      n += after && line == "message" ? 1U : 0U;
    }
    return n;
  };
  BOOST_TEST_REQUIRE(wait_until([&] { return messages_after_handoff() >= 5U; }));
  BOOST_TEST_REQUIRE(f.wait_for_status_update());
  child.kill();
  BOOST_TEST(f.confirmed_flush() < *held, "the killed child acknowledged nothing past its unconfirmed transaction");

  // The restart receives the transaction again: the kill lost nothing.
  BOOST_TEST_REQUIRE(wait_until([&] { return !f.slot_active(); }));
  holding_sink again;
  again.confirm_at_once = true;
  const auto o = with_messages(f);
  replicant::test::running<holding_pipeline> r{again, f.pgoutput, replicant::deferred_checkpoint{}, o};
  BOOST_TEST_REQUIRE(wait_until([&] { return again.handed_count() >= 1U; }));
  BOOST_TEST((again.handed.at(0) == *held));
  BOOST_TEST(wait_until([&] { return f.confirmed_flush() > *held; }));
  BOOST_TEST(!r.stop());
}

// Two-phase: a transaction prepared, another committed, then the first committed. The deferred
// sink is handed both, then confirms the plain one and holds the prepared one's confirmation. The
// slot must stay at or below the PREPARE until that confirmation: past it, a restart would receive
// COMMIT PREPARED without its PREPARE (the server resends a PREPARE only at or after the start
// position), and the changes would be gone. The simulator found it (docs/reliability.md, "Two-phase"); this is its
// live counterpart.
BOOST_AUTO_TEST_CASE(a_committed_prepared_transaction_holds_the_slot_at_its_prepare_until_confirmed) {
  if (auto& pg = replicant::test::live_server(); pg.scalar("SHOW max_prepared_transactions") == "0") {
    pg.set("max_prepared_transactions", "10");
    pg.restart();
  }
  replicant::test::published_database f;
  f.pgoutput.two_phase = true;
  holding_sink sink;
  replicant::test::running<holding_pipeline> r{sink, f.pgoutput, replicant::deferred_checkpoint{}, f.options};
  BOOST_TEST_REQUIRE(f.wait_until([&] { return f.slot_active(); }));
  f.sql("BEGIN; INSERT INTO items VALUES (1, 'prepared', 1); PREPARE TRANSACTION 'held_g1'");
  f.sql("INSERT INTO items VALUES (2, 'plain', 1)");
  f.sql("COMMIT PREPARED 'held_g1'");
  BOOST_TEST_REQUIRE(wait_until([&] { return sink.handed_count() == 2U; }));
  const lsn plain = sink.handed.at(0);
  const lsn prepared = sink.handed.at(1);
  BOOST_TEST_REQUIRE(plain < prepared);
  {
    const std::lock_guard lock{sink.mutex};
    sink.pending.at(0).confirm();  // the plain one, committed between the PREPARE and its commit
  }
  BOOST_TEST_REQUIRE(f.wait_for_status_update());
  BOOST_TEST(f.confirmed_flush() < plain, "the slot passed the PREPARE of a committed, unconfirmed transaction");
  {
    const std::lock_guard lock{sink.mutex};
    sink.pending.at(1).confirm();
  }
  BOOST_TEST(wait_until([&] { return f.confirmed_flush() >= prepared; }));
  BOOST_TEST(!r.pipeline.last_halt().has_value());
  BOOST_TEST(!r.stop());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // held_positions_tests
