// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The main() of the live test programs. A program holds the suites of several files, one suite a
// file (tests/CMakeLists.txt); ctest runs one suite a process (--run_test=<file>_tests), so "the
// program's server" of a suite is still its own. The global fixture decides skip-or-fail for a
// missing server before any test, and stops the server and reports the value-free audit after the
// last.
#define BOOST_TEST_MODULE replicant.integration
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "support/processes/child_mode.hpp"
#include "support/server/pg_cluster.hpp"

using replicant::test::live_server_fixture;
BOOST_TEST_GLOBAL_FIXTURE(live_server_fixture);

auto main(int argc, char** argv) -> int {
  if (const auto child = replicant::test::selected_child_mode(argc, argv)) return child(argc, argv);
  return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
}
