// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-jsonl-sink (examples/jsonl_sink) against a live server, once per PostgreSQL major: a
// clean stop and restart writes every transaction once, in order; a SIGKILL under a running writer
// writes at most one transaction twice (exactly those above the checkpoint file) and never leaves a
// gap; with batched checkpoint writes, at most one batch.
//
// The binary is the build's own: examples/jsonl_sink/CMakeLists.txt passes its path as
// REPLICANT_JSONL_SINK_BINARY.
#include <boost/test/unit_test.hpp>

#include "support/checks/written_output.hpp"
#include "support/common/temp_dir.hpp"
#include "support/common/time_scale.hpp"
#include "support/processes/child_process.hpp"
#include "support/processes/file_sink.hpp"
#include "support/processes/process.hpp"
#include "support/server/pg_cluster.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_jsonl_sink_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::lsn;
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

#ifdef REPLICANT_JSONL_SINK_BINARY
constexpr std::string_view sink_binary = REPLICANT_JSONL_SINK_BINARY;
#else
constexpr std::string_view sink_binary;
#endif

const replicant::test::binary_known binary_known{sink_binary, "REPLICANT_JSONL_SINK_BINARY", "replicant-jsonl-sink"};

constexpr std::string_view secret = "s3cr3t-jsonl-7719";

// One line of replicant-jsonl-sink's output, or nothing for a line that is not a whole object of
// its format.
auto parse_line(const std::string& line) -> std::optional<written_line> {
  static const std::regex head{R"re(^\{"lsn":"([0-9A-F]{1,8}/[0-9A-F]{1,8})","xid":[0-9]+,"commit_time":"[^"]+",)re"};
  static const std::regex commit{R"re("op":"commit","changes":([0-9]+)\}$)re"};
  static const std::regex insert{R"re("op":"insert","schema":"public","table":"items","record":\{"id":([0-9]+),)re"};
  std::smatch m;
  if (!std::regex_search(line, m, head) || line.back() != '}') return std::nullopt;
  written_line out{replicant::parse_lsn(m[1].str()).value()};
  if (std::regex_search(line, m, commit)) {
    out.what = written_line::kind::commit;
    out.changes = std::stoul(m[1].str());
  } else if (std::regex_search(line, m, insert)) {
    out.what = written_line::kind::insert;
    out.id = std::stoll(m[1].str());
  }
  return out;
}

auto parse_output(const std::filesystem::path& path) -> parsed_output {
  return replicant::test::parse_output(path, parse_line);
}

// A database with a published table, a slot name, and the sink's files.
struct scenario : replicant::test::file_sink_scenario {
  scenario() : file_sink_scenario{sink_binary, "jsonl", "changes.jsonl"} {}

  // The rows of the table.
  [[nodiscard]] auto scalar_count() -> std::int64_t {
    return std::stoll(live_server().scalar("SELECT count(*) FROM items", db));
  }

  // How many whole commit lines (ended by their newline) the output holds: cheaper than parsing
  // it, which matters when it is polled while the file grows (std::regex under a sanitizer).
  [[nodiscard]] auto commit_lines() const -> std::size_t {
    const auto text = read_file(output);
    constexpr std::string_view mark = "\"op\":\"commit\"";
    std::size_t n = 0;
    for (auto at = text.find(mark); at != std::string::npos; at = text.find(mark, at + 1)) {
      if (text.find('\n', at) != std::string::npos) ++n;
    }
    return n;
  }

  auto wait_for_transactions(std::size_t n) -> bool {
    return wait_until([&] { return commit_lines() >= n; }, 90s);
  }
};

// Inserts ids from @p first on, one transaction each, and every tenth transaction 100 rows of 1 kB
// (so that its lines are written in several pieces), while @p keep_going holds; returns the last id.
// The writer keeps at most @p max_lead transactions ahead of the lines in the output: a sink slower
// than the writer (a sanitizer build) must not leave a backlog that takes minutes to catch up on.
auto write_workload(scenario& s, std::int64_t first, const std::atomic<bool>& keep_going, std::size_t max_lead)
    -> std::int64_t {
  replicant::test::pg_connection c{live_server().dsn(s.db)};
  std::int64_t id = first;
  std::size_t written = 0;  // commit lines last counted: they only grow, so the file is read again
                            // only when the writer might be too far ahead
  for (std::size_t t = 0; keep_going.load(); ++t) {
    while (keep_going.load() && t > written + max_lead) {
      written = s.commit_lines();
      if (t > written + max_lead) std::this_thread::sleep_for(10ms);
    }
    if (t % 10 == 9) {
      c.exec("INSERT INTO items SELECT g, repeat('" + std::string{secret} + "', 60) FROM generate_series(" +
             std::to_string(id) + ", " + std::to_string(id + 99) + ") g");
      id += 100;
    } else {
      c.exec("INSERT INTO items VALUES (" + std::to_string(id) + ", '" + std::string{secret} + "')");
      ++id;
    }
    std::this_thread::sleep_for(2ms);
  }
  return id - 1;
}

// A crash at a random moment under a running writer, and a restart: the file ends with every
// transaction, in order, and exactly the ones above the checkpoint file at the crash twice.
auto crash_and_resume(scenario& s, const std::vector<std::string>& extra, std::size_t bound) -> void {
  auto p = s.start("run1", extra);
  std::atomic<bool> writing{true};
  std::int64_t last_id = 0;
  std::thread writer{[&] { last_id = write_workload(s, 1, writing, 30); }};
  BOOST_TEST(wait_until([&] { return s.commit_lines() >= 60; }, 90s));
  p->kill();
  // What the crash left: lines above the checkpoint are written again by the next run.
  const auto at_crash = parse_output(s.output);
  const auto checkpoint = s.stored_checkpoint();
  std::size_t above_checkpoint = 0;
  for (const auto& t : at_crash.transactions) above_checkpoint += !checkpoint || t.commit > *checkpoint ? 1U : 0U;
  BOOST_TEST_MESSAGE("at the crash: " << at_crash.transactions.size() << " transactions written, " << above_checkpoint
                                      << " above the checkpoint, " << at_crash.incomplete << " incomplete");
  BOOST_TEST(above_checkpoint <= bound);
  BOOST_TEST(at_crash.incomplete <= 1U);

  // The writer goes on while the sink is down and after it is back.
  std::this_thread::sleep_for(300ms);
  auto q = s.start("run2", extra);
  const auto resumed_with = s.commit_lines();
  BOOST_TEST(wait_until([&] { return s.commit_lines() >= resumed_with + 30; }, 90s));
  writing.store(false);
  writer.join();
  const auto count = s.scalar_count();
  BOOST_TEST_REQUIRE(wait_until(
      [&] {
        const auto a = apply(parse_output(s.output));
        return a.ids.size() >= static_cast<std::size_t>(count);
      },
      90s));
  q->signal(SIGTERM);
  BOOST_TEST(q->wait() == 0, s.err("run2"));

  const auto final_output = parse_output(s.output);
  const auto applied = apply(final_output);
  BOOST_TEST(final_output.malformed == 0U, "every line is a whole object");
  BOOST_TEST(final_output.incomplete == 0U, "the restart cut the interrupted transaction, and left none");
  BOOST_TEST(applied.ids == one_to(last_id), "every row, in order, none missing");
  BOOST_TEST(applied.repeats == above_checkpoint, "exactly the transactions above the checkpoint came again");
  BOOST_TEST(applied.repeats <= bound);
  BOOST_TEST(s.err("run2").find(secret) == std::string::npos);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jsonl_sink, *utf::label("integration") * utf::precondition(binary_known))

BOOST_AUTO_TEST_CASE(stops_and_resumes_with_every_transaction_once_in_order) {
  scenario s;
  std::optional<lsn> first_last;
  {
    auto p = s.start("run1");
    for (int id = 1; id <= 10; ++id) s.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 'x')");
    s.sql("BEGIN; INSERT INTO items VALUES (11, 'x'); INSERT INTO items VALUES (12, '" + std::string{secret} +
          "'); COMMIT");
    BOOST_TEST_REQUIRE(s.wait_for_transactions(11));
    p->signal(SIGTERM);
    BOOST_TEST(p->wait() == 0, s.err("run1"));
    BOOST_TEST(s.err("run1").find("stopped; 11 transactions written") != std::string::npos, s.err("run1"));
    const auto first = parse_output(s.output);
    BOOST_TEST(first.transactions.size() == 11U);
    BOOST_TEST(first.transactions.back().ids == (std::vector<std::int64_t>{11, 12}));
    first_last = first.transactions.back().commit;
    // The checkpoint file holds the last transaction written.
    BOOST_TEST((s.stored_checkpoint() == first_last));
  }
  // Written while it does not run; the restart writes exactly these.
  for (int id = 13; id <= 20; ++id) s.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 'y')");
  {
    auto p = s.start("run2");
    BOOST_TEST_REQUIRE(s.wait_for_transactions(19));
    std::this_thread::sleep_for(1s);  // anything more would show up now
    p->signal(SIGTERM);
    BOOST_TEST(p->wait() == 0, s.err("run2"));
    BOOST_TEST(
        s.err("run2").find("streaming after checkpoint " + replicant::to_string(*first_last)) != std::string::npos,
        s.err("run2"));
    BOOST_TEST(s.err("run2").find("stopped; 8 transactions written") != std::string::npos, s.err("run2"));
  }
  const auto out = parse_output(s.output);
  const auto applied = apply(out);
  BOOST_TEST(out.transactions.size() == 19U);
  BOOST_TEST(out.incomplete == 0U);
  BOOST_TEST(out.malformed == 0U);
  BOOST_TEST(applied.repeats == 0U);
  BOOST_TEST(applied.ids == one_to(20));
  BOOST_TEST((s.stored_checkpoint() == out.transactions.back().commit));
  for (const auto* name : {"run1", "run2"}) BOOST_TEST(s.err(name).find(secret) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_sigkill_writes_at_most_one_transaction_twice_and_never_leaves_a_gap) {
  scenario s;
  crash_and_resume(s, {}, 1);
}

BOOST_AUTO_TEST_CASE(with_batched_checkpoints_a_sigkill_writes_at_most_one_batch_twice) {
  scenario s;
  // A long delay: the checkpoint moves only every 50 transactions, so a crash usually repeats some.
  crash_and_resume(s, {"--checkpoint-every", "50", "--checkpoint-delay-ms", "60000"}, 50);
}

BOOST_AUTO_TEST_CASE(with_batched_checkpoints_a_clean_stop_repeats_nothing) {
  scenario s;
  const std::vector<std::string> batched{"--checkpoint-every", "50", "--checkpoint-delay-ms", "60000"};
  {
    auto p = s.start("run1", batched);
    for (int id = 1; id <= 7; ++id) s.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 'x')");
    BOOST_TEST_REQUIRE(s.wait_for_transactions(7));
    // Fewer than a batch and well within the delay: the checkpoint file is not written yet...
    BOOST_TEST(!s.stored_checkpoint().has_value());
    p->signal(SIGTERM);
    BOOST_TEST(p->wait() == 0, s.err("run1"));
  }
  // ... and the stop writes it.
  const auto first = parse_output(s.output);
  BOOST_TEST((s.stored_checkpoint() == first.transactions.back().commit));
  for (int id = 8; id <= 10; ++id) s.sql("INSERT INTO items VALUES (" + std::to_string(id) + ", 'y')");
  auto p = s.start("run2", batched);
  BOOST_TEST_REQUIRE(s.wait_for_transactions(10));
  std::this_thread::sleep_for(1s);
  p->signal(SIGTERM);
  BOOST_TEST(p->wait() == 0, s.err("run2"));
  const auto out = parse_output(s.output);
  BOOST_TEST(out.transactions.size() == 10U);
  BOOST_TEST(apply(out).repeats == 0U);
  BOOST_TEST(apply(out).ids == one_to(10));
}

BOOST_AUTO_TEST_CASE(a_checkpoint_of_another_slot_is_refused) {
  scenario s;
  BOOST_TEST_REQUIRE(replicant::file_checkpoint_store{s.checkpoint}
                         .write(replicant::slot_name::make("some_other_slot").value(), lsn{0x1000})
                         .has_value());
  child_process p{sink_binary, s.args(), s.dir.path() / "out", s.dir.path() / "err"};
  BOOST_TEST(p.wait(60s) == 1);
  const auto e = read_file(s.dir.path() / "err");
  BOOST_TEST(e.find("replicant halted: checkpoint_store_failed") != std::string::npos, e);
  BOOST_TEST(e.find("some_other_slot") == std::string::npos);
  BOOST_TEST(e.find(s.slot) == std::string::npos);
  BOOST_TEST(parse_output(s.output).transactions.empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_jsonl_sink_tests
