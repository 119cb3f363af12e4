// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-jsonl-sink's sink and output file (examples/jsonl_sink/file_sink.hpp) and its command
// line (examples/jsonl_sink/options.hpp): change lines then a commit line per transaction, on disk
// when the sink returns; an incomplete last line cut off at open; value-free refusals.
#include "../../../examples/jsonl_sink/file_sink.hpp"

#include <boost/test/unit_test.hpp>

#include "../../../examples/jsonl_sink/options.hpp"
#include "support/common/temp_dir.hpp"
#include "support/sinks/transaction_collector.hpp"
#include "support/wire/pgoutput_builder.hpp"

#include <replicant/checkpoint/file_store.hpp>
#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/pipeline/sink_for.hpp>
#include <replicant/sink/concepts.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_jsonl_sink_tests)

namespace pg = replicant::test;
namespace jsonl = replicant::examples::jsonl;
using replicant::lsn;
using replicant::result;
using replicant::test::read_file;

namespace {

constexpr std::uint32_t items = 16384;

// Two transactions: ids 1 and 2 at 0/100, id 3 at 0/200.
auto two_transactions() -> std::vector<replicant::transaction> {
  auto t = pg::committed_transactions(
      {
          pg::begin(lsn{0x100}, 0, 701),
          pg::relation(std::nullopt, items, "public", "items", 'd', {{"id", replicant::pg_type::int4, -1, true}}),
          pg::insert(std::nullopt, items, {pg::col::text("1")}),
          pg::insert(std::nullopt, items, {pg::col::text("2")}),
          pg::commit(lsn{0x100}, lsn{0x110}, 0),
          pg::begin(lsn{0x200}, 0, 702),
          pg::insert(std::nullopt, items, {pg::col::text("3")}),
          pg::commit(lsn{0x200}, lsn{0x210}, 0),
      },
      {.version = 1});
  BOOST_TEST_REQUIRE(t.has_value());
  BOOST_TEST_REQUIRE(t->size() == 2U);
  return std::move(*t);
}

auto prefix(std::string_view at, int xid) -> std::string {
  return R"({"lsn":")" + std::string{at} + R"(","xid":)" + std::to_string(xid) +
         R"(,"commit_time":"2000-01-01T00:00:00Z",)";
}

auto insert_line(int id, std::string_view at, int xid) -> std::string {
  return prefix(at, xid) + R"("op":"insert","schema":"public","table":"items","record":{"id":)" + std::to_string(id) +
         "}}\n";
}

auto commit_line(std::string_view at, int xid, int changes) -> std::string {
  return prefix(at, xid) + R"("op":"commit","changes":)" + std::to_string(changes) + "}\n";
}

auto write_file(const std::filesystem::path& p, const std::string& bytes) -> void {
  std::ofstream out{p, std::ios::binary};
  out << bytes;
}

auto parse(std::initializer_list<const char*> args) -> std::variant<jsonl::options, jsonl::refusal> {
  const std::vector<const char*> v(args);
  return jsonl::parse_options(v);
}

auto refusal_of(std::initializer_list<const char*> args) -> std::string {
  const auto p = parse(args);
  BOOST_TEST_REQUIRE(std::holds_alternative<jsonl::refusal>(p));
  return std::get<jsonl::refusal>(p).reason;
}

}  // namespace

// What the pipeline needs of the sink, checked where the pipeline checks it.
static_assert(replicant::detail::check_sink<jsonl::jsonl_file_sink,
                                            replicant::lib_owned_checkpoint<replicant::file_checkpoint_store>>());

BOOST_AUTO_TEST_SUITE(jsonl_file_sink)

BOOST_AUTO_TEST_CASE(writes_change_lines_then_a_commit_line_and_syncs) {
  replicant::test::temp_dir dir{"replicant-jsonl-unit"};
  const auto txns = two_transactions();
  auto opened = jsonl::open_output(dir.path() / "out.jsonl");
  BOOST_TEST_REQUIRE(opened.has_value());
  BOOST_TEST(opened->cut == 0U);
  replicant::examples::tail::output_stream out{opened->fd};
  jsonl::jsonl_file_sink sink{out};

  BOOST_TEST(sink.handle_transaction(txns[0]).has_value());
  const auto first = insert_line(1, "0/100", 701) + insert_line(2, "0/100", 701) + commit_line("0/100", 701, 2);
  BOOST_TEST(read_file(dir.path() / "out.jsonl") == first, "on disk when the sink returns");
  BOOST_TEST(sink.handle_transaction(txns[1]).has_value());
  BOOST_TEST(read_file(dir.path() / "out.jsonl") ==
             first + insert_line(3, "0/200", 702) + commit_line("0/200", 702, 1));
  BOOST_TEST(sink.written() == 2U);
  BOOST_TEST(jsonl::commit_line(txns[1]) == commit_line("0/200", 702, 1));
  ::close(opened->fd);
}

BOOST_AUTO_TEST_CASE(opens_for_appending_readable_by_the_owner_only) {
  replicant::test::temp_dir dir{"replicant-jsonl-unit"};
  const auto path = dir.path() / "new.jsonl";
  auto opened = jsonl::open_output(path);
  BOOST_TEST_REQUIRE(opened.has_value());
  struct stat st{};
  BOOST_TEST_REQUIRE(::stat(path.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777U) == 0600U);
  ::close(opened->fd);

  // An existing file is appended to, never truncated.
  write_file(path, "{\"a\":1}\n");
  opened = jsonl::open_output(path);
  BOOST_TEST_REQUIRE(opened.has_value());
  BOOST_TEST(::write(opened->fd, "{\"b\":2}\n", 8) == 8);
  ::close(opened->fd);
  BOOST_TEST(read_file(path) == "{\"a\":1}\n{\"b\":2}\n");
}

BOOST_AUTO_TEST_CASE(cuts_off_an_incomplete_last_line) {
  replicant::test::temp_dir dir{"replicant-jsonl-unit"};
  const auto path = dir.path() / "torn.jsonl";
  // The whole transaction before stays; a last line far longer than one read block goes.
  const std::string whole = insert_line(1, "0/100", 701) + commit_line("0/100", 701, 1);
  const std::string torn = prefix("0/200", 702) + R"("op":"insert","record":{"v":")" + std::string(10000, 'x');
  write_file(path, whole + torn);
  auto opened = jsonl::open_output(path);
  BOOST_TEST_REQUIRE(opened.has_value());
  BOOST_TEST(opened->cut == torn.size());
  ::close(opened->fd);
  BOOST_TEST(read_file(path) == whole);

  // A file with no line feed at all is one incomplete line.
  write_file(path, "{\"partial");
  opened = jsonl::open_output(path);
  BOOST_TEST_REQUIRE(opened.has_value());
  BOOST_TEST(opened->cut == 9U);
  ::close(opened->fd);
  BOOST_TEST(read_file(path).empty());
}

BOOST_AUTO_TEST_CASE(cuts_off_the_change_lines_of_an_interrupted_transaction) {
  replicant::test::temp_dir dir{"replicant-jsonl-unit"};
  const auto path = dir.path() / "interrupted.jsonl";
  const std::string whole = insert_line(1, "0/100", 701) + commit_line("0/100", 701, 1);
  // Whole change lines without their commit line (the next run writes the transaction again, with
  // the same LSN, so a reader could not tell the two apart), the last one torn.
  const std::string interrupted =
      insert_line(2, "0/200", 702) + insert_line(3, "0/200", 702) + prefix("0/200", 702) + R"("op":"ins)";
  write_file(path, whole + interrupted);
  auto opened = jsonl::open_output(path);
  BOOST_TEST_REQUIRE(opened.has_value());
  BOOST_TEST(opened->cut == interrupted.size());
  ::close(opened->fd);
  BOOST_TEST(read_file(path) == whole);

  // Without any commit line, every change line goes.
  write_file(path, insert_line(2, "0/200", 702));
  opened = jsonl::open_output(path);
  BOOST_TEST_REQUIRE(opened.has_value());
  ::close(opened->fd);
  BOOST_TEST(read_file(path).empty());

  // A row whose last columns are named like a commit line is still a change line.
  const std::string lookalike = prefix("0/200", 702) + R"("op":"insert","record":{"op":"commit","changes":5}})" + "\n";
  write_file(path, whole + lookalike);
  opened = jsonl::open_output(path);
  BOOST_TEST_REQUIRE(opened.has_value());
  ::close(opened->fd);
  BOOST_TEST(read_file(path) == whole);
}

BOOST_AUTO_TEST_CASE(never_cuts_lines_of_another_format) {
  replicant::test::temp_dir dir{"replicant-jsonl-unit"};
  const auto path = dir.path() / "foreign.jsonl";
  const std::string foreign = "{\"a\":1}\n";
  write_file(path, foreign + insert_line(2, "0/200", 702));
  auto opened = jsonl::open_output(path);
  BOOST_TEST_REQUIRE(opened.has_value());
  ::close(opened->fd);
  BOOST_TEST(read_file(path) == foreign, "the change lines after it go, the line itself stays");
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_a_writable_file) {
  replicant::test::temp_dir dir{"replicant-jsonl-unit"};
  BOOST_TEST(!jsonl::open_output(dir.path()).has_value(), "a directory");
  BOOST_TEST(!jsonl::open_output(dir.path() / "missing-dir" / "out.jsonl").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(jsonl_options)

BOOST_AUTO_TEST_CASE(parses_a_command_line_with_its_defaults) {
  const auto p = parse({"--slot", "s1", "--publication", "p1", "--publication=p2", "--publication", "p1", "--output",
                        "/data/out.jsonl", "--create-slot", "--go-forward-only"});
  BOOST_TEST_REQUIRE(std::holds_alternative<jsonl::options>(p));
  const auto& o = std::get<jsonl::options>(p);
  BOOST_TEST(o.slot == "s1");
  BOOST_TEST(o.publications == (std::vector<std::string>{"p1", "p2"}));
  BOOST_TEST(o.output == "/data/out.jsonl");
  BOOST_TEST(o.checkpoint_file == "/data/out.jsonl.checkpoint");
  BOOST_TEST(!o.batching.has_value(), "a checkpoint per transaction unless asked");
  const auto po = replicant::examples::pipeline_options_for_replication(o);
  BOOST_TEST(po.slot == "s1");
  BOOST_TEST(po.create_slot);
  BOOST_TEST(std::holds_alternative<replicant::start::go_forward>(po.start));
  BOOST_TEST(po.conninfo == "fallback_application_name=replicant-jsonl-sink");
}

BOOST_AUTO_TEST_CASE(batches_checkpoint_writes_when_asked) {
  const auto p = parse({"--slot", "s", "--publication", "p", "--output", "o", "--checkpoint-file", "c",
                        "--checkpoint-every", "50", "--checkpoint-delay-ms", "200"});
  BOOST_TEST_REQUIRE(std::holds_alternative<jsonl::options>(p));
  const auto& o = std::get<jsonl::options>(p);
  BOOST_TEST(o.checkpoint_file == "c");
  BOOST_TEST_REQUIRE(o.batching.has_value());
  BOOST_TEST(o.batching->max_transactions == 50U);
  BOOST_TEST(o.batching->max_delay.count() == 200);
  const auto defaults = parse({"--slot", "s", "--publication", "p", "--output", "o", "--checkpoint-every", "7"});
  BOOST_TEST(std::get<jsonl::options>(defaults).batching->max_delay.count() == 1000);
}

BOOST_AUTO_TEST_CASE(refuses_without_repeating_a_value) {
  BOOST_TEST(refusal_of({"--slot", "Bad-Slot-q1", "--publication", "p", "--output", "o"}).find("q1") ==
             std::string::npos);
  BOOST_TEST(refusal_of({"--slot", "Bad-Slot-q1", "--publication", "p", "--output", "o"}).starts_with("--slot"));
  BOOST_TEST(refusal_of({"--slot", "s", "--publication", "p;q2", "--output", "o"}).starts_with("--publication"));
  BOOST_TEST(refusal_of({"--slot", "s", "--publication", "p"}).starts_with("--output is required"));
  BOOST_TEST(refusal_of({"--publication", "p", "--output", "o"}).starts_with("--slot is required"));
  BOOST_TEST(refusal_of({"--slot", "s", "--output", "o"}).starts_with("--publication is required"));
  BOOST_TEST(refusal_of({"--slot", "s", "--publication", "p", "--output", "o", "--create-slot"})
                 .starts_with("--create-slot needs --go-forward-only"));
  BOOST_TEST(refusal_of({"--slot", "s", "--publication", "p", "--output", "o", "--checkpoint-delay-ms", "5"})
                 .starts_with("--checkpoint-delay-ms applies only"));
  BOOST_TEST(refusal_of({"--slot", "s", "--publication", "p", "--output", "o", "--checkpoint-every", "0"})
                 .starts_with("--checkpoint-every is"));
  BOOST_TEST(refusal_of({"--slot", "s", "--publication", "p", "--output", "o", "--checkpoint-file", "o"})
                 .starts_with("--checkpoint-file must differ"));
  const auto unknown = refusal_of({"--secret-q3=hunter2"});
  BOOST_TEST(unknown == "--secret-q3 is an unknown option or a stray value (see --help)");
  BOOST_TEST(refusal_of({"--dsn=password=q4 --slot"}).find("q4") == std::string::npos);
  BOOST_TEST(std::get<jsonl::options>(parse({"--help"})).help);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_jsonl_sink_tests
