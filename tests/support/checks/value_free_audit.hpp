// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_CHECKS_VALUE_FREE_AUDIT_HPP
#define REPLICANT_TESTS_SUPPORT_CHECKS_VALUE_FREE_AUDIT_HPP

/// @file
/// The suite-wide value-free audit of the live tests. Every row value a live test wants to prove
/// secret carries the marker `s3cr3t` (any case). The test support hands the audit everything the
/// library and its programs say: each telemetry event an event_log records, each error and halt a
/// running pipeline ends with, the standard error of each child program. A text holding the marker
/// is a finding, and a test program with a finding fails when it ends (live_server_fixture), in
/// whichever test the text appeared, even one that never checks for leaks itself.
///
/// Only the kind of a finding is reported, never the text: it holds the secret.

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::test::audit {

/// The marker every secret value of the live tests carries (compared without regard to case).
inline constexpr std::string_view marker = "s3cr3t";

/// Whether @p text holds the marker, in any case. Never throws.
[[nodiscard]] inline auto holds_marker(std::string_view text) noexcept -> bool {
  const auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(text.begin(), text.end(), marker.begin(), marker.end(), same) != text.end();
}

namespace detail {

struct state {
  std::mutex mutex;
  std::vector<std::string> findings;  // what was found, never the text that held it
  std::size_t audited = 0;            // texts looked at
};

inline auto the_state() -> state& {
  static state s;
  return s;
}

}  // namespace detail

/// Looks at @p text, which the library or one of its programs produced, as a @p kind (e.g.
/// "telemetry event"); records a finding when it holds the marker. Thread-safe.
inline auto note(std::string_view kind, std::string_view text) -> void {
  auto& s = detail::the_state();
  const bool found = holds_marker(text);
  const std::lock_guard lock{s.mutex};
  ++s.audited;
  if (found) s.findings.push_back("a secret row value in a " + std::string{kind});
}

/// What was found so far, one line each (which kind of text held the marker; never the text).
/// Thread-safe.
[[nodiscard]] inline auto findings() -> std::vector<std::string> {
  auto& s = detail::the_state();
  const std::lock_guard lock{s.mutex};
  return s.findings;
}

/// How many texts were looked at so far. Thread-safe.
[[nodiscard]] inline auto audited() -> std::size_t {
  auto& s = detail::the_state();
  const std::lock_guard lock{s.mutex};
  return s.audited;
}

/// Records a finding of another audit (support/checks/catalog_audit.hpp): @p what says what was
/// found, and must hold no text the library produced. Thread-safe.
inline auto finding(std::string what) -> void {
  auto& s = detail::the_state();
  const std::lock_guard lock{s.mutex};
  s.findings.push_back(std::move(what));
}

}  // namespace replicant::test::audit

#endif  // REPLICANT_TESTS_SUPPORT_CHECKS_VALUE_FREE_AUDIT_HPP
