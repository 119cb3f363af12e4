// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_PROCESSES_CHILD_MODE_HPP
#define REPLICANT_TESTS_SUPPORT_PROCESSES_CHILD_MODE_HPP

/// @file
/// What a live test program does instead of running its tests when its first argument names a child
/// mode: a suite that runs its own program as a child process (the decoders' kill storms) registers
/// the mode, and the program's main() (tests/main/live.cpp) looks it up. The program holds many
/// suites, so the mode is registered by name rather than written into main().

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace replicant::test {

/// A child mode's entry point: the program's whole command line; returns its exit status.
using child_main = int (*)(int argc, char** argv);

/// The registered child modes, by the flag that selects them.
inline auto child_modes() -> std::map<std::string, child_main, std::less<>>& {
  static std::map<std::string, child_main, std::less<>> modes;
  return modes;
}

/**
 * Registers a child mode while the program starts (a namespace-scope object).
 *
 * @par Example
 * @code
 * const replicant::test::child_mode decoder_child{"--decoder-child", &run_child};
 * @endcode
 */
struct child_mode {
  /// Makes `<program> <flag> ...` call @p run instead of running the tests.
  child_mode(std::string flag, child_main run) { child_modes().emplace(std::move(flag), run); }
};

/// The child mode the command line's first argument selects, or nullptr to run the tests.
inline auto selected_child_mode(int argc, char** argv) -> child_main {
  if (argc < 2) return nullptr;
  const auto found = child_modes().find(std::string_view{argv[1]});
  return found == child_modes().end() ? nullptr : found->second;
}

}  // namespace replicant::test

#endif
