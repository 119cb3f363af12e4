// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_PROCESSES_CHILD_PROCESS_HPP
#define REPLICANT_TESTS_SUPPORT_PROCESSES_CHILD_PROCESS_HPP

/// @file
/// A program of the build run as a child process, its standard output and error going to files:
/// what the live tests of the example programs need to start, signal, kill and wait for them.
/// Boost.Test only: include it after the test module's `<boost/test/unit_test.hpp>`.

#include <boost/test/unit_test.hpp>

#include "support/checks/value_free_audit.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

extern char** environ;  // NOLINT: POSIX, for posix_spawn

namespace replicant::test {

/**
 * Runs @p binary with arguments as a child process, standard output and standard error each
 * written to a file (truncated first), and kills it (SIGKILL) when the object goes if it is still
 * running. Failing to start it fails the test case (BOOST_TEST_REQUIRE).
 *
 * @par Example
 * @code
 * child_process p{binary, {"--dsn", dsn}, dir / "out", dir / "err"};
 * p.signal(SIGTERM);
 * BOOST_TEST(p.wait() == 0);
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class child_process {
 public:
  /// Starts @p binary with @p args, its stdout into @p stdout_file and stderr into @p stderr_file.
  child_process(std::string_view binary, const std::vector<std::string>& args, const std::filesystem::path& stdout_file,
                const std::filesystem::path& stderr_file)
      : stderr_file_(stderr_file) {
    const int out = ::open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    BOOST_TEST_REQUIRE(out >= 0);
    BOOST_TEST_REQUIRE(err >= 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
    std::vector<std::string> argv_storage{std::string{binary}};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, argv_storage[0].c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out);
    ::close(err);
    BOOST_TEST_REQUIRE(rc == 0);
  }
  child_process(const child_process&) = delete;
  auto operator=(const child_process&) -> child_process& = delete;
  /// Kills the process if it still runs, reaps it, and hands its standard error to the value-free
  /// audit (its standard output may carry row values by design: replicant-tail's does).
  ~child_process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::ifstream err{stderr_file_, std::ios::binary};
    audit::note("standard error of a child program",
                std::string{std::istreambuf_iterator<char>{err}, std::istreambuf_iterator<char>{}});
  }

  /// Whether the process still runs (false once it exited and was reaped).
  [[nodiscard]] auto running() -> bool {
    if (pid_ <= 0) return false;
    if (::waitpid(pid_, &status_, WNOHANG) == 0) return true;
    pid_ = 0;
    return false;
  }

  /// Sends @p sig to the process, if it runs.
  auto signal(int sig) -> void {
    if (pid_ > 0) ::kill(pid_, sig);
  }

  /// Kills the process with SIGKILL and reaps it: a crash at an arbitrary point.
  auto kill() -> void {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
    pid_ = 0;
  }

  /**
   * Waits for the process to exit. @return its exit status; -1 when it died of a signal, or did not
   * exit within @p timeout (it is then killed).
   */
  auto wait(std::chrono::milliseconds timeout = std::chrono::seconds(30)) -> int {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (pid_ > 0) {
      const pid_t r = ::waitpid(pid_, &status_, WNOHANG);
      if (r == pid_) {
        pid_ = 0;
        return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        kill();
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }

 private:
  std::filesystem::path stderr_file_;
  pid_t pid_ = 0;
  int status_ = 0;
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_PROCESSES_CHILD_PROCESS_HPP
