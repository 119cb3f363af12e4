// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_COMMON_TIME_SCALE_HPP
#define REPLICANT_TESTS_SUPPORT_COMMON_TIME_SCALE_HPP

// Wall-clock ceilings that stretch where the build is slow. A test's upper bound on how long
// something may take ("the slot is streaming within 30 s") is written for a plain build; the
// sanitizer presets set REPLICANT_TEST_TIME_SCALE (CMakePresets.json), and every ceiling is
// multiplied by it. Only ceilings are scaled, never a duration the test itself waits out. And the
// wait under such a ceiling, wait_until().

#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>

namespace replicant::test {

/// REPLICANT_TEST_TIME_SCALE (a whole number from 1 to 20), or 1.
inline auto time_scale() -> int {
  static const int scale = [] {
    const char* v = std::getenv("REPLICANT_TEST_TIME_SCALE");
    const int n = v != nullptr ? std::atoi(v) : 1;
    return n >= 1 && n <= 20 ? n : 1;
  }();
  return scale;
}

/// @p ceiling, stretched by time_scale().
template <class Rep, class Period>
auto scaled(std::chrono::duration<Rep, Period> ceiling) -> std::chrono::duration<Rep, Period> {
  return ceiling * time_scale();
}

/// Polls @p cond every 20 ms until it holds or @p timeout (stretched by time_scale()) passed;
/// returns whether it held.
inline auto wait_until(const std::function<bool()>& cond, std::chrono::seconds timeout = std::chrono::seconds(30))
    -> bool {
  const auto deadline = std::chrono::steady_clock::now() + scaled(timeout);
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_COMMON_TIME_SCALE_HPP
