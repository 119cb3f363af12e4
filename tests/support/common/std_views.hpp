// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_COMMON_STD_VIEWS_HPP
#define REPLICANT_TESTS_SUPPORT_COMMON_STD_VIEWS_HPP

// Whether this toolchain compiles the standard library's ranges. Clang 14 does not compile
// libstdc++ 12's: `std::ranges::begin` of a std::vector already fails there, so no std::views
// adaptor or std::ranges concept can be used with any range. The tests of replicant's ranges then
// check range-v3 alone (which Clang 14 compiles), and check std::ranges with every other compiler.
#if defined(__clang__) && __clang_major__ < 15 && defined(__GLIBCXX__)
#define REPLICANT_TEST_STD_RANGES 0
#else
#define REPLICANT_TEST_STD_RANGES 1
#endif

#endif  // REPLICANT_TESTS_SUPPORT_COMMON_STD_VIEWS_HPP
