// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_FAULTS_FROZEN_PROCESS_HPP
#define REPLICANT_TESTS_SUPPORT_FAULTS_FROZEN_PROCESS_HPP

/// @file
/// A process stopped with SIGSTOP for a scope, as a frozen VM or a debugger would stop it: what the
/// live tests do to a server backend to show that a call into it ends at the caller's own deadline,
/// since a server cannot enforce its timeouts in a process that does not run. Boost.Test only:
/// include it after the test module's `<boost/test/unit_test.hpp>`.

#include <boost/test/unit_test.hpp>

#include <signal.h>

namespace replicant::test {

/**
 * Stops process @p pid (SIGSTOP) for as long as the object lives, or until thaw(); failing to stop
 * it fails the test case (BOOST_TEST_REQUIRE).
 *
 * @par Example
 * @code
 * frozen_process frozen{backend_pid};
 * // a call into the backend must now end at the caller's deadline
 * frozen.thaw();
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class frozen_process {
 public:
  explicit frozen_process(int pid) : pid_(pid) { BOOST_TEST_REQUIRE(::kill(pid_, SIGSTOP) == 0); }
  frozen_process(const frozen_process&) = delete;
  auto operator=(const frozen_process&) -> frozen_process& = delete;
  ~frozen_process() { thaw(); }

  /// Lets the process run again (SIGCONT), once; later calls do nothing.
  auto thaw() -> void {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
    pid_ = 0;
  }

 private:
  int pid_;
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_FAULTS_FROZEN_PROCESS_HPP
