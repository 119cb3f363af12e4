// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_PROCESSES_SINK_PROCESS_HPP
#define REPLICANT_TESTS_SUPPORT_PROCESSES_SINK_PROCESS_HPP

/// @file
/// The broker sink program under test (replicant-jetstream, replicant-kafka) as a child process
/// that a live test kills and starts again at will. Boost.Test only: include it after the test
/// module's `<boost/test/unit_test.hpp>`.

#include <boost/test/unit_test.hpp>

#include "support/checks/value_free_audit.hpp"
#include "support/common/temp_dir.hpp"
#include "support/common/time_scale.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;  // NOLINT: POSIX, for execve

namespace replicant::test {

/// Polls @p cond every 50 ms until it holds or @p timeout passes. @return whether it held.
inline auto poll_until(const std::function<bool()>& cond, std::chrono::milliseconds timeout) -> bool {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  return cond();
}

/**
 * A sink program under test as a child process: started, SIGKILLed, stopped (SIGTERM) and waited
 * for; its output goes to a file, which the value-free audit reads when the object goes.
 */
class sink_process {
 public:
  /// @p binary run with @p args, its output appended to @p log; @p name says whose output it is.
  sink_process(std::string binary, std::string name, std::vector<std::string> args, std::filesystem::path log)
      : binary_(std::move(binary)), name_(std::move(name)), args_(std::move(args)), log_(std::move(log)) {}
  sink_process(const sink_process&) = delete;
  auto operator=(const sink_process&) -> sink_process& = delete;
  // Kills it if it runs, and hands what it printed to the value-free audit.
  ~sink_process() {
    kill();
    audit::note("output of " + name_, output());
  }

  /// Starts it, with @p extra_environment ("NAME=value") added to this process's environment.
  void start(std::vector<std::string> extra_environment = {}) {
    BOOST_TEST_REQUIRE(pid_ == 0);
    std::vector<char*> argv;
    std::string path{binary_};
    argv.push_back(path.data());
    for (auto& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
    for (auto& e : extra_environment) envp.push_back(e.data());
    envp.push_back(nullptr);
    const int out = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    BOOST_TEST_REQUIRE(out >= 0);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      // Only async-signal-safe calls between fork and exec (another thread may hold locks).
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::dup2(out, STDOUT_FILENO);
      ::dup2(out, STDERR_FILENO);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(out);
    BOOST_TEST_REQUIRE(pid_ > 0);
    ++starts_;
  }

  void kill() {
    if (pid_ == 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
  }

  // SIGTERM, then waits: the exit status, or -1 if it had to be killed.
  auto stop(std::chrono::seconds timeout = std::chrono::seconds{60}) -> int {
    if (pid_ == 0) return last_status_;
    ::kill(pid_, SIGTERM);
    if (poll_until([&] { return !running(); }, scaled(timeout))) return last_status_;
    kill();
    return -1;
  }

  // Waits for it to end by itself: its exit status, or -1 after @p timeout (it is then killed).
  auto wait_exit(std::chrono::seconds timeout) -> int {
    if (poll_until([&] { return !running(); }, scaled(timeout))) return last_status_;
    kill();
    return -1;
  }

  auto running() -> bool {
    if (pid_ == 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return true;
    pid_ = 0;
    last_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return false;
  }

  [[nodiscard]] auto starts() const -> int { return starts_; }
  /// The exit status of its last run as running() found it (128 + the signal for a killed one).
  [[nodiscard]] auto last_status() const -> int { return last_status_; }
  [[nodiscard]] auto output() const -> std::string { return read_file(log_); }

 private:
  std::string binary_;
  std::string name_;
  std::vector<std::string> args_;
  std::filesystem::path log_;
  pid_t pid_ = 0;
  int starts_ = 0;
  int last_status_ = -1;
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_PROCESSES_SINK_PROCESS_HPP
