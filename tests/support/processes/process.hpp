// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_PROCESSES_PROCESS_HPP
#define REPLICANT_TESTS_SUPPORT_PROCESSES_PROCESS_HPP

/// @file
/// What the tests that run a program of the build as a child process share. Boost.Test only:
/// include it after the test module's `<boost/test/unit_test.hpp>`.

#include "support/common/required.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>

namespace replicant::test {

/**
 * A Boost.Test precondition that holds when @p binary (the program's path, which
 * the example's CMakeLists.txt passes in the macro named @p macro) is known, and otherwise says why the
 * tests are skipped: the build has no @p program (examples switched off). Under
 * REPLICANT_REQUIRE_ALL_PG=1 a missing program fails the test program instead
 * (support/common/required.hpp).
 *
 * @par Example
 * @code
 * BOOST_AUTO_TEST_SUITE(replicant_tail, *utf::precondition(replicant::test::binary_known{
 *                                           tail_binary, "REPLICANT_TAIL_BINARY", "replicant-tail"}))
 * @endcode
 */
struct binary_known {
  /// The program's path; empty when the build has none.
  std::string_view binary;
  /// The macro that would have carried the path.
  std::string_view macro;
  /// The program's name.
  std::string_view program;

  /// Whether the binary is known, with the reason when not (a failure when every part is required).
  [[nodiscard]] auto operator()(boost::unit_test::test_unit_id) const -> boost::test_tools::assertion_result {
    return present_or_skipped(!binary.empty(), true,
                              std::string{macro} + " is not defined: the build has no " + std::string{program});
  }
};

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_PROCESSES_PROCESS_HPP
