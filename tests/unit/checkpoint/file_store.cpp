// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The file checkpoint store: round trips, refusing files it did not write for this slot, and
// crash-safe replacement under failing disks (a missing directory, a file size limit standing in
// for a full disk).
#include <replicant/checkpoint/file_store.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(checkpoint_file_store_tests)

namespace fs = std::filesystem;
namespace utf = boost::unit_test;
using replicant::errc;
using replicant::file_checkpoint_store;
using replicant::lsn;
using replicant::slot_name;
using replicant::test::read_file;
using replicant::test::temp_dir;

static_assert(replicant::checkpoint_store<file_checkpoint_store>);
static_assert(replicant::checkpoint_store<const file_checkpoint_store> == false);  // write() mutates

namespace {

auto slot(std::string_view name) -> slot_name { return slot_name::make(name).value(); }

// A read's outcome as text, so that a failed check prints what came back.
auto show(const replicant::result<std::optional<lsn>>& r) -> std::string {
  if (!r) return "error " + r.error().message();
  if (!*r) return "none";
  return replicant::to_string(**r);
}

auto put(const fs::path& p, std::string_view bytes) -> void {
  std::ofstream out{p, std::ios::binary | std::ios::trunc};
  out << bytes;
  BOOST_TEST_REQUIRE(out.good());
}

// Every entry of @p dir, by file name.
auto entries(const fs::path& dir) -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator{dir}) out.push_back(e.path().filename().string());
  return out;
}

// Lowers the process's file size limit for the duration of one call, with SIGXFSZ ignored so that
// exceeding it is an EFBIG from write() rather than the end of the test program.
class file_size_limit {
 public:
  explicit file_size_limit(rlim_t bytes) {
    BOOST_TEST_REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved_) == 0);
    previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    BOOST_TEST_REQUIRE(::setrlimit(RLIMIT_FSIZE, &lowered) == 0);
  }
  ~file_size_limit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_handler_);
  }
  file_size_limit(const file_size_limit&) = delete;
  auto operator=(const file_size_limit&) -> file_size_limit& = delete;

 private:
  rlimit saved_{};
  void (*previous_handler_)(int) = nullptr;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(file_checkpoint_store_suite)

BOOST_AUTO_TEST_CASE(round_trips_a_checkpoint) {
  const temp_dir dir{"replicant-file-store"};
  file_checkpoint_store store{dir.path() / "checkpoint"};
  BOOST_TEST(store.path() == dir.path() / "checkpoint");
  for (const lsn at : {lsn{0x16'B374'D848}, lsn{}, lsn{1}, lsn{~std::uint64_t{0}}, lsn{0x8000'0000'0000'0000}}) {
    BOOST_TEST_REQUIRE(store.write(slot("orders_cdc"), at).has_value());
    const auto back = store.read(slot("orders_cdc"));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST_REQUIRE(back->has_value());
    BOOST_TEST(back->value() == at);
    // A fresh store (a restarted process) reads the same.
    const file_checkpoint_store again{dir.path() / "checkpoint"};
    BOOST_TEST(show(again.read(slot("orders_cdc"))) == replicant::to_string(at));
  }
}

BOOST_AUTO_TEST_CASE(writes_the_documented_text_format) {
  const temp_dir dir{"replicant-file-store"};
  file_checkpoint_store store{dir.path() / "cp"};
  BOOST_TEST_REQUIRE(store.write(slot("orders_cdc"), lsn{0x16'B374'D848}).has_value());
  BOOST_TEST(read_file(dir.path() / "cp") == "replicant-checkpoint 1\nslot orders_cdc\ncommit_lsn 16/B374D848\n");
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat st{};
  BOOST_TEST_REQUIRE(::stat((dir.path() / "cp").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 0777U) == (0644U & ~mask));
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_no_checkpoint) {
  const temp_dir dir{"replicant-file-store"};
  const file_checkpoint_store store{dir.path() / "never-written"};
  BOOST_TEST(show(store.read(slot("s"))) == "none");
}

BOOST_AUTO_TEST_CASE(another_slots_file_is_a_mismatch) {
  const temp_dir dir{"replicant-file-store"};
  file_checkpoint_store store{dir.path() / "cp"};
  BOOST_TEST_REQUIRE(store.write(slot("orders_cdc"), lsn{42}).has_value());
  for (const char* other : {"orders_cd", "orders_cdc2", "x"}) {
    const auto r = store.read(slot(other));
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error() == errc::store_mismatch);
    BOOST_TEST(replicant::is_permanent_store_fault(r.error()));
  }
  BOOST_TEST(show(store.read(slot("orders_cdc"))) == replicant::to_string(lsn{42}));
}

BOOST_AUTO_TEST_CASE(garbage_and_unknown_formats_are_a_mismatch) {
  const temp_dir dir{"replicant-file-store"};
  const auto file = dir.path() / "cp";
  const file_checkpoint_store store{file};
  const std::string big(5000, 'x');
  const std::string valid_head = "replicant-checkpoint 1\nslot s\ncommit_lsn 0/1";
  int index = 0;
  for (const std::string& bytes : std::vector<std::string>{
           "",                                                                     // empty (never silently start over)
           "hello\n",                                                              // not ours
           "replicant-checkpoint 2\nslot s\ncommit_lsn 0/1\n",                     // a future format version
           "replicant-checkpoint 1\r\nslot s\r\ncommit_lsn 0/1\r\n",               // line endings changed
           valid_head,                                                             // torn: no final newline
           valid_head + "\n\n",                                                    // a trailing empty line
           valid_head + "\nextra 1\n",                                             // an unknown field
           "replicant-checkpoint 1\ncommit_lsn 0/1\nslot s\n",                     // fields out of order
           "replicant-checkpoint 1\nslot s\ncommit_lsn 0-1\n",                     // not an LSN
           "replicant-checkpoint 1\nslot s\ncommit_lsn \n",                        // no value
           "replicant-checkpoint 1\nslot  s\ncommit_lsn 0/1\n",                    // two spaces
           "replicant-checkpoint 1\nslot s\ncommit_lsn 0/1 \n",                    // trailing blank
           "replicant-checkpoint 1\nslot s\ncommit_lsn 123456789/0\n",             // LSN half too wide
           valid_head + "\n" + big,                                                // far too large
           std::string("replicant-checkpoint 1\nslot s\0\ncommit_lsn 0/1\n", 46),  // embedded NUL
       }) {
    put(file, bytes);
    const auto r = store.read(slot("s"));
    BOOST_TEST_CONTEXT("content #" << index++) {
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == errc::store_mismatch);
    }
  }
  put(file, valid_head + "\n");  // and the well-formed version of the same parses
  BOOST_TEST(show(store.read(slot("s"))) == replicant::to_string(lsn{1}));
}

BOOST_AUTO_TEST_CASE(a_missing_directory_fails_transiently_then_works_once_it_exists) {
  const temp_dir dir{"replicant-file-store"};
  const auto sub = dir.path() / "not-mounted-yet";
  file_checkpoint_store store{sub / "cp"};
  const auto w = store.write(slot("s"), lsn{7});
  BOOST_TEST_REQUIRE(!w.has_value());
  BOOST_TEST(w.error() == errc::io_failed);
  BOOST_TEST(!replicant::is_permanent_store_fault(w.error()));
  BOOST_TEST(show(store.read(slot("s"))) == "none");  // no file there, so no checkpoint

  fs::create_directory(sub);
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{7}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == replicant::to_string(lsn{7}));
}

BOOST_AUTO_TEST_CASE(a_full_disk_fails_transiently_and_keeps_the_previous_checkpoint) {
  const temp_dir dir{"replicant-file-store"};
  const auto file = dir.path() / "cp";
  file_checkpoint_store store{file};
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x10}).has_value());
  const auto before = read_file(file);

  replicant::result<void> w;
  {
    // 16 bytes fit, the rest of the ~45-byte file does not: a short write, then EFBIG.
    const file_size_limit limit{16};
    w = store.write(slot("s"), lsn{0xABCDEF'0123'4567});
  }
  BOOST_TEST_REQUIRE(!w.has_value());
  BOOST_TEST(w.error() == errc::io_failed);
  BOOST_TEST(!replicant::is_permanent_store_fault(w.error()));
  BOOST_TEST(read_file(file) == before);
  BOOST_TEST(show(store.read(slot("s"))) == replicant::to_string(lsn{0x10}));
  BOOST_TEST(entries(dir.path()) == std::vector<std::string>{"cp"}, "the temporary file was removed");

  // With the limit gone, the same write succeeds.
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0xABCDEF'0123'4567}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == replicant::to_string(lsn{0xABCDEF'0123'4567}));
}

BOOST_AUTO_TEST_CASE(overwriting_keeps_only_the_last_value_and_no_temporary_file) {
  const temp_dir dir{"replicant-file-store"};
  file_checkpoint_store store{dir.path() / "cp"};
  for (std::uint64_t v = 1; v <= 50; ++v)
    BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{v * 0x1'0000'0001}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == replicant::to_string(lsn{50 * 0x1'0000'0001}));
  BOOST_TEST(read_file(dir.path() / "cp") == "replicant-checkpoint 1\nslot s\ncommit_lsn 32/32\n");
  BOOST_TEST(entries(dir.path()) == std::vector<std::string>{"cp"});
}

BOOST_AUTO_TEST_CASE(a_temporary_file_left_by_a_crash_is_ignored_and_replaced) {
  const temp_dir dir{"replicant-file-store"};
  file_checkpoint_store store{dir.path() / "cp"};
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{5}).has_value());
  put(dir.path() / "cp.tmp", "replicant-checkpoint 1\nslot s\ncommit_lsn 0/");  // torn, never renamed
  BOOST_TEST(show(store.read(slot("s"))) == replicant::to_string(lsn{5}));
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{6}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == replicant::to_string(lsn{6}));
  BOOST_TEST(entries(dir.path()) == std::vector<std::string>{"cp"});
}

BOOST_AUTO_TEST_CASE(a_directory_in_place_of_the_file_fails_transiently) {
  const temp_dir dir{"replicant-file-store"};
  fs::create_directory(dir.path() / "cp");
  file_checkpoint_store store{dir.path() / "cp"};
  const auto r = store.read(slot("s"));
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error() == errc::io_failed);
  const auto w = store.write(slot("s"), lsn{1});
  BOOST_TEST_REQUIRE(!w.has_value());
  BOOST_TEST(w.error() == errc::io_failed);
  BOOST_TEST(!fs::exists(dir.path() / "cp.tmp"));
}

// Permissions do not bind root, so this case runs only for other users.
BOOST_AUTO_TEST_CASE(an_unreadable_file_fails_transiently,
                     *utf::precondition([](utf::test_unit_id) { return ::geteuid() != 0; })) {
  const temp_dir dir{"replicant-file-store"};
  file_checkpoint_store store{dir.path() / "cp"};
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{1}).has_value());
  fs::permissions(dir.path() / "cp", fs::perms::none);
  const auto r = store.read(slot("s"));
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error() == errc::io_failed);
  fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);  // no new entries
  const auto w = store.write(slot("s"), lsn{2});
  BOOST_TEST_REQUIRE(!w.has_value());
  BOOST_TEST(w.error() == errc::io_failed);
  fs::permissions(dir.path(), fs::perms::owner_all);
}

BOOST_AUTO_TEST_CASE(a_fifo_in_place_of_the_file_fails_without_blocking) {
  const temp_dir dir{"replicant-file-store"};
  BOOST_TEST_REQUIRE(::mkfifo((dir.path() / "cp").c_str(), 0600) == 0);
  const file_checkpoint_store store{dir.path() / "cp"};
  BOOST_TEST(show(store.read(slot("s"))) == "error " + replicant::make_error_code(errc::io_failed).message());
}

BOOST_AUTO_TEST_CASE(a_path_without_a_file_name_is_refused_permanently) {
  for (const fs::path& bad : {fs::path{}, fs::path{"some/dir/"}}) {
    file_checkpoint_store store{bad};
    const auto r = store.read(slot("s"));
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error() == errc::invalid_options);
    BOOST_TEST(replicant::is_permanent_store_fault(r.error()));
    const auto w = store.write(slot("s"), lsn{1});
    BOOST_TEST_REQUIRE(!w.has_value());
    BOOST_TEST(w.error() == errc::invalid_options);
  }
}

BOOST_AUTO_TEST_CASE(a_relative_path_is_resolved_in_the_working_directory) {
  const temp_dir dir{"replicant-file-store"};
  const auto cwd = fs::current_path();
  fs::current_path(dir.path());
  file_checkpoint_store store{"cp"};
  const auto w = store.write(slot("s"), lsn{3});
  const auto r = store.read(slot("s"));
  fs::current_path(cwd);
  BOOST_TEST(w.has_value());
  BOOST_TEST(show(r) == "0/3");
  BOOST_TEST(entries(dir.path()) == std::vector<std::string>{"cp"});
}

BOOST_AUTO_TEST_CASE(errors_never_name_the_path) {
  const temp_dir dir{"replicant-file-store"};
  const auto secret_dir = dir.path() / "customer-4711-secret";
  file_checkpoint_store store{secret_dir / "cp"};
  const auto w = store.write(slot("s"), lsn{1});
  BOOST_TEST_REQUIRE(!w.has_value());
  fs::create_directory(secret_dir);
  put(secret_dir / "cp", "customer-4711-secret\n");
  const auto r = store.read(slot("s"));
  BOOST_TEST_REQUIRE(!r.has_value());
  for (const auto& ec : {w.error(), r.error()}) {
    BOOST_TEST(ec.message().find("customer-4711") == std::string::npos);
    BOOST_TEST(ec.message().find(dir.path().string()) == std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // checkpoint_file_store_tests
