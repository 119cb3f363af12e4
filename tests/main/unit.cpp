// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The main() of the unit test programs (Boost.Test's). A program holds the suites of several files,
// one suite a file (tests/CMakeLists.txt); ctest runs one suite a process (--run_test=<file>_tests).
#define BOOST_TEST_MODULE replicant.unit
#include <boost/test/unit_test.hpp>
