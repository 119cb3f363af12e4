// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail's sink (examples/tail/jsonl_sink.hpp), its output stream (examples/tail/output.hpp)
// and its in-memory checkpoint store (examples/tail/memory_store.hpp): lines written and synced
// before the sink returns, every transaction given printed (the replication pipeline, not the sink,
// skips what the checkpoint covers), and a closed output reported as EPIPE.
#include "../../../examples/tail/jsonl_sink.hpp"

#include <boost/test/unit_test.hpp>

#include "../../../examples/tail/failure.hpp"
#include "../../../examples/tail/memory_store.hpp"
#include "support/common/temp_dir.hpp"
#include "support/sinks/transaction_collector.hpp"
#include "support/wire/pgoutput_builder.hpp"

#include <replicant/checkpoint/lib_owned.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/pipeline/sink_for.hpp>
#include <replicant/sink/concepts.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_tail_sink_tests)

namespace pg = replicant::test;
namespace tail = replicant::examples::tail;
using replicant::lsn;
using replicant::result;
using replicant::test::read_file;

namespace {

constexpr std::uint32_t items = 16384;

// Three one-row transactions, committed at 0/100, 0/200 and 0/300.
auto three_transactions() -> std::vector<replicant::transaction> {
  std::vector<pg::bytes> messages;
  for (std::uint32_t i = 1; i <= 3; ++i) {
    messages.push_back(pg::begin(lsn{i * 0x100U}, 0, 700 + i));
    if (i == 1) {
      messages.push_back(
          pg::relation(std::nullopt, items, "public", "items", 'd', {{"id", replicant::pg_type::int4, -1, true}}));
    }
    messages.push_back(pg::insert(std::nullopt, items, {pg::col::text(std::to_string(i))}));
    messages.push_back(pg::commit(lsn{i * 0x100U}, lsn{i * 0x100U + 0x10U}, 0));
  }
  auto t = pg::committed_transactions(messages, {.version = 1});
  BOOST_TEST_REQUIRE(t.has_value());
  BOOST_TEST_REQUIRE(t->size() == 3U);
  return std::move(*t);
}

auto line_for(int id, std::string_view at, int xid) -> std::string {
  return R"({"lsn":")" + std::string{at} + R"(","xid":)" + std::to_string(xid) +
         R"(,"commit_time":"2000-01-01T00:00:00Z","op":"insert","schema":"public","table":"items","record":{"id":)" +
         std::to_string(id) + "}}\n";
}

// A descriptor opened for the duration of a test.
struct file_fd {
  int fd;
  explicit file_fd(const std::filesystem::path& p)
      : fd(::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {
    BOOST_TEST_REQUIRE(fd >= 0);
  }
  file_fd(const file_fd&) = delete;
  auto operator=(const file_fd&) -> file_fd& = delete;
  ~file_fd() { ::close(fd); }
};

}  // namespace

// What the pipeline needs of them, checked where the pipeline would check it.
static_assert(replicant::lib_mode_sink<tail::jsonl_sink>);
static_assert(
    replicant::detail::check_sink<tail::jsonl_sink, replicant::lib_owned_checkpoint<tail::memory_checkpoint_store>>());
static_assert(replicant::checkpoint_store<tail::memory_checkpoint_store>);

BOOST_AUTO_TEST_SUITE(memory_checkpoint_store)

BOOST_AUTO_TEST_CASE(starts_empty_and_returns_what_was_written_last) {
  tail::memory_checkpoint_store store;
  const auto slot = replicant::slot_name::make("tail_slot").value();
  BOOST_TEST(!store.read(slot).value().has_value(), "a new process has no checkpoint");
  BOOST_TEST(store.write(slot, lsn{0x100}).has_value());
  BOOST_TEST(store.write(slot, lsn{0x200}).has_value());
  BOOST_TEST(store.read(slot).value().value_or(lsn{}) == lsn{0x200});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(jsonl_sink)

BOOST_AUTO_TEST_CASE(writes_and_syncs_every_transaction_it_is_given) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const auto txns = three_transactions();
  const file_fd out_file{dir.path() / "out"};
  tail::output_stream out{out_file.fd};
  BOOST_TEST(out.is_regular_file());
  tail::jsonl_sink sink{out, false};

  BOOST_TEST(sink.handle_transaction(txns[0]).has_value());
  BOOST_TEST(read_file(dir.path() / "out") == line_for(1, "0/100", 701), "on disk when the sink returns");
  BOOST_TEST(sink.handle_transaction(txns[1]).has_value());
  // No watermark of its own: skipping what the checkpoint covers is the pipeline's job, so a
  // transaction given again is printed again.
  BOOST_TEST(sink.handle_transaction(txns[0]).has_value());
  BOOST_TEST(read_file(dir.path() / "out") ==
             line_for(1, "0/100", 701) + line_for(2, "0/200", 702) + line_for(1, "0/100", 701));
  BOOST_TEST(sink.written() == 3U);
}

BOOST_AUTO_TEST_CASE(a_closed_output_fails_with_epipe) {
  const auto txns = three_transactions();
  std::signal(SIGPIPE, SIG_IGN);  // as replicant-tail does: EPIPE instead of death
  int fds[2];
  BOOST_TEST_REQUIRE(::pipe(fds) == 0);
  tail::output_stream out{fds[1]};
  BOOST_TEST(!out.is_regular_file());
  tail::jsonl_sink sink{out, false};
  BOOST_TEST(sink.handle_transaction(txns[0]).has_value());
  ::close(fds[0]);
  const auto failed = sink.handle_transaction(txns[1]);
  BOOST_TEST_REQUIRE(!failed.has_value());
  BOOST_TEST((failed.error() == std::errc::broken_pipe));
  BOOST_TEST(sink.written() == 1U, "the failed transaction is not counted");
  // The pipeline turns this into halt sink_failed with cause EPIPE: replicant-tail's normal end.
  replicant::halt h;
  h.reason = replicant::halt_reason::sink_failed;
  h.cause = failed.error();
  BOOST_TEST(tail::is_closed_output(h));
  ::close(fds[1]);
}

BOOST_AUTO_TEST_CASE(accepts_every_schema_change) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const file_fd out_file{dir.path() / "out"};
  tail::output_stream out{out_file.fd};
  tail::jsonl_sink sink{out, false};
  replicant::schema_change dropped;
  dropped.kind = replicant::schema_change_kind::destructive;
  BOOST_TEST(sink.handle_schema_change(dropped).has_value(), "the next lines simply show the new columns");
  BOOST_TEST(read_file(dir.path() / "out").empty(), "and nothing is printed for it");
}

BOOST_AUTO_TEST_CASE(writes_transactional_messages_only_when_asked) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const std::string content = "in txn";
  const auto txns = pg::committed_transactions(
      {pg::begin(lsn{0x500}, 0, 900), pg::message(std::nullopt, true, lsn{0x480}, "app", content),
       pg::commit(lsn{0x500}, lsn{0x510}, 0)},
      {.version = 1});
  BOOST_TEST_REQUIRE(txns.has_value());
  BOOST_TEST_REQUIRE(txns->size() == 1U);

  const file_fd quiet_file{dir.path() / "quiet"};
  tail::output_stream quiet_out{quiet_file.fd};
  tail::jsonl_sink quiet{quiet_out, false};
  BOOST_TEST(quiet.handle_transaction(txns->front()).has_value());
  BOOST_TEST(read_file(dir.path() / "quiet").empty());

  const file_fd loud_file{dir.path() / "loud"};
  tail::output_stream loud_out{loud_file.fd};
  tail::jsonl_sink loud{loud_out, true};
  BOOST_TEST(loud.handle_transaction(txns->front()).has_value());
  BOOST_TEST(
      read_file(dir.path() / "loud") ==
      R"({"lsn":"0/500","xid":900,"commit_time":"2000-01-01T00:00:00Z","message_lsn":"0/480","op":"message","transactional":true,"prefix":"app","content":"in txn"})"
      "\n");
}

BOOST_AUTO_TEST_CASE(writes_non_transactional_messages) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const file_fd out_file{dir.path() / "out"};
  tail::output_stream out{out_file.fd};
  tail::jsonl_sink sink{out, true};
  const std::string content = "hi";
  const replicant::logical_message m{false, lsn{0x42}, "app",
                                     std::as_bytes(std::span<const char>{content.data(), content.size()})};
  BOOST_TEST(sink.handle_message(m, replicant::message_context{m.message_lsn}).has_value());
  BOOST_TEST(read_file(dir.path() / "out") ==
             R"({"lsn":"0/42","op":"message","transactional":false,"prefix":"app","content":"hi"})"
             "\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_tail_sink_tests
