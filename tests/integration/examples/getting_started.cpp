// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-getting-started (examples/getting_started) against a live server, once per PostgreSQL
// major: the tour passes every step and leaves nothing behind; a tour killed half-way is rerun
// cleanly; and a tour whose output is wrong (a publication narrowed behind its back) fails at the
// step that sees it, value-free, and still cleans up.
//
// The binary is the build's own: examples/getting_started/CMakeLists.txt passes its path as
// REPLICANT_GETTING_STARTED_BINARY.
#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"
#include "support/processes/child_process.hpp"
#include "support/processes/process.hpp"
#include "support/server/pg_cluster.hpp"

#include <chrono>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_getting_started_tests)

namespace utf = boost::unit_test;
using namespace std::chrono_literals;
using replicant::test::child_process;
using replicant::test::live_server;
using replicant::test::read_file;
using replicant::test::temp_dir;

namespace {

#ifdef REPLICANT_GETTING_STARTED_BINARY
constexpr std::string_view tour_binary = REPLICANT_GETTING_STARTED_BINARY;
#else
constexpr std::string_view tour_binary;
#endif

const replicant::test::binary_known binary_known{tour_binary, "REPLICANT_GETTING_STARTED_BINARY",
                                                 "replicant-getting-started"};

// The lines of @p text that start with @p prefix.
auto lines_starting(const std::string& text, std::string_view prefix) -> std::vector<std::string> {
  std::vector<std::string> out;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) out.push_back(line);
  }
  return out;
}

// What the tour created under @p prefix and has not dropped: slots, publications, tables.
auto leftovers(const std::string& db, const std::string& prefix) -> std::string {
  auto& pg = live_server();
  return pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + prefix + "_slot'", db) + "/" +
         pg.scalar("SELECT count(*) FROM pg_publication WHERE pubname = '" + prefix + "_pub'", db) + "/" +
         pg.scalar("SELECT count(*) FROM pg_class WHERE relname = '" + prefix + "_items'", db);
}

auto tour_args(const std::string& db, const std::string& prefix) -> std::vector<std::string> {
  return {"--dsn", live_server().dsn(db), "--prefix", prefix, "--timeout", "60"};
}

const std::vector<std::string> step_numbers{"ok: 1.", "ok: 2.", "ok: 3.", "ok: 4.", "ok: 5.", "ok: 6."};

auto numbers_of(const std::vector<std::string>& ok_lines) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const auto& l : ok_lines) out.push_back(l.substr(0, 6));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(getting_started, *utf::label("integration") * utf::precondition(binary_known))

BOOST_AUTO_TEST_CASE(the_tour_passes_every_step_and_leaves_nothing_behind) {
  auto& pg = live_server();
  const auto db = pg.unique_name("tour");
  pg.create_database(db);
  temp_dir dir{"replicant-tour-test"};

  child_process p{tour_binary, tour_args(db, "tour_a"), dir.path() / "out", dir.path() / "err"};
  const int status = p.wait(300s);
  const auto out = read_file(dir.path() / "out");
  const auto err = read_file(dir.path() / "err");
  BOOST_TEST_MESSAGE("the tour's output:\n" << out);
  BOOST_TEST(status == 0, err);
  BOOST_TEST(err.empty(), err);
  BOOST_TEST(numbers_of(lines_starting(out, "ok: ")) == step_numbers, boost::test_tools::per_element());
  BOOST_TEST(lines_starting(out, "done: every step passed").size() == 1U, out);

  // The sink could be watched: the snapshot batch, the update leaving out the TOASTed column, the
  // transactional message and the one on its own.
  BOOST_TEST(out.find("sink <- snapshot batch: 3 rows") != std::string::npos, out);
  BOOST_TEST(out.find(": update leaving out notes") != std::string::npos, out);
  BOOST_TEST(out.find(": insert + 1 message") != std::string::npos, out);
  BOOST_TEST(out.find("sink <- message on its own, at ") != std::string::npos, out);
  // It resumed after an LSN and said so.
  BOOST_TEST(std::regex_search(out, std::regex{"ok: 6\\. restart: resumed after checkpoint [0-9A-F]+/[0-9A-F]+;"}),
             out);
  // Row values are never printed (the tour's names and texts stay in the database).
  for (const std::string_view value : {"apple", "green pear", "kiwi", "hello"}) {
    BOOST_TEST(out.find(value) == std::string::npos, value);
  }
  BOOST_TEST(leftovers(db, "tour_a") == "0/0/0");

  // A second run in the same database passes too.
  child_process again{tour_binary, tour_args(db, "tour_a"), dir.path() / "out2", dir.path() / "err2"};
  BOOST_TEST(again.wait(300s) == 0, read_file(dir.path() / "err2"));
  BOOST_TEST(numbers_of(lines_starting(read_file(dir.path() / "out2"), "ok: ")) == step_numbers,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_tour_killed_half_way_is_rerun_cleanly) {
  auto& pg = live_server();
  const auto db = pg.unique_name("tour");
  pg.create_database(db);
  temp_dir dir{"replicant-tour-test"};
  {
    child_process p{tour_binary, tour_args(db, "tour_b"), dir.path() / "out1", dir.path() / "err1"};
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while (read_file(dir.path() / "out1").find("ok: 3.") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline && p.running()) {
      std::this_thread::sleep_for(20ms);
    }
    BOOST_TEST_REQUIRE(read_file(dir.path() / "out1").find("ok: 3.") != std::string::npos);
    p.kill();
  }
  // Killed with its slot, publication and table in place.
  BOOST_TEST(leftovers(db, "tour_b") == "1/1/1");

  child_process p{tour_binary, tour_args(db, "tour_b"), dir.path() / "out2", dir.path() / "err2"};
  BOOST_TEST(p.wait(300s) == 0, read_file(dir.path() / "err2"));
  BOOST_TEST(numbers_of(lines_starting(read_file(dir.path() / "out2"), "ok: ")) == step_numbers,
             boost::test_tools::per_element());
  BOOST_TEST(leftovers(db, "tour_b") == "0/0/0");
}

BOOST_AUTO_TEST_CASE(a_wrong_result_fails_its_step_value_free_and_is_cleaned_up) {
  auto& pg = live_server();
  const auto db = pg.unique_name("tour");
  pg.create_database(db);
  temp_dir dir{"replicant-tour-test"};
  // Behind the tour's back, its publication stops publishing deletes as soon as it is created: the
  // delete of step 3 never reaches the sink, which the tour must notice.
  pg.sql(
      "CREATE FUNCTION narrow_publication() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN "
      "EXECUTE 'ALTER PUBLICATION tour_c_pub SET (publish = ''insert, update'')'; END $$;"
      "CREATE EVENT TRIGGER narrow_publication ON ddl_command_end WHEN TAG IN ('CREATE PUBLICATION') "
      "EXECUTE FUNCTION narrow_publication()",
      db);

  child_process p{tour_binary, tour_args(db, "tour_c"), dir.path() / "out", dir.path() / "err"};
  BOOST_TEST(p.wait(300s) == 1);
  const auto out = read_file(dir.path() / "out");
  const auto err = read_file(dir.path() / "err");
  BOOST_TEST(numbers_of(lines_starting(out, "ok: ")) == (std::vector<std::string>{"ok: 1.", "ok: 2."}),
             boost::test_tools::per_element());
  BOOST_TEST(err.find("FAILED: step 3: the changes did not arrive as written") != std::string::npos, err);
  BOOST_TEST(out.find("done:") == std::string::npos);
  for (const std::string_view value : {"pear", "plum", "fig"}) BOOST_TEST(err.find(value) == std::string::npos);
  // Cleaned up all the same.
  BOOST_TEST(leftovers(db, "tour_c") == "0/0/0");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_getting_started_tests
