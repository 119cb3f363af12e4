// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The file checkpoint store against a file system that does not answer. A FIFO where the store
// writes its temporary file blocks open(2) until a reader comes, as a hard NFS mount whose server
// is gone or a disk whose fsync never returns would: the call must still end at io_timeout, an
// interrupt must end it at once, the next calls must not overlap the blocked one, and once the
// file system answers again the store must work as before. Also the bounded worker on its own.
#include <replicant/checkpoint/file_store.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"

#include <replicant/core/detail/bounded_call.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

BOOST_AUTO_TEST_SUITE(checkpoint_file_store_timeouts_tests)

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using replicant::errc;
using replicant::file_checkpoint_store;
using replicant::file_store_options;
using replicant::lsn;
using replicant::slot_name;
using replicant::test::read_file;
using replicant::test::temp_dir;

static_assert(replicant::interruptible_store<file_checkpoint_store>);
static_assert(std::is_copy_constructible_v<file_checkpoint_store>);
static_assert(std::is_nothrow_move_constructible_v<file_checkpoint_store>);

namespace {

using clock_type = std::chrono::steady_clock;

auto slot(std::string_view name) -> slot_name { return slot_name::make(name).value(); }

auto show(const replicant::result<std::optional<lsn>>& r) -> std::string {
  if (!r) return "error " + std::string{replicant::to_string(static_cast<errc>(r.error().value()))};
  if (!*r) return "none";
  return replicant::to_string(**r);
}

template <class T>
auto error_of(const replicant::result<T>& r) -> std::error_code {
  return r ? std::error_code{} : r.error();
}

auto since(clock_type::time_point t) -> std::chrono::milliseconds {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - t);
}

// Polls @p cond until it holds or @p timeout passed.
auto eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout = 10s) -> bool {
  const auto deadline = clock_type::now() + timeout;
  while (clock_type::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return cond();
}

// A FIFO where the store writes its temporary file: open(O_WRONLY) blocks until release() opens
// the reading end. The store's write then fails (fsync on a FIFO is EINVAL) and removes the FIFO,
// and the file system is "back".
class blocked_temp_file {
 public:
  explicit blocked_temp_file(fs::path temp) : temp_(std::move(temp)) {
    BOOST_TEST_REQUIRE(::mkfifo(temp_.c_str(), 0600) == 0);
  }
  blocked_temp_file(const blocked_temp_file&) = delete;
  auto operator=(const blocked_temp_file&) -> blocked_temp_file& = delete;
  ~blocked_temp_file() {
    release();
    // The blocked write ends by removing the FIFO; only then may its reader go (a writer without
    // a reader would get SIGPIPE, which this program ignores anyway).
    static_cast<void>(eventually([&] { return !fs::exists(fs::symlink_status(temp_)); }));
    if (reader_ >= 0) ::close(reader_);
  }
  // Lets the blocked open() through.
  auto release() -> void {
    if (reader_ < 0 && fs::exists(fs::symlink_status(temp_))) reader_ = ::open(temp_.c_str(), O_RDONLY | O_NONBLOCK);
  }
  [[nodiscard]] auto gone() const -> bool { return !fs::exists(fs::symlink_status(temp_)); }

 private:
  fs::path temp_;
  int reader_ = -1;
};

struct ignore_sigpipe {
  ignore_sigpipe() { std::signal(SIGPIPE, SIG_IGN); }
};

}  // namespace

// The rest of the suite runs inside ignore_sigpipe, made before its first test and ended after its last.
BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE(checkpoint_file_store_timeouts_tests, *boost::unit_test::fixture<ignore_sigpipe>())

BOOST_AUTO_TEST_SUITE(file_checkpoint_store_timeouts)

BOOST_AUTO_TEST_CASE(a_write_that_blocks_ends_at_the_timeout_and_the_store_recovers) {
  temp_dir dir{"replicant-fs-timeout"};
  const auto file = dir.path() / "cp";
  file_checkpoint_store store{file, {.io_timeout = 300ms}};
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x10}).has_value());
  const std::string before = read_file(file);
  {
    blocked_temp_file fifo{dir.path() / "cp.tmp"};
    auto started = clock_type::now();
    const auto w = store.write(slot("s"), lsn{0x20});
    const auto took = since(started);
    BOOST_TEST(error_of(w) == errc::io_failed);
    BOOST_TEST(!replicant::is_permanent_store_fault(error_of(w)));
    BOOST_TEST(took >= 250ms, took.count() << " ms");
    BOOST_TEST(took < 2000ms, took.count() << " ms");
    // The blocked write goes on in the background; nothing overlaps it: a read (and a write) wait
    // for it, within their own timeouts, and then fail the same way.
    started = clock_type::now();
    BOOST_TEST(show(store.read(slot("s"))) == "error io_failed");
    BOOST_TEST(since(started) >= 250ms);
    BOOST_TEST(error_of(store.write(slot("s"), lsn{0x30})) == errc::io_failed);
    BOOST_TEST(read_file(file) == before, "the checkpoint is still the last one written");
    // The file system answers again: the blocked write fails on the FIFO and removes it.
    fifo.release();
    BOOST_TEST(eventually([&] { return fifo.gone(); }));
  }
  BOOST_TEST(show(store.read(slot("s"))) == "0/10");
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x40}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == "0/40");
  BOOST_TEST(show(file_checkpoint_store{file}.read(slot("s"))) == "0/40");
}

BOOST_AUTO_TEST_CASE(interrupt_ends_a_blocked_call_at_once) {
  temp_dir dir{"replicant-fs-interrupt"};
  const auto file = dir.path() / "cp";
  file_checkpoint_store store{file, {.io_timeout = 30s}};
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x10}).has_value());
  blocked_temp_file fifo{dir.path() / "cp.tmp"};
  std::atomic<bool> returned{false};
  std::error_code outcome;
  const auto started = clock_type::now();
  std::thread caller{[&] {
    outcome = error_of(store.write(slot("s"), lsn{0x20}));
    returned.store(true);
  }};
  std::this_thread::sleep_for(200ms);
  BOOST_TEST(!returned.load(), "the write is blocked");
  store.interrupt();
  caller.join();
  BOOST_TEST(outcome == errc::cancelled);
  BOOST_TEST(!replicant::is_permanent_store_fault(outcome));
  BOOST_TEST(since(started) < 2000ms, "an io_timeout of 30 s, and the interrupt ended the wait");
  fifo.release();
  BOOST_TEST(eventually([&] { return fifo.gone(); }));
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{0x30}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == "0/30");
}

BOOST_AUTO_TEST_CASE(an_interrupt_between_calls_does_not_end_the_next_one) {
  temp_dir dir{"replicant-fs-idle-interrupt"};
  file_checkpoint_store store{dir.path() / "cp", {.io_timeout = 5s}};
  store.interrupt();  // before the first call: nothing to end
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{1}).has_value());
  store.interrupt();  // between two calls
  BOOST_TEST_REQUIRE(store.write(slot("s"), lsn{2}).has_value());
  BOOST_TEST(show(store.read(slot("s"))) == "0/2");
}

BOOST_AUTO_TEST_CASE(destroying_a_store_whose_thread_is_blocked_does_not_wait_for_it) {
  temp_dir dir{"replicant-fs-detach"};
  const auto file = dir.path() / "cp";
  blocked_temp_file fifo{dir.path() / "cp.tmp"};
  {
    file_checkpoint_store store{file, {.io_timeout = 100ms}};
    BOOST_TEST(error_of(store.write(slot("s"), lsn{1})) == errc::io_failed);
    const auto started = clock_type::now();
    {
      const file_checkpoint_store gone = std::move(store);
    }
    BOOST_TEST(since(started) < 500ms, "the destructor left the blocked thread alone");
  }
  // The thread ends on its own once the file system answers.
  fifo.release();
  BOOST_TEST(eventually([&] { return fifo.gone(); }));
  BOOST_TEST(!fs::exists(file));
}

BOOST_AUTO_TEST_CASE(a_copy_has_the_options_and_a_thread_of_its_own) {
  temp_dir dir{"replicant-fs-copy"};
  file_checkpoint_store original{dir.path() / "cp", {.io_timeout = 250ms}};
  BOOST_TEST_REQUIRE(original.write(slot("s"), lsn{7}).has_value());
  const file_checkpoint_store copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  BOOST_TEST(copy.path() == original.path());
  BOOST_TEST((copy.options().io_timeout == 250ms));
  BOOST_TEST(show(copy.read(slot("s"))) == "0/7");
  file_checkpoint_store assigned{dir.path() / "other"};
  assigned = original;
  BOOST_TEST(show(assigned.read(slot("s"))) == "0/7");
}

BOOST_AUTO_TEST_CASE(a_non_positive_timeout_is_refused_by_every_call) {
  temp_dir dir{"replicant-fs-bad-timeout"};
  for (const auto t : {0ms, -5ms}) {
    file_checkpoint_store store{dir.path() / "cp", {.io_timeout = t}};
    BOOST_TEST(show(store.read(slot("s"))) == "error invalid_options");
    BOOST_TEST(error_of(store.write(slot("s"), lsn{1})) == errc::invalid_options);
    BOOST_TEST(replicant::is_permanent_store_fault(error_of(store.write(slot("s"), lsn{1}))));
  }
  BOOST_TEST(!fs::exists(dir.path() / "cp"));
}

BOOST_AUTO_TEST_CASE(a_fifo_in_place_of_the_checkpoint_fails_a_read_at_once) {
  temp_dir dir{"replicant-fs-fifo-read"};
  const auto file = dir.path() / "cp";
  BOOST_TEST_REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
  file_checkpoint_store store{file, {.io_timeout = 5s}};
  const auto started = clock_type::now();
  BOOST_TEST(show(store.read(slot("s"))) == "error io_failed");
  BOOST_TEST(since(started) < 1000ms, "opening the FIFO does not wait for a writer");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(blocking_worker)

BOOST_AUTO_TEST_CASE(returns_the_job_result_and_rethrows_its_exception) {
  replicant::detail::blocking_worker w;
  auto r = w.run<int>([]() -> replicant::result<int> { return 42; }, 1s, -1, errc::io_failed);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(*r == 42);
  auto e = w.run<int>([]() -> replicant::result<int> { return replicant::fail(errc::store_mismatch); }, 1s, -1,
                      errc::io_failed);
  BOOST_TEST(error_of(e) == errc::store_mismatch);
  BOOST_CHECK_THROW(static_cast<void>(w.run<int>([]() -> replicant::result<int> { throw std::runtime_error{"x"}; }, 1s,
                                                 -1, errc::io_failed)),
                    std::runtime_error);
  BOOST_TEST(!w.busy());
}

BOOST_AUTO_TEST_CASE(a_late_job_is_waited_for_before_the_next_one_runs) {
  replicant::detail::blocking_worker w;
  std::atomic<bool> open_gate{false};
  std::atomic<int> order{0};
  int first_at = 0;
  const auto slow = [&]() -> replicant::result<void> {
    while (!open_gate.load()) std::this_thread::sleep_for(5ms);
    first_at = ++order;
    return {};
  };
  BOOST_TEST(error_of(w.run<void>(slow, 100ms, -1, errc::io_failed)) == errc::io_failed);
  BOOST_TEST(w.busy());
  // Still running: the next call does not start its job, and times out waiting.
  bool ran = false;
  BOOST_TEST(error_of(w.run<void>(
                 [&]() -> replicant::result<void> {
                   ran = true;
                   return {};
                 },
                 100ms, -1, errc::io_failed)) == errc::io_failed);
  BOOST_TEST(!ran);
  open_gate.store(true);
  int second_at = 0;
  BOOST_TEST(w.run<void>(
                  [&]() -> replicant::result<void> {
                    second_at = ++order;
                    return {};
                  },
                  2s, -1, errc::io_failed)
                 .has_value());
  BOOST_TEST(first_at == 1);
  BOOST_TEST(second_at == 2);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // checkpoint_file_store_timeouts_tests
