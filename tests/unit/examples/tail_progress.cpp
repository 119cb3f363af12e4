// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail's snapshot support without a server: the progress reporter's lines and when it
// prints them (examples/tail/progress.hpp, with a clock of the test's own), the stderr writer in
// and out of a terminal, the incomplete-snapshot and summary lines (examples/tail/status.hpp), the
// estimate's statement (examples/tail/estimate.hpp), and the sink's snapshot lines
// (examples/tail/jsonl_sink.hpp).
#include "../../../examples/tail/progress.hpp"

#include <boost/test/unit_test.hpp>

#include "../../../examples/tail/estimate.hpp"
#include "../../../examples/tail/jsonl_sink.hpp"
#include "../../../examples/tail/status.hpp"
#include "support/common/temp_dir.hpp"

#include <replicant/model/pg_type.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/tuple.hpp>
#include <replicant/snapshot/batch.hpp>
#include <replicant/snapshot/detail/copy_text.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_tail_progress_tests)

namespace tail = replicant::examples::tail;
using namespace std::chrono_literals;
using replicant::lsn;
using clock_type = tail::progress_reporter::clock;

namespace {

const clock_type::time_point t0{std::chrono::hours{1}};
const lsn at{0x16B3748};

auto five_thousand() -> std::optional<tail::snapshot_estimate> { return tail::snapshot_estimate{2, 5000}; }

// Everything written to a temporary file standing in for stderr.
struct captured {
  std::FILE* file = std::tmpfile();
  captured() { BOOST_TEST_REQUIRE(file != nullptr); }
  captured(const captured&) = delete;
  auto operator=(const captured&) -> captured& = delete;
  ~captured() { std::fclose(file); }
  auto text() -> std::string {
    std::fflush(file);
    std::rewind(file);
    std::string out;
    for (int c; (c = std::fgetc(file)) != EOF;) out.push_back(static_cast<char>(c));
    return out;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(progress_reporter)

BOOST_AUTO_TEST_CASE(announces_the_snapshot_with_its_estimate) {
  tail::progress_reporter with{1s, five_thousand()};
  BOOST_TEST(with.started(at, t0) == "taking a snapshot at 0/16B3748 of 2 tables, ~5000 rows (estimated)");
  tail::progress_reporter unknown{1s, tail::snapshot_estimate{1, std::nullopt}};
  BOOST_TEST(unknown.started(at, t0) ==
             "taking a snapshot at 0/16B3748 of 1 table, total unknown (no table statistics yet)");
  tail::progress_reporter none{1s, std::nullopt};
  BOOST_TEST(none.started(at, t0) == "taking a snapshot at 0/16B3748");
  BOOST_TEST(none.in_progress());
}

BOOST_AUTO_TEST_CASE(prints_rows_rate_and_eta_once_per_interval) {
  tail::progress_reporter p{1s, five_thousand()};
  BOOST_TEST(!p.rows_written(500, t0).has_value(), "nothing before the start");
  static_cast<void>(p.started(at, t0));
  BOOST_TEST(!p.rows_written(1000, t0 + 500ms).has_value(), "the interval has not passed");
  const auto first = p.rows_written(2000, t0 + 1s);
  BOOST_TEST_REQUIRE(first.has_value());
  BOOST_TEST(*first == "snapshot: 2000 of ~5000 rows (40%), 2000 rows/s, ETA 2s");
  BOOST_TEST(!p.rows_written(2500, t0 + 1500ms).has_value());
  const auto second = p.rows_written(4000, t0 + 2s);
  BOOST_TEST_REQUIRE(second.has_value());
  BOOST_TEST(*second == "snapshot: 4000 of ~5000 rows (80%), 2000 rows/s, ETA 1s");
  BOOST_TEST(p.rows() == 4000U);
  BOOST_TEST(p.in_progress());
}

BOOST_AUTO_TEST_CASE(says_when_the_estimate_is_passed_or_missing) {
  tail::progress_reporter p{1s, five_thousand()};
  static_cast<void>(p.started(at, t0));
  const auto past = p.rows_written(6000, t0 + 2s);
  BOOST_TEST_REQUIRE(past.has_value());
  BOOST_TEST(*past == "snapshot: 6000 rows (more than the ~5000 estimated), 3000 rows/s, ETA unknown");

  tail::progress_reporter unknown{1s, std::nullopt};
  static_cast<void>(unknown.started(at, t0));
  const auto line = unknown.rows_written(300, t0 + 3s);
  BOOST_TEST_REQUIRE(line.has_value());
  BOOST_TEST(*line == "snapshot: 300 rows, 100 rows/s, ETA unknown");

  tail::progress_reporter empty{1s, tail::snapshot_estimate{1, 0}};
  static_cast<void>(empty.started(at, t0));
  BOOST_TEST(empty.line(t0) == "snapshot: 0 rows (more than the ~0 estimated), 0 rows/s, ETA unknown");
}

BOOST_AUTO_TEST_CASE(formats_long_etas_in_minutes_and_hours) {
  tail::progress_reporter p{1s, tail::snapshot_estimate{1, 10'000'000}};
  static_cast<void>(p.started(at, t0));
  const auto line = p.rows_written(1000, t0 + 1s);
  BOOST_TEST_REQUIRE(line.has_value());
  BOOST_TEST(*line == "snapshot: 1000 of ~10000000 rows (0%), 1000 rows/s, ETA 2h46m");
  const auto later = p.rows_written(9'900'000, t0 + 9900s);
  BOOST_TEST_REQUIRE(later.has_value());
  BOOST_TEST(*later == "snapshot: 9900000 of ~10000000 rows (99%), 1000 rows/s, ETA 1m40s");
}

BOOST_AUTO_TEST_CASE(reports_completion_with_the_pipelines_duration) {
  tail::progress_reporter p{1s, five_thousand()};
  static_cast<void>(p.started(at, t0));
  BOOST_TEST(p.completed(5000, 2500ms) == "snapshot complete: 5000 rows in 2.5 s (2000 rows/s)");
  BOOST_TEST(!p.in_progress());
  BOOST_TEST(p.completed(1, 0ms) == "snapshot complete: 1 row in 0.0 s");
  BOOST_TEST(p.completed(120000, 75s) == "snapshot complete: 120000 rows in 75 s (1600 rows/s)");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(status_output)

BOOST_AUTO_TEST_CASE(prints_progress_as_plain_lines_when_not_a_terminal) {
  captured err;
  tail::status_output out{err.file, false};
  out.progress("snapshot: 1 rows");
  out.say("streaming");
  out.print_line("replicant-tail: a whole line");
  BOOST_TEST(err.text() ==
             "replicant-tail: snapshot: 1 rows\nreplicant-tail: streaming\nreplicant-tail: a whole line\n");
}

BOOST_AUTO_TEST_CASE(rewrites_progress_in_place_on_a_terminal_and_clears_it_for_a_status_line) {
  captured err;
  tail::status_output out{err.file, true};
  out.progress("snapshot: 1 rows");
  out.progress("snapshot: 2 rows");
  out.say("snapshot complete");
  out.say("streaming");
  BOOST_TEST(err.text() ==
             "\rreplicant-tail: snapshot: 1 rows\x1b[K\rreplicant-tail: snapshot: 2 rows\x1b[K"
             "\r\x1b[Kreplicant-tail: snapshot complete\nreplicant-tail: streaming\n");
}

BOOST_AUTO_TEST_CASE(the_display_ties_reporter_and_output_together) {
  captured err;
  tail::status_output out{err.file, false};
  // An interval longer than the test: only the start and the end print.
  tail::progress_display display{out, std::chrono::milliseconds{std::chrono::hours{1}}, five_thousand()};
  display.started(at);
  display.rows_written(1000);
  BOOST_TEST(display.in_progress());
  BOOST_TEST(display.rows() == 1000U);
  BOOST_TEST((display.estimated_rows() == std::optional<std::uint64_t>{5000}));
  display.completed(5000, 1s);
  BOOST_TEST(!display.in_progress());
  BOOST_TEST(err.text() ==
             "replicant-tail: taking a snapshot at 0/16B3748 of 2 tables, ~5000 rows (estimated)\n"
             "replicant-tail: snapshot complete: 5000 rows in 1.0 s (5000 rows/s)\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(snapshot_status_lines)

BOOST_AUTO_TEST_CASE(an_incomplete_snapshot_says_what_the_next_run_needs) {
  const auto line = tail::incomplete_snapshot_line("stopped during the snapshot", 1200, 5000);
  BOOST_TEST(line.find("stopped during the snapshot after 1200 of ~5000 rows; the snapshot is incomplete") == 0U, line);
  BOOST_TEST(line.find("pg_drop_replication_slot") != std::string::npos);
  BOOST_TEST(line.find("snapshot_incomplete") != std::string::npos);
  BOOST_TEST(tail::incomplete_snapshot_line("x", 1, std::nullopt).find("x after 1 row;") == 0U);
}

BOOST_AUTO_TEST_CASE(the_summary_counts_snapshot_rows_apart) {
  BOOST_TEST(tail::summary_line("stopped", 2, lsn{0x100}, 5000) ==
             "stopped; 5000 snapshot rows and 2 transactions written, acknowledged up to 0/100");
  BOOST_TEST(tail::summary_line("stopped", 1, lsn{0x100}) ==
             "stopped; 1 transaction written, acknowledged up to 0/100");
}

BOOST_AUTO_TEST_CASE(the_estimate_reads_leaf_partitions_and_quoted_publications) {
  const auto q = tail::estimate_query("ARRAY['a']::pg_catalog.name[]");
  BOOST_TEST(q.find("t.pubname = ANY(ARRAY['a']::pg_catalog.name[])") != std::string::npos, q);
  BOOST_TEST(q.find("pg_partition_tree") != std::string::npos);
  BOOST_TEST(q.find("reltuples") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(snapshot_lines)

BOOST_AUTO_TEST_CASE(writes_one_line_per_row_at_the_consistent_point_and_reports_progress) {
  replicant::relation_info relation;
  relation.oid = 16384;
  relation.schema = "public";
  relation.table = "items";
  relation.columns = {{"id", replicant::pg_type::int4, -1, true}, {"name", replicant::pg_type::text, -1, false}};
  std::vector<std::byte> arena;
  std::vector<std::size_t> ends;
  for (const char* row : {"1\tann\n", "2\t\\N\n", "3\tsay \"hi\"\\n\n"}) {
    BOOST_TEST_REQUIRE(!replicant::detail::copy_text_row_to_tuple(row, 2, arena));
    ends.push_back(arena.size());
  }
  std::vector<replicant::change> rows;
  std::size_t begin = 0;
  for (const std::size_t end : ends) {
    const auto tuple = replicant::parse_tuple_data(std::span<const std::byte>{arena.data() + begin, end - begin});
    BOOST_TEST_REQUIRE(tuple.has_value());
    rows.emplace_back(replicant::change_op::snapshot, relation, *tuple);
    begin = end;
  }

  replicant::test::temp_dir dir{"replicant-tail-progress"};
  const auto path = dir.path() / "out";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  BOOST_TEST_REQUIRE(fd >= 0);
  {
    tail::output_stream out{fd};
    tail::jsonl_sink sink{out, false};
    std::vector<std::uint64_t> reported;
    sink.on_snapshot_rows([&reported](std::uint64_t n) { reported.push_back(n); });
    replicant::snapshot_context ctx;
    ctx.consistent_point = at;
    ctx.first_for_table = true;
    BOOST_TEST(sink.handle_snapshot(replicant::snapshot_batch{relation, std::span{rows}.first(2)}, ctx).has_value());
    ctx.first_for_table = false;
    ctx.last_for_table = true;
    BOOST_TEST(sink.handle_snapshot(replicant::snapshot_batch{relation, std::span{rows}.subspan(2)}, ctx).has_value());
    BOOST_TEST(sink.handle_snapshot_complete(at).has_value());
    BOOST_TEST(sink.snapshot_rows() == 3U);
    BOOST_TEST(sink.written() == 0U, "no transaction");
    BOOST_TEST((reported == std::vector<std::uint64_t>{2, 3}));
  }
  ::close(fd);
  BOOST_TEST(
      replicant::test::read_file(path) ==
      R"({"lsn":"0/16B3748","op":"snapshot","schema":"public","table":"items","record":{"id":1,"name":"ann"}})"
      "\n"
      R"({"lsn":"0/16B3748","op":"snapshot","schema":"public","table":"items","record":{"id":2,"name":null}})"
      "\n"
      R"({"lsn":"0/16B3748","op":"snapshot","schema":"public","table":"items","record":{"id":3,"name":"say \"hi\"\n"}})"
      "\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_tail_progress_tests
