// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_COMMON_REQUIRED_HPP
#define REPLICANT_TESTS_SUPPORT_COMMON_REQUIRED_HPP

// Skips that fail where a part is required. On a developer's machine a test whose part is missing
// (a plugin, an example program) is skipped, saying why. Under REPLICANT_REQUIRE_ALL_PG=1 (CI),
// a part that the harness provisions must be there: its absence ends the program with a failure,
// so a green run cannot hide cases that never ran.

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace replicant::test {

/// Whether environment variable @p name is `1`.
inline auto env_is_one(const char* name) -> bool {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

/// The number environment variable @p name holds (a soak's size, a seed), or @p fallback when it is
/// unset or empty. @throws std::invalid_argument or std::out_of_range for text that is not one.
inline auto env_number(const char* name, std::uint64_t fallback) -> std::uint64_t {
  const char* v = std::getenv(name);
  return v == nullptr || *v == '\0' ? fallback : std::stoull(v);
}

/// Whether this run requires every part the harness provisions (REPLICANT_REQUIRE_ALL_PG=1).
inline auto every_part_required() -> bool { return env_is_one("REPLICANT_REQUIRE_ALL_PG"); }

/// Ends the program with exit status 1 and @p why on standard error: what a precondition does about
/// a failure of its own (Boost.Test reports an exception thrown there as an internal error of
/// unknown reason, and a precondition can skip a case, but not fail it). std::exit, so that the
/// process-wide server (a static) is stopped and removed.
[[noreturn]] inline auto end_with_failure(const std::string& why) -> void {
  std::fprintf(stderr, "replicant: %s\n", why.c_str());
  std::fflush(nullptr);
  std::exit(1);
}

/**
 * Ends a test program that cannot run at all because a part is missing (@p why says which, and
 * what installs it): exit status 77, which ctest reports as skipped, or end_with_failure() when
 * every part is required. _Exit: nothing was started, and Boost.Test must not report the cases as
 * passed or failed.
 */
[[noreturn]] inline auto skip_program_or_fail(const std::string& why) -> void {
  if (every_part_required()) end_with_failure(why + ", and REPLICANT_REQUIRE_ALL_PG=1 requires it");
  std::fprintf(stderr, "replicant: skipped: %s\n", why.c_str());
  std::fflush(nullptr);
  std::_Exit(77);
}

/**
 * A precondition's verdict on a part that test cases need: true when @p present. Otherwise a skip
 * that says @p why, unless the part is @p required_here (the harness provisions it for this
 * server) and every part is required: then the program ends with end_with_failure().
 */
inline auto present_or_skipped(bool present, bool required_here, const std::string& why)
    -> boost::test_tools::assertion_result {
  if (!present && required_here && every_part_required()) {
    end_with_failure(why + ", and REPLICANT_REQUIRE_ALL_PG=1 requires it");
  }
  boost::test_tools::assertion_result verdict{present};
  if (!present) verdict.message() << why;
  return verdict;
}

/**
 * The precondition of a broker's cases, which do not depend on the PostgreSQL major (faults of the
 * broker, the sink's kill storms): they run on PostgreSQL 17, or on every major when the
 * environment variable @p all_cases is `1`. The program's other cases run on every major.
 */
struct broker_cases_here {
  const char* all_cases;  ///< the variable that asks for every major, e.g. `REPLICANT_KAFKA_ALL_CASES`

  auto operator()(boost::unit_test::test_unit_id) const -> boost::test_tools::assertion_result {
    const char* major = std::getenv("REPLICANT_PG_MAJOR");
    const bool here = env_is_one(all_cases) || major == nullptr || std::strcmp(major, "17") == 0;
    boost::test_tools::assertion_result verdict{here};
    if (!here) verdict.message() << "the broker's cases run on PostgreSQL 17 (" << all_cases << "=1: on every major)";
    return verdict;
  }
};

/**
 * The precondition of a long case whose behaviour cannot depend on the PostgreSQL major (such as a
 * sink's pace against the server's) in a program that runs on every major: it runs on 17 and 18,
 * where CI's tsan and asan-ubsan presets each meet it once, or on every major when the environment
 * variable `REPLICANT_ALL_MAJORS` is `1` (tools/soak sets it), or when no major is named.
 */
inline auto major_independent(boost::unit_test::test_unit_id) -> boost::test_tools::assertion_result {
  const char* major = std::getenv("REPLICANT_PG_MAJOR");
  const bool here = env_is_one("REPLICANT_ALL_MAJORS") || major == nullptr || std::strcmp(major, "17") == 0 ||
                    std::strcmp(major, "18") == 0;
  boost::test_tools::assertion_result verdict{here};
  if (!here) {
    verdict.message() << "a case independent of the major runs on PostgreSQL 17 and 18 (REPLICANT_ALL_MAJORS=1: "
                         "on every major)";
  }
  return verdict;
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_COMMON_REQUIRED_HPP
