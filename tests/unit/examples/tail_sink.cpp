// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-tail's sink (examples/tail/jsonl_sink.hpp) and durable files (examples/tail/output.hpp):
// the order "write, sync, store checkpoint", the skip at or below the watermark, and failures that
// leave the checkpoint where it was.
#include "../../../examples/tail/jsonl_sink.hpp"

#define BOOST_TEST_MODULE replicant.unit.examples.tail_sink
#include <boost/test/unit_test.hpp>

#include "support/pgoutput_builder.hpp"
#include "support/temp_dir.hpp"

#include <replicant/assembler.hpp>
#include <replicant/pg_type.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace pg = replicant::test;
namespace tail = replicant::examples::tail;
using replicant::lsn;
using replicant::result;
using replicant::test::read_file;

namespace {

auto write_file(const std::filesystem::path& p, const std::string& text) -> void {
  std::ofstream out{p, std::ios::binary | std::ios::trunc};
  out << text;
}

// Keeps every committed transaction the assembler delivers.
struct collector {
  std::vector<replicant::transaction> transactions;
  auto operator()(replicant::transaction&& t) -> result<void> {
    transactions.push_back(std::move(t));
    return {};
  }
  auto operator()(const replicant::logical_message&) -> result<void> { return {}; }
  auto operator()(const replicant::schema_change&) -> result<void> { return {}; }
  auto operator()(const replicant::empty_commit&) -> result<void> { return {}; }
  auto operator()(const replicant::prepared_event&) -> result<void> { return {}; }
  auto operator()(const replicant::rollback_prepared_event&) -> result<void> { return {}; }
  auto operator()(const replicant::stream_abort_event&) -> result<void> { return {}; }
};

constexpr std::uint32_t items = 16384;

// Three one-row transactions, committed at 0/100, 0/200 and 0/300.
auto three_transactions() -> std::vector<replicant::transaction> {
  replicant::assembler a{{.version = 1}};
  collector c;
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
  for (const auto& m : messages) BOOST_TEST_REQUIRE(a.push(m, c).has_value());
  BOOST_TEST_REQUIRE(c.transactions.size() == 3U);
  return std::move(c.transactions);
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

BOOST_AUTO_TEST_SUITE(checkpoint_file)

BOOST_AUTO_TEST_CASE(starts_empty_and_stores_durably) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const auto path = dir.path() / "cp";
  auto cp = tail::checkpoint_file::open(path);
  BOOST_TEST_REQUIRE(cp.has_value());
  BOOST_TEST(!cp->stored().has_value());
  BOOST_TEST(!std::filesystem::exists(path), "nothing is created before the first store");

  BOOST_TEST_REQUIRE(cp->store(lsn{0x16B3748}).has_value());
  BOOST_TEST(read_file(path) == "0/16B3748\n");
  BOOST_TEST(!std::filesystem::exists(dir.path() / "cp.tmp"), "the temporary file was renamed");
  BOOST_TEST(cp->stored().value_or(lsn{}) == lsn{0x16B3748});

  auto again = tail::checkpoint_file::open(path);
  BOOST_TEST_REQUIRE(again.has_value());
  BOOST_TEST(again->stored().value_or(lsn{}) == lsn{0x16B3748});
}

BOOST_AUTO_TEST_CASE(reads_what_a_person_might_write) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const auto path = dir.path() / "cp";
  write_file(path, "");
  BOOST_TEST(!tail::checkpoint_file::open(path)->stored().has_value(), "an empty file is no checkpoint");
  write_file(path, "1A/2b\r\n");
  BOOST_TEST(tail::checkpoint_file::open(path)->stored().value_or(lsn{}) == lsn{0x1A'0000'002B});
}

BOOST_AUTO_TEST_CASE(refuses_what_is_not_an_lsn) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const auto path = dir.path() / "cp";
  for (const std::string& bad : std::vector<std::string>{"secret-q3", "0/", "12345", std::string(100, '1')}) {
    write_file(path, bad);
    auto cp = tail::checkpoint_file::open(path);
    BOOST_TEST_REQUIRE(!cp.has_value());
    BOOST_TEST(cp.error() == replicant::errc::checkpoint_store_failed);
  }
  // A directory cannot be read as a file: the OS error is reported.
  auto dir_cp = tail::checkpoint_file::open(dir.path());
  BOOST_TEST(!dir_cp.has_value());
}

BOOST_AUTO_TEST_CASE(a_failed_store_keeps_the_old_value) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  auto cp = tail::checkpoint_file::open(dir.path() / "missing-dir" / "cp");
  BOOST_TEST_REQUIRE(cp.has_value());
  const auto stored = cp->store(lsn{0x100});
  BOOST_TEST_REQUIRE(!stored.has_value());
  BOOST_TEST((stored.error() == std::errc::no_such_file_or_directory));
  BOOST_TEST(!cp->stored().has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(jsonl_sink)

BOOST_AUTO_TEST_CASE(writes_then_checkpoints_and_skips_what_it_has_written) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const auto txns = three_transactions();
  const file_fd out_file{dir.path() / "out"};
  tail::output_stream out{out_file.fd};
  BOOST_TEST(out.is_regular_file());
  auto cp = tail::checkpoint_file::open(dir.path() / "cp");
  BOOST_TEST_REQUIRE(cp.has_value());
  tail::jsonl_sink sink{out, &*cp, false};
  BOOST_TEST(!sink.checkpoint()->has_value());

  BOOST_TEST(sink.handle_transaction(txns[0]).value() == lsn{0x100});
  BOOST_TEST(read_file(dir.path() / "out") == line_for(1, "0/100", 701));
  BOOST_TEST(read_file(dir.path() / "cp") == "0/100\n");
  BOOST_TEST(sink.handle_transaction(txns[1]).value() == lsn{0x200});
  // The server re-sends what it was not told about: written once only.
  BOOST_TEST(sink.handle_transaction(txns[0]).value() == lsn{0x100});
  BOOST_TEST(sink.handle_transaction(txns[1]).value() == lsn{0x200});
  BOOST_TEST(read_file(dir.path() / "out") == line_for(1, "0/100", 701) + line_for(2, "0/200", 702));
  BOOST_TEST(read_file(dir.path() / "cp") == "0/200\n");
  BOOST_TEST(sink.written() == 2U);
  BOOST_TEST(sink.skipped() == 2U);
  BOOST_TEST(sink.checkpoint()->value() == lsn{0x200});
}

BOOST_AUTO_TEST_CASE(resumes_from_the_checkpoint_file) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const auto txns = three_transactions();
  write_file(dir.path() / "cp", "0/200\n");
  const file_fd out_file{dir.path() / "out"};
  tail::output_stream out{out_file.fd};
  auto cp = tail::checkpoint_file::open(dir.path() / "cp");
  BOOST_TEST_REQUIRE(cp.has_value());
  tail::jsonl_sink sink{out, &*cp, false};
  BOOST_TEST(sink.checkpoint()->value() == lsn{0x200});
  for (const auto& t : txns) BOOST_TEST(sink.handle_transaction(t).has_value());
  BOOST_TEST(read_file(dir.path() / "out") == line_for(3, "0/300", 703));
  BOOST_TEST(read_file(dir.path() / "cp") == "0/300\n");
}

BOOST_AUTO_TEST_CASE(a_closed_output_fails_without_moving_the_checkpoint) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const auto txns = three_transactions();
  std::signal(SIGPIPE, SIG_IGN);  // as replicant-tail does: EPIPE instead of death
  int fds[2];
  BOOST_TEST_REQUIRE(::pipe(fds) == 0);
  tail::output_stream out{fds[1]};
  BOOST_TEST(!out.is_regular_file());
  auto cp = tail::checkpoint_file::open(dir.path() / "cp");
  BOOST_TEST_REQUIRE(cp.has_value());
  tail::jsonl_sink sink{out, &*cp, false};
  BOOST_TEST(sink.handle_transaction(txns[0]).has_value());
  ::close(fds[0]);
  const auto failed = sink.handle_transaction(txns[1]);
  BOOST_TEST_REQUIRE(!failed.has_value());
  BOOST_TEST((failed.error() == std::errc::broken_pipe));
  BOOST_TEST(read_file(dir.path() / "cp") == "0/100\n");
  BOOST_TEST(sink.checkpoint()->value() == lsn{0x100});
  ::close(fds[1]);
}

BOOST_AUTO_TEST_CASE(without_a_file_the_watermark_lives_in_memory) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const auto txns = three_transactions();
  const file_fd out_file{dir.path() / "out"};
  tail::output_stream out{out_file.fd};
  tail::jsonl_sink sink{out, nullptr, false};
  BOOST_TEST(sink.handle_transaction(txns[1]).has_value());
  BOOST_TEST(sink.handle_transaction(txns[0]).has_value());
  BOOST_TEST(read_file(dir.path() / "out") == line_for(2, "0/200", 702));
}

BOOST_AUTO_TEST_CASE(writes_non_transactional_messages) {
  replicant::test::temp_dir dir{"replicant-tail-unit"};
  const file_fd out_file{dir.path() / "out"};
  tail::output_stream out{out_file.fd};
  tail::jsonl_sink sink{out, nullptr, true};
  const std::string content = "hi";
  const replicant::logical_message m{false, lsn{0x42}, "app",
                                     std::as_bytes(std::span<const char>{content.data(), content.size()})};
  BOOST_TEST(sink.handle_message(m).has_value());
  BOOST_TEST(read_file(dir.path() / "out") ==
             R"({"lsn":"0/42","op":"message","transactional":false,"prefix":"app","content":"hi"})"
             "\n");
}

BOOST_AUTO_TEST_SUITE_END()
