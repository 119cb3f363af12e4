// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_BENCHMARKS_COMMON_CHILD_PROCESS_HPP
#define REPLICANT_BENCHMARKS_COMMON_CHILD_PROCESS_HPP

// The programs a benchmark runs as child processes: started so that they die with the benchmark,
// whatever ends it (ctest's timeout, a signal, a crash), and stopped as a user stops them, with
// SIGTERM.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace replicant::bench {

/// What a child's standard streams are: descriptors of the benchmark, opened close-on-exec so that
/// the child keeps only their copies on its standard streams; -1 leaves a stream the benchmark's.
struct child_streams {
  int in = -1;
  int out = -1;
  int err = -1;
};

/**
 * Starts @p program with @p args as a child process, its standard streams on @p streams.
 * @return its process id; -1 with errno set when fork() fails. A program that cannot be executed
 * exits with status 127.
 *
 * The child gets SIGKILL when the benchmark dies (PR_SET_PDEATHSIG); had the benchmark died
 * already, between fork() and prctl(), that signal would never come, so the child exits at once.
 * Everything the child needs is prepared before fork(), so that the child calls only
 * async-signal-safe functions until it execs (another thread may hold locks).
 */
inline auto spawn(const std::string& program, std::vector<std::string> args, child_streams streams) -> pid_t {
  args.insert(args.begin(), program);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (streams.in >= 0) ::dup2(streams.in, STDIN_FILENO);
    if (streams.out >= 0) ::dup2(streams.out, STDOUT_FILENO);
    if (streams.err >= 0) ::dup2(streams.err, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

/**
 * A program a benchmark starts, lets work and then stops, started by spawn(): its standard error
 * appended to a log (where a failed run's reason is found afterwards), and its standard output too
 * unless it goes to a file of its own. Killed (SIGKILL) and reaped when the object goes, if it
 * still runs.
 */
class child_process {
 public:
  /// Starts @p program with @p args, its standard error appended to @p log (created when missing),
  /// and its standard output too, unless @p out names a file for it, which must exist (`/dev/null`
  /// for a program whose output is not wanted).
  child_process(const std::string& program, std::vector<std::string> args, const std::filesystem::path& log,
                const std::filesystem::path& out = {}) {
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (err < 0) throw std::system_error(errno, std::generic_category(), "opening the log of " + program);
    const int own_out = out.empty() ? -1 : ::open(out.c_str(), O_WRONLY | O_CLOEXEC);
    if (!out.empty() && own_out < 0) {
      const int error = errno;
      ::close(err);
      throw std::system_error(error, std::generic_category(), "opening the output of " + program);
    }
    pid_ = spawn(program, std::move(args), child_streams{.out = own_out >= 0 ? own_out : err, .err = err});
    const int error = errno;
    if (own_out >= 0) ::close(own_out);
    ::close(err);
    if (pid_ < 0) throw std::system_error(error, std::generic_category(), "starting " + program);
  }
  child_process(const child_process&) = delete;
  auto operator=(const child_process&) -> child_process& = delete;
  ~child_process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  /// Whether it still runs; once it has exited it is reaped, and status() is its exit status.
  [[nodiscard]] auto running() -> bool {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return true;
    pid_ = 0;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return false;
  }

  /**
   * Stops it as a user would: SIGTERM, then waits up to @p patience for it to exit, and kills it
   * (SIGKILL) if it has not.
   * @return its exit status (128 + the signal that ended it, if one did), or -1 if it had to be killed.
   */
  auto stop(std::chrono::milliseconds patience) -> int {
    if (pid_ <= 0) return status_;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!running()) return status_;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = 0;
    return -1;
  }

  /// Its exit status as stop() returns it; -1 while it runs, or when it had to be killed.
  [[nodiscard]] auto status() const -> int { return status_; }
  /// Its process id while it runs (for its CPU time); 0 once it has been reaped.
  [[nodiscard]] auto pid() const -> pid_t { return pid_; }

 private:
  pid_t pid_ = 0;
  int status_ = -1;
};

}  // namespace replicant::bench

#endif  // REPLICANT_BENCHMARKS_COMMON_CHILD_PROCESS_HPP
